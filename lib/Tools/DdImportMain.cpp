//===- DdImportMain.cpp - The dd-import driver ----------------------------===//
//
// dd-import lowers a PyTorch profiler (Kineto) trace or an Nsight Systems
// SQLite export to a .ddir graph and prints one line saying what it imported
// and what it passed over. Output follows dd-opt's rules: binary refused on a
// terminal without -f, text with -S, and no file left behind on failure.
//
//===----------------------------------------------------------------------===//

#include "SplitJobWriter.h"
#include "ToolSupport.h"
#include "daydream/Import/ImportJob.h"
#include "daydream/Import/Importer.h"
#include "daydream/Support/ToolInit.h"
#include "daydream/Support/Version.h"
#include "daydream/Tools/Drivers.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace dd;
using namespace dd::import;
namespace cl = llvm::cl;

static constexpr const char *Tool = "dd-import";

namespace {

struct Options {
  cl::OptionCategory Category{"dd-import options"};
  cl::list<std::string> Inputs{cl::Positional,
                               cl::desc("<trace> (several: one per rank of "
                                        "a job, imported as one graph)"),
                               cl::OneOrMore, cl::cat(Category)};
  cl::opt<std::string> Output{"o", cl::desc("Output file ('-' for stdout)"),
                              cl::value_desc("file"), cl::init("-"),
                              cl::cat(Category)};
  cl::opt<bool> Text{"S", cl::desc("Write the text form instead of binary"),
                     cl::cat(Category)};
  cl::opt<bool> Force{"f", cl::desc("Write binary even to a terminal"),
                      cl::cat(Category)};
  cl::opt<bool> Quiet{"q", cl::desc("Do not print the summary line"),
                      cl::cat(Category)};
  cl::opt<bool> KeepPython{
      "python-functions",
      cl::desc("Make python_function events (with_stack traces) ranges: "
               "their self time becomes cpu-op tasks (default: folded into "
               "the op that called them)"),
      cl::cat(Category)};
  cl::alias KeepPythonOld{"keep-python-functions",
                          cl::desc("Alias for -python-functions"),
                          cl::aliasopt(KeepPython), cl::cat(Category)};
  cl::opt<bool> SyncEdges{
      "sync-edges", cl::init(true),
      cl::desc("Add sync edges into synchronizing calls (default true)"),
      cl::cat(Category)};
  cl::opt<bool> CrossStream{"cross-stream-edges", cl::init(true),
                            cl::desc("Add cross-stream edges (default true)"),
                            cl::cat(Category)};
  cl::opt<bool> Infer{
      "infer-deps", cl::init(true),
      cl::desc("Infer cross-stream and cross-thread edges from timing where "
               "the trace records none (default true)"),
      cl::cat(Category)};
  cl::opt<bool> FoldRanks{
      "fold-identical-ranks", cl::init(true),
      cl::desc("Store a rank of a job that is the same as an earlier one "
               "(to the nanosecond) as its copy (default true)"),
      cl::cat(Category)};
  cl::opt<unsigned> Jobs{
      "j", cl::init(0), cl::value_desc("N"),
      cl::desc("Read, then lower, up to N ranks of a job at once (default "
               "0: one per core; -j 1 takes the least memory)"),
      cl::cat(Category)};
  cl::opt<bool> Split{
      "split",
      cl::desc("Write a job as one .ddir per rank beside the job file -o "
               "names (job.ddjob: job.rank0.ddir, ...), which every tool "
               "reads as one graph"),
      cl::cat(Category)};
  cl::opt<bool> NoLink{
      "no-link",
      cl::desc("With -split: the traces are some ranks of a job, imported "
               "apart (a cluster task each): write their graphs and "
               "collective tables (job.rankN.ddcoll), not the job file"),
      cl::cat(Category)};
  cl::opt<bool> Link{
      "link",
      cl::desc("The inputs are every rank's collective table (.ddcoll, from "
               "-split -no-link): match the collectives and write the job "
               "file -o names"),
      cl::cat(Category)};
  cl::opt<uint64_t> MaxInputSize{
      "max-input-size", cl::init(0), cl::value_desc("bytes"),
      cl::desc("Refuse a gzipped input that decompresses to more than this "
               "(default 0: the machine's memory)"),
      cl::cat(Category)};
};

/// A progress bar on stderr, for large inputs on a terminal only. Its
/// line is cleared (finish()) before anything else is printed, so that an
/// error, a warning or the summary starts a line of its own; sizes are in
/// MB of 10^6 bytes, as the summary counts them.
class ProgressBar {
public:
  explicit ProgressBar(bool Enabled) : Enabled(Enabled) {}
  ~ProgressBar() { finish(); }
  void update(uint64_t Done, uint64_t Total) {
    if (!Enabled || Total < (64u << 20))
      return;
    Shown = true;
    unsigned Pct = Total ? unsigned(100 * Done / Total) : 100;
    llvm::errs() << "\rdd-import: reading " << Done / 1000000 << " of "
                 << Total / 1000000 << " MB (" << Pct << "%)";
    llvm::errs().flush();
  }
  void finish() {
    if (Shown)
      llvm::errs() << "\r\033[K";
    Shown = false;
  }

private:
  bool Enabled;
  bool Shown = false;
};

/// \p Seconds is the whole import including \p WriteSeconds.
void printSummary(llvm::StringRef Name, const ImportResult &R, double Seconds,
                  double WriteSeconds) {
  const ImportStats &In = R.Read;
  const LoweringStats &L = R.Lowered;
  auto &OS = llvm::errs();
  double MB = double(R.TextBytes) / 1e6;
  OS << Tool << ": " << Name << ": " << R.Format << ", "
     << llvm::format("%.1f MB in %.2f s (%.0f MB/s; load %.2f, read %.2f, "
                     "lower %.2f, write %.2f)",
                     MB, Seconds, Seconds > 0 ? MB / Seconds : 0.0,
                     R.LoadSeconds, R.ReadSeconds, R.LowerSeconds, WriteSeconds)
     << ": " << In.Events << " events -> " << L.Tasks << " tasks on " << L.Lanes
     << " lanes, " << L.Edges << " edges, " << L.Iterations
     << " iterations; skipped " << In.SkippedPython << " python_function, "
     << In.SkippedOther << " other, " << In.MissingFields
     << " with missing fields, " << In.InvalidFields << " with invalid ones; "
     << L.UnmatchedActivities << " GPU activities without a launch";
  if (L.InferredLaunches)
    OS << " (" << L.InferredLaunches << " given one, "
       << llvm::format("%.1f", double(L.LaunchLatencyNs) / 1000)
       << " us before their start)";
  OS << ", " << L.DuplicateCorrelations << " duplicate correlations, "
     << L.NestedCalls << " nested calls, " << L.OverlappingTasks
     << " overlapping, " << L.SplitCalls << " split calls; inferred "
     << L.InferredCrossStream << " cross-stream, " << L.InferredCrossThread
     << " cross-thread and " << L.InferredBlockedCalls
     << " blocked-call edges; " << L.CpuOpTasks
     << " cpu-op tasks from the self time of " << L.CpuOpRanges
     << " CPU ranges (" << L.HandOverWaits
     << " waits for another thread cut out), " << L.SyncWaitsSplit
     << " synchronizing calls split after their wait\n";
}

/// Several traces: the ranks of one job, imported as one graph.
int importJobMain(const Options &Opt, const ImportOptions &IO,
                  ProgressBar &Bar) {
  auto Start = std::chrono::steady_clock::now();
  auto Job = importJob(Opt.Inputs, IO, [&](uint64_t Done, uint64_t Total) {
    Bar.update(Done, Total);
  });
  Bar.finish();
  if (!Job)
    return reportError(Tool, Job.takeError());
  Job->G.metadata().Producer = toolVersion("dd-import");
  for (const ImportResult &R : Job->Ranks)
    for (const std::string &Warning : importWarnings(R))
      reportWarning(Tool, Warning);
  for (const std::string &Warning : Job->Warnings)
    reportWarning(Tool, Warning);
  auto WriteStart = std::chrono::steady_clock::now();
  if (llvm::Error E = writeGraphFile(Job->G, Opt.Output, Opt.Text))
    return reportError(Tool, std::move(E));
  auto End = std::chrono::steady_clock::now();
  if (Opt.Quiet)
    return 0;
  for (size_t I = 0; I != Job->Ranks.size(); ++I) {
    const ImportResult &R = Job->Ranks[I];
    printSummary(R.Name + " (rank " + std::to_string(Job->RankIds[I]) + ")", R,
                 R.LoadSeconds + R.ReadSeconds + R.LowerSeconds, 0);
  }
  const CollectiveStats &C = Job->Collectives;
  llvm::errs() << Tool << ": job of " << Job->Ranks.size() << " ranks";
  if (Job->RankCopies)
    llvm::errs() << " (" << Job->RankCopies
                 << " stored as copies of identical ranks)";
  llvm::errs() << ": " << Job->G.numTasks() << " tasks on " << Job->G.numLanes()
               << " lanes, " << Job->G.countLiveEdges() << " edges; "
               << C.Matched << " collectives matched across ranks ("
               << C.Members << " kernels";
  if (C.Groups)
    llvm::errs() << " in " << C.Groups
                 << (C.Groups == 1 ? " process group" : " process groups");
  llvm::errs() << "), " << C.SizeMismatches << " with different sizes; ";
  if (size_t N = Job->DevicesRenumbered)
    llvm::errs() << N << (N == 1 ? " GPU" : " GPUs")
                 << " numbered as an earlier rank's, given an index of "
                 << (N == 1 ? "its" : "their") << " own ("
                 << Job->FirstRenumbered << "); ";
  llvm::errs() << llvm::format(
      "%.2f s in all, write %.2f s\n",
      std::chrono::duration<double>(End - Start).count(),
      std::chrono::duration<double>(End - WriteStart).count());
  return 0;
}

/// -split: the ranks of a job, a file each, and the job file.
int importSplitMain(const Options &Opt, const ImportOptions &IO,
                    ProgressBar &Bar) {
  auto Start = std::chrono::steady_clock::now();
  auto S = writeSplitJob(
      Opt.Inputs, IO, Opt.Output, Opt.Text, Opt.NoLink,
      [&](uint64_t Done, uint64_t Total) { Bar.update(Done, Total); });
  Bar.finish();
  if (!S)
    return reportError(Tool, S.takeError());
  for (const ImportResult &R : S->Ranks)
    for (const std::string &Warning : importWarnings(R))
      reportWarning(Tool, Warning);
  for (const std::string &Warning : S->Warnings)
    reportWarning(Tool, Warning);
  auto End = std::chrono::steady_clock::now();
  if (Opt.Quiet)
    return 0;
  for (size_t I = 0; I != S->Ranks.size(); ++I) {
    const ImportResult &R = S->Ranks[I];
    printSummary(R.Name + " (rank " + std::to_string(S->RankIds[I]) + ")", R,
                 R.LoadSeconds + R.ReadSeconds + R.LowerSeconds, 0);
  }
  if (Opt.NoLink) {
    llvm::errs() << Tool << ": " << S->Ranks.size()
                 << " of the job's ranks: " << S->Tasks << " tasks in "
                 << S->Files.size() << " files ("
                 << llvm::format("%.1f", double(S->Bytes) / 1e6)
                 << " MB) and their collective tables, to be linked "
                 << "(dd-import -link)"
                 << llvm::format(
                        "; %.2f s in all\n",
                        std::chrono::duration<double>(End - Start).count());
    return 0;
  }
  const CollectiveStats &C = S->Collectives;
  llvm::errs() << Tool << ": split job of " << S->Ranks.size()
               << " ranks: " << S->Tasks << " tasks in " << S->Files.size()
               << " files (" << llvm::format("%.1f", double(S->Bytes) / 1e6)
               << " MB) and " << Opt.Output << "; " << C.Matched
               << " collectives matched across ranks in " << S->Groups
               << (S->Groups == 1 ? " group" : " groups") << ", "
               << C.SizeMismatches << " with different sizes; "
               << llvm::format(
                      "%.2f s in all\n",
                      std::chrono::duration<double>(End - Start).count());
  return 0;
}

/// -link: the job file from every rank's collective table.
int linkMain(const Options &Opt) {
  auto Start = std::chrono::steady_clock::now();
  auto S = linkSplitJob(Opt.Inputs, Opt.Output);
  if (!S)
    return reportError(Tool, S.takeError());
  for (const std::string &Warning : S->Warnings)
    reportWarning(Tool, Warning);
  auto End = std::chrono::steady_clock::now();
  if (Opt.Quiet)
    return 0;
  const CollectiveStats &C = S->Collectives;
  llvm::errs() << Tool << ": linked " << S->RankIds.size() << " ranks ("
               << llvm::format("%.1f", double(S->Bytes) / 1e6)
               << " MB of graphs, not read) into " << Opt.Output << "; "
               << C.Matched << " collectives matched across ranks in "
               << S->Groups << (S->Groups == 1 ? " group" : " groups") << ", "
               << C.SizeMismatches << " with different sizes; "
               << llvm::format(
                      "%.2f s in all\n",
                      std::chrono::duration<double>(End - Start).count());
  return 0;
}

} // namespace

