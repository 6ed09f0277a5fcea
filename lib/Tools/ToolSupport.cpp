//===- ToolSupport.cpp - What every dd-* tool does the same way -----------===//
//
// Outputs are written through Support/OutputFile.h: under a temporary name,
// renamed over the target once complete, so a graph that fails to serialize,
// a full disk or a kill leaves an existing file as it was.
//
//===----------------------------------------------------------------------===//

#include "ToolSupport.h"
#include "daydream/IR/BinaryFormat.h"
#include "daydream/IR/FileKind.h"
#include "daydream/IR/Graph.h"
#include "daydream/IR/StringTable.h"
#include "daydream/IR/TextFormat.h"
#include "daydream/Import/Importer.h"
#include "daydream/Import/SplitJob.h"
#include "daydream/Pass/PassManager.h"
#include "daydream/Support/GzipStream.h"
#include "daydream/Support/OutputFile.h"
#include "daydream/Support/Version.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
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

void dd::reportWarning(llvm::StringRef Tool, const llvm::Twine &Message) {
  llvm::errs() << Tool << ": ";
  llvm::WithColor::warning(llvm::errs(), "") << Message << "\n";
}

std::string dd::formatDuration(double Ns) {
  if (Ns >= 1e6)
    return llvm::formatv("{0:f3} ms", Ns / 1e6).str();
  if (Ns >= 1e3)
    return llvm::formatv("{0:f1} us", Ns / 1e3).str();
  return llvm::formatv("{0:f0} ns", Ns).str();
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
  auto Out = OutputFile::create(OutputPath);
  if (!Out)
    return Out.takeError();
  if (llvm::Error E = writeGzippedIfNamed(
          **Out, [&](llvm::raw_ostream &OS) { OS << Contents; }))
    return E;
  return (*Out)->commit();
}

llvm::Expected<Graph> dd::readInputGraph(llvm::StringRef Path, GraphUse Use) {
  // A job file is a few lines of text; a graph is anything else.
  if (Path != "-" && sniffFileKindOf(Path) == FileKind::DdJob)
    return import::readSplitJob(Path, Use);
  return readGraphFile(Path, Use);
}

llvm::Error dd::writeGraphFile(const Graph &G, llvm::StringRef OutputPath,
                               bool Text) {
  auto Out = OutputFile::create(OutputPath);
  if (!Out)
    return Out.takeError();
  llvm::raw_ostream &OS = (*Out)->os();
  if (llvm::Error E = Text ? printTextGraph(G, OS) : writeBinaryGraph(G, OS))
    return E; // the temporary is removed; an old file stays
  return (*Out)->commit();
}

/// The file of rank \p Rank of \p Ranks: %r replaced, or ".rankN" before
/// the extension (".json.gz" counts as one) when there are several.
std::string dd::rankPath(llvm::StringRef Path, int32_t Rank, unsigned Ranks) {
  std::string N = std::to_string(Rank);
  if (Path.contains("%r")) {
    std::string Out;
    for (size_t I = 0; I < Path.size(); ++I) {
      if (Path[I] == '%' && I + 1 < Path.size() && Path[I + 1] == 'r') {
        Out += N;
        ++I;
      } else {
        Out += Path[I];
      }
    }
    return Out;
  }
  if (Ranks == 1)
    return Path.str();
  size_t Slash = Path.find_last_of('/');
  size_t Base = Slash == llvm::StringRef::npos ? 0 : Slash + 1;
  size_t Dot = Path.endswith(".json.gz")
                   ? Path.size() - llvm::StringRef(".json.gz").size()
                   : Path.rfind('.');
  if (Dot == llvm::StringRef::npos || Dot <= Base)
    Dot = Path.size();
  return (Path.take_front(Dot) + ".rank" + N + Path.drop_front(Dot)).str();
}

std::string dd::csvField(llvm::StringRef S) {
  if (S.find_first_of(",\"\r\n") == llvm::StringRef::npos)
    return S.str();
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"')
      Out += '"';
    Out += C;
  }
  return Out + "\"";
}

std::vector<std::string> dd::importWarnings(const import::ImportResult &R) {
  std::vector<std::string> Out = R.Warnings;
  for (const std::string &Note : R.Lowered.CycleNotes)
    Out.push_back(R.Name + ": " + Note);
  return Out;
}

void dd::recordPipelineRun(Graph &G, const PassManager &PM,
                           llvm::StringRef Tool, llvm::StringRef InputName) {
  std::string Pipeline;
  llvm::raw_string_ostream OS(Pipeline);
  PM.printPipeline(OS);
  // A file's name need not be UTF-8; a graph's strings are.
  G.metadata().Pipelines.push_back(
      PipelineRun{OS.str(), toolVersion(Tool), repairedUtf8(InputName)});
}
