//===- DdSimMain.cpp - The dd-sim driver ----------------------------------===//
//
// dd-sim reads a graph (file or stdin, either form), simulates it, and
// reports the predicted time of the whole graph and of each iteration next
// to the measured one, and the busy time of each lane, as text or JSON.
// Started by mpirun, it is one of several processes that share the
// simulation out (DistributedReplay.h); process 0 reports.
//
//===----------------------------------------------------------------------===//

#include "PredictedTrace.h"
#include "SimPlot.h"
#include "SimReport.h"
#include "SimShares.h"
#include "SimTimeline.h"
#include "SimulationRun.h"
#include "ToolSupport.h"
#include "daydream/Analysis/MemoryBreakdown.h"
#include "daydream/Analysis/Utilization.h"
#include "daydream/IR/CanonicalOrder.h"
#include "daydream/IR/FileKind.h"
#include "daydream/IR/Graph.h"
#include "daydream/IR/IRReader.h"
#include "daydream/IR/RankCopies.h"
#include "daydream/Pass/AnalysisManager.h"
#include "daydream/Plugin/PluginLoader.h"
#include "daydream/Sim/ProcessGroup.h"
#include "daydream/Sim/SchedulingPolicy.h"
#include "daydream/Sim/Simulator.h"
#include "daydream/Sim/Symmetry.h"
#include "daydream/Support/ToolInit.h"
#include "daydream/Tools/Drivers.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"

#include <cassert>
#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

using namespace dd;
namespace cl = llvm::cl;

static constexpr const char *Tool = "dd-sim";