int dd::ddImportMain(int Argc, char **Argv) {
  InitTool X(Argc, Argv);
  keepFreedMemory();
  Options Opt;
  cl::HideUnrelatedOptions(Opt.Category);
  if (!cl::ParseCommandLineOptions(
          Argc, Argv,
          "dd-import: lower a GPU trace to a .ddir graph\n\n"
          "  dd-import trace.pt.trace.json.gz -o trace.ddir\n"
          "  dd-import profile.sqlite | dd-sim\n"
          "  dd-import rank*.json.gz -o job.ddir   (one graph for all "
          "ranks)\n"
          "  dd-import -split rank*.json.gz -o job.ddjob   (a file per "
          "rank)\n"
          "  dd-import -split -no-link rank3.json.gz -o job.ddjob   (on each "
          "node), then\n"
          "  dd-import -link job.rank*.ddcoll -o job.ddjob\n"))
    return 1;
  if (Opt.Link && (Opt.Split || Opt.NoLink))
    return reportError(Tool, "-link reads the collective tables -split "
                             "-no-link wrote; give it alone");
  if (Opt.NoLink && !Opt.Split)
    return reportError(Tool, "-no-link is an option of -split");
  if (Opt.Link)
    return linkMain(Opt);
  if (!Opt.Split)
    if (llvm::Error E =
            checkBinaryOutputAllowed(Opt.Output, Opt.Text, Opt.Force))
      return reportError(Tool, std::move(E));

  ImportOptions IO;
  IO.Kineto.KeepPythonFunctions = Opt.KeepPython;
  IO.Lowering.SyncEdges = Opt.SyncEdges;
  IO.Lowering.CrossStreamEdges = Opt.CrossStream;
  IO.Lowering.InferDependencies = Opt.Infer;
  IO.FoldIdenticalRanks = Opt.FoldRanks;
  IO.MaxInputBytes = Opt.MaxInputSize;
  IO.ReadThreads = Opt.Jobs;

  ProgressBar Bar(llvm::errs().is_displayed() && !Opt.Quiet);
  if (Opt.Split)
    return importSplitMain(Opt, IO, Bar);
  if (Opt.Inputs.size() > 1)
    return importJobMain(Opt, IO, Bar);
  std::string Input = Opt.Inputs.front();
  auto Start = std::chrono::steady_clock::now();
  auto R = importTrace(Input, IO, [&](uint64_t Done, uint64_t Total) {
    Bar.update(Done, Total);
  });
  Bar.finish();
  if (!R)
    return reportError(Tool, R.takeError());
  R->G.metadata().Producer = toolVersion("dd-import");

  std::string Name = Input == "-" ? "<stdin>" : Input;
  for (const std::string &Warning : importWarnings(*R))
    reportWarning(Tool, Warning);
  auto WriteStart = std::chrono::steady_clock::now();
  if (llvm::Error E = writeGraphFile(R->G, Opt.Output, Opt.Text))
    return reportError(Tool, std::move(E));
  auto End = std::chrono::steady_clock::now();
  if (!Opt.Quiet)
    printSummary(Name, *R, std::chrono::duration<double>(End - Start).count(),
                 std::chrono::duration<double>(End - WriteStart).count());
  return 0;
}
