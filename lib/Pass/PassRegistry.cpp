//===- PassRegistry.cpp - Named passes and pipeline parsing ---------------===//
//
// The pipeline grammar is small enough for a hand-written splitter: commas
// separate passes at brace depth zero and outside quotes.
//
//===----------------------------------------------------------------------===//

#include "daydream/Pass/PassRegistry.h"

#include <algorithm>

using namespace dd;
using llvm::Error;
using llvm::StringRef;

static Error registryError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

Error PassRegistry::registerPass(PassInfo Info) {
  if (lookup(Info.Name))
    return registryError("pass name '" + Info.Name + "' is already registered");
  if (!Info.Flag.empty() && lookup(Info.Flag))
    return registryError("pass flag '" + Info.Flag + "' of '" + Info.Name +
                         "' is already registered");
  size_t Index = Infos.size();
  ByName[Info.Name] = Index;
  if (!Info.Flag.empty())
    ByName[Info.Flag] = Index;
  Infos.push_back(std::move(Info));
  return Error::success();
}

const PassInfo *PassRegistry::lookup(StringRef NameOrFlag) const {
  auto It = ByName.find(NameOrFlag);
  return It == ByName.end() ? nullptr : &Infos[It->second];
}

std::vector<const PassInfo *> PassRegistry::passes() const {
  std::vector<const PassInfo *> Out;
  for (const PassInfo &I : Infos)
    Out.push_back(&I);
  std::sort(Out.begin(), Out.end(), [](const PassInfo *A, const PassInfo *B) {
    return A->Name < B->Name;
  });
  return Out;
}

llvm::Expected<std::unique_ptr<PassConcept>>
PassRegistry::createPass(StringRef NameOrFlag, StringRef Options) const {
  const PassInfo *Info = lookup(NameOrFlag);
  if (!Info)
    return registryError("unknown pass '" + NameOrFlag +
                         "' (see -print-passes)");
  return Info->Create(Options);
}

Error PassRegistry::parsePipeline(StringRef Text, PassManager &PM) const {
  auto Fail = [&](const llvm::Twine &Msg) {
    return registryError("invalid pipeline '" + Text + "': " + Msg);
  };
  size_t Begin = 0;
  int Depth = 0;
  bool InQuote = false;
  size_t OpenBrace = StringRef::npos, CloseBrace = StringRef::npos;
  for (size_t I = 0; I <= Text.size(); ++I) {
    char C = I < Text.size() ? Text[I] : ',';
    if (InQuote) {
      if (C == '\\')
        ++I;
      else if (C == '"')
        InQuote = false;
      if (I >= Text.size())
        return Fail("unterminated quote");
      continue;
    }
    if (C == '"' && Depth > 0) {
      InQuote = true;
    } else if (C == '{') {
      if (Depth++ == 0) {
        if (OpenBrace != StringRef::npos)
          return Fail("more than one option block for a pass");
        OpenBrace = I;
      }
    } else if (C == '}') {
      if (--Depth < 0)
        return Fail("unbalanced '}'");
      if (Depth == 0)
        CloseBrace = I;
    } else if (Depth == 0 && CloseBrace != StringRef::npos && C != ',' &&
               C != ' ') {
      return Fail("unexpected text after '}'");
    } else if (C == ',' && Depth == 0) {
      StringRef Elem = Text.slice(Begin, I).trim();
      StringRef Name = Elem, Opts;
      if (OpenBrace != StringRef::npos) {
        Name = Text.slice(Begin, OpenBrace).trim();
        Opts = Text.slice(OpenBrace + 1, CloseBrace);
      }
      if (Name.empty())
        return Fail("empty pass name");
      auto P = createPass(Name, Opts);
      if (!P)
        return P.takeError();
      PM.addPass(std::move(*P));
      Begin = I + 1;
      OpenBrace = CloseBrace = StringRef::npos;
    }
  }
  if (Depth != 0)
    return Fail("unbalanced '{'");
  return Error::success();
}

void PassRegistry::printPasses(llvm::raw_ostream &OS) const {
  OS << "Passes (use as -passes='NAME{KEY=VALUE ...}' or as -NAME flags):\n";
  for (const PassInfo *I : passes()) {
    OS << "  " << I->Name;
    if (!I->Flag.empty())
      OS << " (-" << I->Flag << ")";
    OS << "\n    " << I->Description << "\n";
    if (I->Options)
      for (const PassOptionDoc &O : I->Options())
        OS.indent(6) << O.Key << "=" << O.Default << "  " << O.Description
                     << "\n";
  }
}
