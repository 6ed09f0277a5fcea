//===- ToolSupport.cpp - What every dd-* tool does the same way -----------===//
//
// The graph is serialized into memory first and the output file is opened
// only after that succeeded; ToolOutputFile removes the file again if writing
// fails half way (a full disk).
//
//===----------------------------------------------------------------------===//

#include "daydream/Tools/ToolSupport.h"
#include "daydream/IR/BinaryFormat.h"
#include "daydream/IR/TextFormat.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <climits>

using namespace dd;

void dd::keepFreedMemory() {
#ifdef __GLIBC__
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
}

BoolFlag::BoolFlag(llvm::StringRef Name, llvm::StringRef Desc,
                   llvm::cl::OptionCategory &Cat) {
  auto &Registered = llvm::cl::getRegisteredOptions();
  auto It = Registered.find(Name);
  if (It != Registered.end()) {
    Shared = It->second;
    Shared->addCategory(Cat);
    Shared->setDescription(Desc);
    Shared->setHiddenFlag(llvm::cl::NotHidden);
    return;
  }
  Own = std::make_unique<llvm::cl::opt<bool>>(Name, llvm::cl::desc(Desc),
                                              llvm::cl::cat(Cat));
}

// A shared option may store its value anywhere (time-passes uses external
// storage), so only its occurrence is read.
bool BoolFlag::isSet() const {
  return Own ? bool(*Own) : Shared->getNumOccurrences() > 0;
}

int dd::reportError(llvm::StringRef Tool, llvm::Error E) {
  return reportError(Tool, llvm::toString(std::move(E)));
}

int dd::reportError(llvm::StringRef Tool, const llvm::Twine &Message) {
  llvm::errs() << Tool << ": ";
  llvm::WithColor::error(llvm::errs(), "") << Message << "\n";
  return 1;
}

llvm::Error dd::checkBinaryOutputAllowed(llvm::StringRef OutputPath, bool Text,
                                         bool Force) {
  if (Text || Force || OutputPath != "-" || !llvm::outs().is_displayed())
    return llvm::Error::success();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "refusing to write a binary graph to a terminal; use -S for text, "
      "-o FILE, or -f to force");
}

llvm::Error dd::writeTextFile(llvm::StringRef Contents,
                              llvm::StringRef OutputPath) {
  std::error_code EC;
  llvm::ToolOutputFile Out(OutputPath, EC, llvm::sys::fs::OF_None);
  if (EC)
    return llvm::createStringError(EC, "%s: %s", OutputPath.str().c_str(),
                                   EC.message().c_str());
  Out.os() << Contents;
  Out.os().flush();
  if (Out.os().has_error()) {
    EC = Out.os().error();
    Out.os().clear_error();
    return llvm::createStringError(EC, "%s: write failed: %s",
                                   OutputPath.str().c_str(),
                                   EC.message().c_str());
  }
  Out.keep();
  return llvm::Error::success();
}

llvm::Error dd::writeGraphFile(const Graph &G, llvm::StringRef OutputPath,
                               bool Text) {
  std::string Bytes;
  llvm::raw_string_ostream OS(Bytes);
  if (llvm::Error E = Text ? printTextGraph(G, OS) : writeBinaryGraph(G, OS))
    return E;
  return writeTextFile(OS.str(), OutputPath);
}
