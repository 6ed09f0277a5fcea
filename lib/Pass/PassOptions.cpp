//===- PassOptions.cpp - Options that live with each pass -----------------===//
//
// Tokenizes "key=value" lists (with double-quoted values) and converts values
// for the common field types.
//
//===----------------------------------------------------------------------===//

#include "daydream/Pass/PassOptions.h"

#include "daydream/Support/ShortestDouble.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <cmath>

using namespace dd;
using llvm::Error;
using llvm::StringRef;

Error dd::optionError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

Error dd::checkDurationFactor(StringRef Key, double V, bool Positive) {
  if (Positive ? V >= 1 / MaxDurationFactor && V <= MaxDurationFactor
               : V >= 0 && V <= MaxDurationFactor)
    return Error::success();
  std::string Value;
  llvm::raw_string_ostream(Value) << llvm::format("%g", V);
  return optionError(Key + " must be in " +
                     (Positive ? "[1e-6, 1e6]" : "[0, 1e6]") + ", not " +
                     Value);
}

void PassOptionParser::add(StringRef Key, StringRef Desc, ParseFn Parse,
                           PrintFn Print) {
  Options.push_back(
      Option{Key.str(), Desc.str(), std::move(Parse), std::move(Print)});
}

void PassOptionParser::add(StringRef Key, double &V, StringRef Desc) {
  add(
      Key, Desc,
      [&V](StringRef S) -> Error {
        double D;
        if (S.getAsDouble(D) || !std::isfinite(D))
          return optionError("expected a number, found '" + S + "'");
        V = D;
        return Error::success();
      },
      [&V](llvm::raw_ostream &OS) { printShortestDouble(OS, V); });
}

void PassOptionParser::add(StringRef Key, int64_t &V, StringRef Desc) {
  add(
      Key, Desc,
      [&V](StringRef S) -> Error {
        if (S.getAsInteger(10, V))
          return optionError("expected an integer, found '" + S + "'");
        return Error::success();
      },
      [&V](llvm::raw_ostream &OS) { OS << V; });
}

void PassOptionParser::add(StringRef Key, bool &V, StringRef Desc) {
  add(
      Key, Desc,
      [&V](StringRef S) -> Error {
        if (S == "true" || S == "1")
          V = true;
        else if (S == "false" || S == "0")
          V = false;
        else
          return optionError("expected true or false, found '" + S + "'");
        return Error::success();
      },
      [&V](llvm::raw_ostream &OS) { OS << (V ? "true" : "false"); });
}

void PassOptionParser::add(StringRef Key, std::string &V, StringRef Desc) {
  add(
      Key, Desc,
      [&V](StringRef S) -> Error {
        V = S.str();
        return Error::success();
      },
      [&V](llvm::raw_ostream &OS) { printOptionValue(OS, V); });
}

void dd::printOptionValue(llvm::raw_ostream &OS, StringRef V) {
  bool Bare = !V.empty() && V.find_first_of(" \t\n\",{}\\") == StringRef::npos;
  if (Bare) {
    OS << V;
    return;
  }
  OS << '"';
  for (char C : V) {
    if (C == '"' || C == '\\')
      OS << '\\';
    OS << C;
  }
  OS << '"';
}

/// Splits off the next value: a bare word up to whitespace, or a quoted
/// string with \" and \\ escapes.
static Error takeValue(StringRef &Rest, std::string &Out) {
  Out.clear();
  if (!Rest.startswith("\"")) {
    size_t End = Rest.find_first_of(" \t\n");
    Out = Rest.substr(0, End).str();
    Rest = Rest.substr(std::min(End, Rest.size()));
    return Error::success();
  }
  for (size_t I = 1; I < Rest.size(); ++I) {
    char C = Rest[I];
    if (C == '\\' && I + 1 < Rest.size()) {
      Out += Rest[++I];
    } else if (C == '"') {
      Rest = Rest.substr(I + 1);
      return Error::success();
    } else {
      Out += C;
    }
  }
  return optionError("unterminated quoted value");
}

Error PassOptionParser::parse(StringRef Text) {
  auto Fail = [&](const llvm::Twine &Msg) {
    return optionError("pass '" + PassName + "': " + Msg);
  };
  std::vector<std::string> Seen;
  StringRef Rest = Text.ltrim();
  while (!Rest.empty()) {
    size_t Eq = Rest.find('=');
    size_t Space = Rest.find_first_of(" \t\n");
    if (Eq == StringRef::npos || Eq > Space)
      return Fail("expected key=value, found '" + Rest.substr(0, Space) + "'");
    StringRef Key = Rest.substr(0, Eq);
    Rest = Rest.substr(Eq + 1);
    auto It =
        llvm::find_if(Options, [&](const Option &O) { return O.Key == Key; });
    if (It == Options.end()) {
      std::string Valid;
      for (const Option &O : Options)
        Valid += (Valid.empty() ? "" : ", ") + O.Key;
      return Fail("unknown option '" + Key + "'" +
                  (Valid.empty() ? std::string(" (it takes none)")
                                 : " (valid: " + Valid + ")"));
    }
    if (llvm::is_contained(Seen, Key.str()))
      return Fail("option '" + Key + "' given twice");
    Seen.push_back(Key.str());
    std::string Value;
    if (Error E = takeValue(Rest, Value))
      return Fail("option '" + Key + "': " + llvm::toString(std::move(E)));
    if (Error E = It->Parse(Value))
      return Fail("option '" + Key + "': " + llvm::toString(std::move(E)));
    Rest = Rest.ltrim();
  }
  return Error::success();
}

std::string PassOptionParser::print() const {
  std::string S;
  llvm::raw_string_ostream OS(S);
  for (size_t I = 0; I != Options.size(); ++I) {
    if (I)
      OS << ' ';
    OS << Options[I].Key << '=';
    Options[I].Print(OS);
  }
  return OS.str();
}

std::vector<PassOptionDoc> PassOptionParser::docs() const {
  std::vector<PassOptionDoc> Docs;
  for (const Option &O : Options) {
    std::string Default;
    llvm::raw_string_ostream DOS(Default);
    O.Print(DOS);
    Docs.push_back({O.Key, DOS.str(), O.Desc});
  }
  return Docs;
}

std::string dd::passSynopsis(llvm::StringRef Name,
                             llvm::ArrayRef<PassOptionDoc> Options) {
  std::string Out = Name.str();
  for (size_t I = 0; I != Options.size(); ++I)
    Out += (I ? " " : "{") + Options[I].Key + "=" + Options[I].Default;
  if (!Options.empty())
    Out += "}";
  return Out;
}
