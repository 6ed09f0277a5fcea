//===- DdDiffMain.cpp - The dd-diff driver --------------------------------===//
//
// dd-diff A B compares two graphs' GPU time by kernel class and by layer,
// per iteration (GraphDiff.h): a recorded baseline against a recorded
// optimized run, a recording against a prediction (a graph dd-opt changed,
// simulated unless -simulate says otherwise), or, with -simulate=a, a
// replay against reality.
//
//===----------------------------------------------------------------------===//

#include "GraphDiff.h"
#include "ToolSupport.h"
#include "daydream/IR/IRReader.h"
#include "daydream/IR/RankCopies.h"
#include "daydream/Sim/Simulator.h"
#include "daydream/Support/ToolInit.h"
#include "daydream/Tools/Drivers.h"

#include "llvm/ADT/Optional.h"
#include "llvm/Support/CommandLine.h"

using namespace dd;
namespace cl = llvm::cl;

static constexpr const char *Tool = "dd-diff";

namespace {

enum class Simulate { Auto, None, A, B, Both };
enum class ReportFormat { Text, Json, Csv };

struct Options {
  cl::OptionCategory Category{"dd-diff options"};
  cl::opt<std::string> A{cl::Positional, cl::desc("<A .ddir>"), cl::Required,
                         cl::cat(Category)};
  cl::opt<std::string> B{cl::Positional, cl::desc("<B .ddir>"), cl::Required,
                         cl::cat(Category)};
  cl::opt<Simulate> Sim{
      "simulate",
      cl::desc("Which runs to simulate (default auto: each graph a pass "
               "pipeline changed, whose recorded times are the original's)"),
      cl::init(Simulate::Auto),
      cl::values(clEnumValN(Simulate::Auto, "auto",
                            "the graphs passes changed (predictions)"),
                 clEnumValN(Simulate::None, "none", "recorded times"),
                 clEnumValN(Simulate::A, "a", "simulate A (a prediction)"),
                 clEnumValN(Simulate::B, "b", "simulate B"),
                 clEnumValN(Simulate::Both, "both", "simulate both")),
      cl::cat(Category)};
  cl::opt<ReportFormat> Format{
      "report", cl::desc("Report format"), cl::init(ReportFormat::Text),
      cl::values(clEnumValN(ReportFormat::Text, "text", "tables"),
                 clEnumValN(ReportFormat::Json, "json", "JSON for machines"),
                 clEnumValN(ReportFormat::Csv, "csv", "CSV, for spreadsheets")),
      cl::cat(Category)};
  cl::opt<unsigned> Top{"top", cl::desc("Layers to list (default 20)"),
                        cl::init(20), cl::cat(Category)};
  cl::opt<std::string> Output{"o", cl::desc("Report file ('-' for stdout)"),
                              cl::value_desc("file"), cl::init("-"),
                              cl::cat(Category)};
};

/// A graph and, if asked, its simulation, kept alive for the RunView.
struct LoadedRun {
  Graph G;
  llvm::Optional<SimResult> R;
};

/// \p Simulated: whether to simulate the graph; None: if a pass pipeline
/// changed it.
llvm::Expected<LoadedRun> load(llvm::StringRef Path,
                               llvm::Optional<bool> Simulated) {
  auto G = readInputGraph(Path, GraphUse::Copy);
  if (!G)
    return G.takeError();
  // Compared iteration by iteration, every rank's.
  if (llvm::Error E = expandRankCopies(*G))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   Path + ": " + llvm::toString(std::move(E)));
  LoadedRun Run{std::move(*G), llvm::None};
  if (Simulated.getValueOr(Run.G.metadata().isPrediction())) {
    auto R = simulate(Run.G);
    if (!R)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     Path + ": " +
                                         llvm::toString(R.takeError()));
    Run.R = std::move(*R);
  }
  return std::move(Run);
}

} // namespace

int dd::ddDiffMain(int Argc, char **Argv) {
  InitTool X(Argc, Argv);
  Options Opt;
  cl::HideUnrelatedOptions(Opt.Category);
  if (!cl::ParseCommandLineOptions(
          Argc, Argv,
          "dd-diff: compare two runs' GPU time by kernel class and layer\n\n"
          "  dd-diff baseline.ddir optimized.ddir\n"
          "  dd-diff baseline.ddir predicted.ddir   (dd-opt's output: "
          "simulated)\n"
          "  dd-diff -simulate=a predicted.ddir measured.ddir\n"))
    return 1;
  // Simulate::Auto decides per graph once it is read.
  auto Wants = [&](Simulate Side) {
    return Opt.Sim == Simulate::Auto
               ? llvm::Optional<bool>()
               : llvm::Optional<bool>(Opt.Sim == Side ||
                                      Opt.Sim == Simulate::Both);
  };
  auto A = load(Opt.A, Wants(Simulate::A));
  if (!A)
    return reportError(Tool, A.takeError());
  auto B = load(Opt.B, Wants(Simulate::B));
  if (!B)
    return reportError(Tool, B.takeError());
  // Each side says where its times come from: a prediction's recorded
  // times are its original's, so they are never shown as its own.
  auto Label = [](const std::string &Path, const LoadedRun &Run) {
    std::string Name = Path == "-" ? std::string("<stdin>") : Path;
    const Metadata &M = Run.G.metadata();
    if (!Run.R)
      return Name + (M.isPrediction() ? " (recorded times of the graph "
                                        "passes changed: not a prediction)"
                                      : " (recorded)");
    if (!M.isPrediction())
      return Name + " (simulated replay)";
    std::string Pipelines;
    for (const PipelineRun &P : M.Pipelines)
      Pipelines += (Pipelines.empty() ? "" : ", then ") + P.Pipeline;
    return Name + " (predicted: simulated after " + Pipelines + ")";
  };
  RunView VA(Label(Opt.A, *A), A->G, A->R ? &*A->R : nullptr);
  RunView VB(Label(Opt.B, *B), B->G, B->R ? &*B->R : nullptr);
  GraphDiff D = diffRuns(VA, VB, Opt.Top);
  std::string Report;
  llvm::raw_string_ostream OS(Report);
  if (Opt.Format == ReportFormat::Json)
    printGraphDiffJson(D, OS);
  else if (Opt.Format == ReportFormat::Csv)
    printGraphDiffCsv(D, OS);
  else
    printGraphDiffText(D, OS);
  if (llvm::Error E = writeTextFile(OS.str(), Opt.Output))
    return reportError(Tool, std::move(E));
  return 0;
}
