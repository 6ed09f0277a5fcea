//===- ToolSupport.h - What every dd-* tool does the same way ---*- C++ -*-===//
//
// Error reporting in the "tool: error: file: what" form, and writing a graph
// to a file or stdout the way LLVM's opt does: binary is refused on a
// terminal unless forced, and an output file is kept only once everything
// succeeded, so a failure never leaves a partial file behind.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TOOLS_TOOLSUPPORT_H
#define DAYDREAM_TOOLS_TOOLSUPPORT_H

#include "daydream/IR/IRReader.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace dd {

class Graph;
class PassManager;
namespace import {
struct ImportResult;
} // namespace import

/// A boolean flag that libLLVM may define already (-time-passes,
/// -print-after-all and -print-pipeline-passes are registered by its static
/// initializers): defining it again would abort at start-up, so the existing
/// option is reused and shown in \p Cat.
class BoolFlag {
public:
  BoolFlag(llvm::StringRef Name, llvm::StringRef Desc,
           llvm::cl::OptionCategory &Cat);
  bool isSet() const;

private:
  std::unique_ptr<llvm::cl::opt<bool>> Own;
  llvm::cl::Option *Shared = nullptr;
};

/// Prints "<tool>: error: <message>" to stderr and returns 1.
/// Tools build arrays of tens or hundreds of megabytes, free them and build
/// others. glibc serves large blocks with mmap and hands them back to the
/// kernel on free, so every new array costs a page fault per 4 KB again (a
/// fifth of an import's time, a quarter of a fusion pass's). Every tool's
/// main calls this first, so that all blocks come from the heap, which is
/// never trimmed, and freed memory is reused without faults; peak memory
/// grows by a few percent.
void keepFreedMemory();

int reportError(llvm::StringRef Tool, llvm::Error E);
int reportError(llvm::StringRef Tool, const llvm::Twine &Message);
/// Prints "<tool>: warning: <message>" to stderr.
void reportWarning(llvm::StringRef Tool, const llvm::Twine &Message);

/// A duration for people: "12.345 ms", "678.9 us" or "90 ns".
std::string formatDuration(double Ns);

/// Fails if binary output would go to a terminal and \p Force is not set.
llvm::Error checkBinaryOutputAllowed(llvm::StringRef OutputPath, bool Text,
                                     bool Force);

/// Reads the graph a tool was given: a .ddir file (readGraphFile(), for
/// \p Use) or a split job's file (Import/SplitJob.h), told apart by their
/// first bytes.
llvm::Expected<Graph> readInputGraph(llvm::StringRef Path, GraphUse Use);

/// Writes \p G (text or binary) to \p OutputPath ("-" for stdout), creating
/// the file only if the whole graph could be written.
llvm::Error writeGraphFile(const Graph &G, llvm::StringRef OutputPath,
                           bool Text);

/// Writes \p Contents to \p OutputPath ("-" for stdout) the same careful way,
/// gzipped when the name ends in ".gz".
llvm::Error writeTextFile(llvm::StringRef Contents, llvm::StringRef OutputPath);

/// \p S as one CSV field (RFC 4180): quoted when it holds a comma, a quote
/// or a line break, its quotes doubled.
std::string csvField(llvm::StringRef S);

/// The file of rank \p Rank of a job of \p Ranks ranks written one file a
/// rank: \p Path with "%r" replaced by the rank, or else ".rankN" before the
/// extension (".json.gz" counts as one) when there are several.
std::string rankPath(llvm::StringRef Path, int32_t Rank, unsigned Ranks);

/// What a trace's import warns about, as dd-import prints it: the
/// front-end's warnings, then the lowering's notes on the cycles it broke,
/// each after the input's name.
std::vector<std::string> importWarnings(const import::ImportResult &R);

/// Records in \p G's metadata that \p PM, run by \p Tool on the input
/// \p InputName, made it: the provenance every report of a prediction
/// names (dd-sim's "what-if:", dd-diff).
void recordPipelineRun(Graph &G, const PassManager &PM, llvm::StringRef Tool,
                       llvm::StringRef InputName);

} // namespace dd

#endif // DAYDREAM_TOOLS_TOOLSUPPORT_H
