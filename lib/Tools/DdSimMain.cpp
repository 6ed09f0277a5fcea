//===- DdSimMain.cpp - The dd-sim driver ----------------------------------===//
//
// dd-sim reads a graph (file or stdin, either form), simulates it, and
// reports the predicted time of the whole graph and of each iteration next
// to the measured one, and the busy time of each lane, as text or JSON.
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/Graph.h"
#include "daydream/IR/IRReader.h"
#include "daydream/Plugin/PluginLoader.h"
#include "daydream/Sim/SchedulingPolicy.h"
#include "daydream/Sim/Simulator.h"
#include "daydream/Tools/Drivers.h"
#include "daydream/Tools/SimReport.h"
#include "daydream/Tools/SimTimeline.h"
#include "daydream/Tools/ToolSupport.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace dd;
namespace cl = llvm::cl;

static constexpr const char *Tool = "dd-sim";

namespace {
enum class ReportFormat { Text, Json };

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
                 clEnumValN(ReportFormat::Json, "json", "JSON for machines")),
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
  cl::opt<std::string> TimelineBaseline{
      "timeline-baseline",
      cl::desc("The graph whose simulation is the timeline's baseline "
               "(default: the input's own recorded times)"),
      cl::value_desc("file.ddir"), cl::cat(Category)};
  cl::list<std::string> Plugins{
      llvm::StringRef(LoadPluginOption),
      cl::desc("Load a plugin's scheduling policies (and passes)"),
      cl::value_desc("path"), cl::cat(Category)};
};
/// -timeline: the baseline (another graph's simulation, or the input's
/// recorded times) and the prediction, in one trace file.
llvm::Error writeTimelineFile(const Options &Opt, llvm::StringRef InputName,
                              const Graph &G, const SimResult &R,
                              const SimOptions &SO) {
  TimelineRun Predicted{("predicted: " + InputName).str(), &G, &R};
  TimelineRun Baseline{("recorded: " + InputName + " (its own times)").str(),
                       &G, nullptr};
  llvm::Optional<Graph> BaseGraph;
  llvm::Optional<SimResult> BaseResult;
  if (!Opt.TimelineBaseline.empty()) {
    auto BG = readGraphFile(Opt.TimelineBaseline);
    if (!BG)
      return BG.takeError();
    BaseGraph = std::move(*BG);
    auto BR = simulate(*BaseGraph, SO);
    if (!BR)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     Opt.TimelineBaseline + ": " +
                                         llvm::toString(BR.takeError()));
    BaseResult = std::move(*BR);
    Baseline = {"baseline: " + Opt.TimelineBaseline + " (simulated)",
                &*BaseGraph, &*BaseResult};
  }
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  writeTimeline(Baseline, Predicted, OS);
  return writeTextFile(OS.str(), Opt.Timeline);
}

} // namespace

int dd::ddSimMain(int Argc, char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  keepFreedMemory();
  Options Opt;
  cl::HideUnrelatedOptions(Opt.Category);
  if (!cl::ParseCommandLineOptions(
          Argc, Argv,
          "dd-sim: predict the run time of a trace graph\n\n"
          "  dd-sim trace.ddir\n  dd-opt -passes=... trace.ddir | dd-sim "
          "-report=json\n"))
    return 1;

  // A plugin's passes mean nothing here, but a plugin is loaded whole.
  PassRegistry Passes;
  std::vector<PolicyInfo> PluginPolicies;
  for (const std::string &Path : Opt.Plugins)
    if (auto Loaded = loadPlugin(Path, {&Passes, &PluginPolicies}); !Loaded)
      return reportError(Tool, Loaded.takeError());
  auto Policy = createPolicy(Opt.Policy, PluginPolicies);
  if (!Policy)
    return reportError(Tool, Policy.takeError());
  auto G = readGraphFile(Opt.Input);
  if (!G)
    return reportError(Tool, G.takeError());

  SimOptions SO;
  SO.Policy = Policy->get();
  auto R = simulate(*G, SO);
  std::string InputName =
      Opt.Input == "-" ? std::string("<stdin>") : Opt.Input.getValue();
  if (!R)
    return reportError(Tool, InputName + ": " + llvm::toString(R.takeError()));

  if (!Opt.Timeline.empty())
    if (llvm::Error E = writeTimelineFile(Opt, InputName, *G, *R, SO))
      return reportError(Tool, std::move(E));

  std::string Report;
  llvm::raw_string_ostream OS(Report);
  SimReportInfo Info{InputName, (*Policy)->name()};
  if (Opt.Format == ReportFormat::Json)
    printSimReportJson(*G, *R, Info, OS);
  else
    printSimReportText(*G, *R, Info, OS);
  if (llvm::Error E = writeTextFile(OS.str(), Opt.Output))
    return reportError(Tool, std::move(E));
  return 0;
}