namespace {
enum class ReportFormat { Text, Json, Csv };

struct Options {
  cl::OptionCategory Category{"dd-sim options"};
  cl::opt<std::string> Input{cl::Positional, cl::desc("<input .ddir>"),
                             cl::init("-"), cl::cat(Category)};
  cl::opt<std::string> Output{"o", cl::desc("Report file ('-' for stdout)"),
                              cl::value_desc("file"), cl::init("-"),
                              cl::cat(Category)};
  cl::opt<ReportFormat> Format{
      "report", cl::desc("Report format"), cl::init(ReportFormat::Text),
      cl::values(clEnumValN(ReportFormat::Text, "text", "human summary"),
                 clEnumValN(ReportFormat::Json, "json", "JSON for machines"),
                 clEnumValN(ReportFormat::Csv, "csv",
                            "the iterations as CSV, for spreadsheets")),
      cl::cat(Category)};
  cl::opt<std::string> Policy{
      "policy",
      cl::desc("Scheduling policy for by-priority lanes (recorded-order, "
               "shortest-first, note-priority, or a plugin's)"),
      cl::value_desc("name"), cl::init("recorded-order"), cl::cat(Category)};
  cl::opt<std::string> Timeline{
      "timeline",
      cl::desc("Also write the run as a Chrome/Perfetto trace (JSON): the "
               "baseline and the prediction side by side"),
      cl::value_desc("file.json"), cl::cat(Category)};
  cl::opt<std::string> Plot{
      "plot",
      cl::desc("Also draw the baseline and the prediction (time by phase, "
               "top kernels) as an SVG picture"),
      cl::value_desc("file.svg"), cl::cat(Category)};
  cl::opt<std::string> Kineto{
      "kineto",
      cl::desc("Also write the predicted run as a PyTorch profiler (Kineto) "
               "trace, gzipped if named .gz, one file a rank for a job: "
               "Perfetto, TensorBoard and HTA open it, dd-import reads it"),
      cl::value_desc("file.json[.gz]"), cl::cat(Category)};
  cl::opt<std::string> Baseline{
      "baseline",
      cl::desc("The graph whose simulation is -timeline's and -plot's "
               "baseline (default: the input's own recorded times)"),
      cl::value_desc("file.ddir"), cl::cat(Category)};
  cl::opt<bool> TimePhases{
      "time-phases",
      cl::desc("Print each step's wall time (read and verify, order, "
               "simulate, ...) to stderr"),
      cl::cat(Category)};
  cl::opt<bool> Symmetry{
      "symmetry", cl::init(true),
      cl::desc("Simulate one rank of each group of identical ranks of a job, "
               "and not the ranks the file stores as copies (exact; default "
               "true; not with -timeline, -plot or -kineto)"),
      cl::cat(Category)};
  cl::opt<bool> Headline{
      "headline", cl::init(true),
      cl::desc("Lead with the critical path and GPU utilization (default "
               "true; false skips their analysis)"),
      cl::cat(Category)};
  // LLVM's own -stats may be registered already (BoolFlag shares it).
  BoolFlag Stats{"stats",
                 "Print what the simulation did (tasks, edges, lanes, the "
                 "engine, ranks left out by symmetry) to stderr, as LLVM's "
                 "-stats does",
                 Category};
  cl::list<std::string> Plugins{
      llvm::StringRef(LoadPluginOption),
      cl::desc("Load a plugin's scheduling policies (and passes)"),
      cl::value_desc("path"), cl::cat(Category)};
};
/// -timeline and -plot: the baseline (another graph's simulation, or the
/// input's recorded times) beside the prediction.
llvm::Error writePictures(const Options &Opt, llvm::StringRef InputName,
                          const Graph &G, const SimResult &R,
                          const SimOptions &SO) {
  RunView Predicted(("predicted: " + InputName).str(), G, &R);
  llvm::Optional<Graph> BaseGraph;
  llvm::Optional<SimResult> BaseResult;
  if (!Opt.Baseline.empty()) {
    auto BG = readInputGraph(Opt.Baseline, GraphUse::Copy);
    if (!BG)
      return BG.takeError();
    BaseGraph = std::move(*BG);
    // Pictures show every rank, the baseline's too.
    if (llvm::Error E = expandRankCopies(*BaseGraph))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     Opt.Baseline + ": " +
                                         llvm::toString(std::move(E)));
    // Another graph: its own order, not the input's.
    SimOptions BaseOptions = SO;
    BaseOptions.Order = nullptr;
    auto BR = simulate(*BaseGraph, BaseOptions);
    if (!BR)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     Opt.Baseline + ": " +
                                         llvm::toString(BR.takeError()));
    BaseResult = std::move(*BR);
  }
  RunView Baseline =
      BaseGraph ? RunView("baseline: " + Opt.Baseline + " (simulated)",
                          *BaseGraph, &*BaseResult)
                : RunView(("recorded: " + InputName + " (its own times)").str(),
                          G, nullptr);
  auto Write = [&](const std::string &Path, auto Draw) -> llvm::Error {
    if (Path.empty())
      return llvm::Error::success();
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    if (llvm::Error E = Draw(OS))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     Path + ": " +
                                         llvm::toString(std::move(E)));
    return writeTextFile(OS.str(), Path);
  };
  if (llvm::Error E = Write(Opt.Timeline, [&](llvm::raw_ostream &OS) {
        return writeTimeline(Baseline, Predicted, OS);
      }))
    return E;
  return Write(Opt.Plot, [&](llvm::raw_ostream &OS) {
    writePlot(Baseline, Predicted, OS);
    return llvm::Error::success();
  });
}

/// Split over processes, every process meets the others at a few points
/// and learns which failed (ProcessGroup::agree()). Each stops then, and
/// only the first that failed prints its error, once for the whole job;
/// an error every process meets alike is printed by process 0 alone.
class ProcessErrors {
public:
  /// \p Processes: null for one process.
  explicit ProcessErrors(ProcessGroup *Processes) : Processes(Processes) {}

  bool split() const { return Processes; }
  unsigned index() const { return Processes ? Processes->index() : 0; }

  /// An error every process meets alike.
  int everywhere(llvm::Error E) const {
    if (index() == 0)
      return reportError(Tool, std::move(E));
    llvm::consumeError(std::move(E));
    return 1;
  }
  /// Meets the others with \p Mine (success or this process's error);
  /// returns -1 where every process passed, else the exit status. Alone,
  /// reports \p Mine if it is an error.
  int agree(llvm::Error Mine) const {
    const bool Ok = !Mine;
    if (!Processes)
      return Ok ? -1 : reportError(Tool, std::move(Mine));
    const std::vector<uint8_t> All = Processes->agree(Ok);
    const size_t First = llvm::find(All, 0) - All.begin();
    if (First == All.size())
      return -1;
    if (First == index())
      return reportError(Tool, std::move(Mine));
    llvm::consumeError(std::move(Mine));
    return 1;
  }

private:
  ProcessGroup *Processes;
};

} // namespace

int dd::ddSimMain(int Argc, char **Argv, ProcessGroup *Processes) {
  InitTool X(Argc, Argv);
  keepFreedMemory();
  // mpirun -np 1 is one process, simulated as such.
  if (Processes && Processes->size() <= 1)
    Processes = nullptr;
  const ProcessErrors Errors(Processes);
  Options Opt;
  cl::HideUnrelatedOptions(Opt.Category);
  if (!cl::ParseCommandLineOptions(
          Argc, Argv,
          "dd-sim: predict the run time of a trace graph\n\n"
          "  dd-sim trace.ddir\n  dd-opt -passes=... trace.ddir | dd-sim "
          "-report=json\n  mpirun -np 4 dd-sim job.ddjob\n",
          Errors.index() == 0 ? &llvm::errs() : &llvm::nulls()))
    return 1;

  // Checked before any work: only SVG is drawn (a browser opens it; no
  // image library is a dependency), and a .png holding SVG would mislead.
  if (!Opt.Plot.empty() && !llvm::StringRef(Opt.Plot).endswith(".svg"))
    return Errors.everywhere(llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "-plot=" + Opt.Plot +
            ": dd-sim draws SVG only; name the file *.svg (a browser opens "
            "it)"));
  // mpirun gives the standard input to process 0 alone.
  if (Errors.split() && Opt.Input == "-")
    return Errors.everywhere(llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "a simulation split over processes reads a file, not the standard "
        "input; name the graph or job file"));

  // A plugin's passes mean nothing here, but a plugin is loaded whole.
  PassRegistry Passes;
  std::vector<PolicyInfo> PluginPolicies;
  for (const std::string &Path : Opt.Plugins)
    if (auto Loaded = loadPlugin(Path, {&Passes, &PluginPolicies}); !Loaded)
      return Errors.everywhere(Loaded.takeError());
  auto Policy = createPolicy(Opt.Policy, PluginPolicies);
  if (!Policy)
    return Errors.everywhere(Policy.takeError());
  PhaseTimes Times;
  // Pictures and the predicted trace show every task, so they need every
  // task's times kept (SimulationRun.h).
  const bool KeepTimes =
      !Opt.Timeline.empty() || !Opt.Plot.empty() || !Opt.Kineto.empty();
  // Under mpirun, a split job's report is made from each process's share
  // of its ranks where the shares stand for the job (SimShares.h).
  llvm::Optional<JobShareRead> Share;
  bool SharesMemory = false;
  if (Errors.split() && !KeepTimes &&
      sniffFileKindOf(Opt.Input) == FileKind::DdJob) {
    auto S = readShareOfJob(Opt.Input, *Processes);
    if (int Status = Errors.agree(S ? llvm::Error::success() : S.takeError());
        Status >= 0)
      return Status;
    const SharesVerdict V = sharesStandForJob(*S, *Processes, Opt.Symmetry);
    SharesMemory = V.Memory;
    if (V.Stand)
      Share = std::move(*S);
    else if (V.OrdersDiffer)
      reportWarning(Tool, Opt.Input +
                              ": its processes' shares would take its "
                              "collectives in different orders and could "
                              "wait for each other, so every process reads "
                              "the whole job (collective tables written by "
                              "a dd-import before 2026-12-07 do not say "
                              "which collectives wait for which across "
                              "streams; dd-import -split again writes ones "
                              "that do)");
  }
  // Simulating reads the tasks and never changes one.
  auto G = Share ? llvm::Expected<Graph>(std::move(Share->G))
                 : readInputGraph(Opt.Input, GraphUse::ReadInPlace);
  // A file may be missing on one machine only.
  if (int Status = Errors.agree(G ? llvm::Error::success() : G.takeError());
      Status >= 0)
    return Status;
  Times.mark("read+verify");

  std::string InputName =
      Opt.Input == "-" ? std::string("<stdin>") : Opt.Input.getValue();
  SimulationRequest Req;
  Req.InputName = InputName;
  Req.Policy = Policy->get();
  Req.Headline = Opt.Headline;
  Req.Symmetry = Opt.Symmetry;
  Req.KeepTimes = KeepTimes;
  Req.Stats = Opt.Stats.isSet();
  Req.Times = &Times;
  Req.Processes = Processes;
  if (Share) {
    Req.ProcessOfRank = Share->ProcessOfRank;
    Req.ShareRead = Share->Took;
    Req.SharesHaveMemory = SharesMemory;
  }
  auto Run = std::make_unique<SimulationRun>();
  llvm::Error Failed = runSimulation(*G, Req, *Run);
  if (!Failed && (Run->SharesDeclined || Run->HeadlineNeedsWhole)) {
    // The whole job after all: on every process, where a share could not
    // be walked; on process 0 alone, where its headline needs every task's
    // times (the others have sent their sums and are done).
    if (Run->HeadlineNeedsWhole)
      Req.Processes = nullptr;
    Req.ProcessOfRank = {};
    G = readInputGraph(Opt.Input, GraphUse::ReadInPlace);
    const ProcessErrors Again(Req.Processes);
    if (int Status = Again.agree(G ? llvm::Error::success() : G.takeError());
        Status >= 0)
      return Status;
    Times.mark("read the whole job");
    Run = std::make_unique<SimulationRun>();
    Failed = runSimulation(*G, Req, *Run);
  }
  if (Failed) {
    // Before the replay's agreement the others are waiting at it.
    if (!Run->Agreed)
      return ProcessErrors(Req.Processes).agree(std::move(Failed));
    return ProcessErrors(Req.Processes).everywhere(std::move(Failed));
  }
  if (Run->OtherFailed)
    return 1;
  // Another process's share is done and sent: process 0 reports.
  if (!Run->R)
    return 0;
  const SimResult &R = *Run->R;

  if (!Opt.Timeline.empty() || !Opt.Plot.empty())
    if (llvm::Error E = writePictures(Opt, InputName, *G, R, Run->SO))
      return reportError(Tool, std::move(E));
  if (!Opt.Kineto.empty()) {
    auto Written = writePredictedTrace(*G, R, Opt.Kineto);
    if (!Written)
      return reportError(Tool, Written.takeError());
    if (Written->NoDevice)
      reportWarning(Tool, Opt.Kineto + ": " + llvm::Twine(Written->NoDevice) +
                              " task(s) on lanes with no GPU (a pass's "
                              "modelled network) are not in the trace");
  }

  std::string Report;
  llvm::raw_string_ostream OS(Report);
  SimReportInfo Info = Run->reportInfo(InputName, (*Policy)->name());
  if (Opt.Format == ReportFormat::Json)
    printSimReportJson(*G, R, Info, OS);
  else if (Opt.Format == ReportFormat::Csv)
    printSimReportCsv(*G, R, OS);
  else
    printSimReportText(*G, R, Info, OS);
  if (llvm::Error E = writeTextFile(OS.str(), Opt.Output))
    return reportError(Tool, std::move(E));
  Times.mark("report");
  if (Opt.TimePhases)
    Times.print(llvm::errs(), Tool, Run->Job ? Run->Job->Tasks : G->numTasks());
  printStatistics(llvm::errs(), Run->Stats);
  return 0;
}
