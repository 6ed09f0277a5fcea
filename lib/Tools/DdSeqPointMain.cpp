//===- DdSeqPointMain.cpp - The dd-seqpoint driver ------------------------===//
//
// dd-seqpoint reads a whole training run (CSV, JSON or a multi-iteration
// trace, RunReaders.h), chooses its SeqPoints (SeqPoint.h), compares them
// with profiling the first or random iterations (Baselines.h), and, if
// asked, carries them over to another recording of the run (OtherRun.h) or
// projects an optimization over the run from the SeqPoints' own traces
// (SeqPointTraces.h). The report goes to stdout or -o, and is written only
// once everything succeeded.
//
//===----------------------------------------------------------------------===//

#include "SeqPointReport.h"
#include "SeqPointTraces.h"
#include "ToolSupport.h"
#include "daydream/Pass/PassRegistry.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/SeqPoint/RunReaders.h"
#include "daydream/Support/ToolInit.h"
#include "daydream/Tools/Drivers.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"

using namespace dd;
using namespace dd::seqpoint;
namespace cl = llvm::cl;

static constexpr const char *Tool = "dd-seqpoint";

namespace {

enum class ReportFormat { Text, Json };

struct Options {
  cl::OptionCategory Category{"dd-seqpoint options"};
  cl::OptionCategory LengthCategory{
      "What characterizes an iteration, and what it costs"};
  cl::OptionCategory ProjectCategory{"Projection over the run"};
  cl::opt<std::string> Input{cl::Positional,
                             cl::desc("<run.csv | run.json | trace.json[.gz]>"),
                             cl::Required, cl::cat(Category)};
  cl::opt<double> Threshold{
      "threshold",
      cl::desc("Grow the SeqPoints until the projection of the profiled "
               "iterations is off by less than this, in percent (default "
               "0.5)"),
      cl::value_desc("percent"), cl::init(0.5), cl::cat(Category)};
  cl::opt<unsigned> MaxSeqPoints{
      "max-seqpoints", cl::desc("Choose at most this many (default 50)"),
      cl::value_desc("N"), cl::init(50), cl::cat(Category)};
  cl::opt<unsigned> Fixed{
      "seqpoints",
      cl::desc("Choose exactly N, without validation (for a run with no "
               "measured times)"),
      cl::value_desc("N"), cl::init(0), cl::cat(Category)};
  cl::opt<uint64_t> Seed{
      "seed", cl::desc("Seed of the random-N comparison (default 1)"),
      cl::value_desc("N"), cl::init(1), cl::cat(Category)};
  cl::opt<unsigned> Draws{
      "random-draws",
      cl::desc("Random choices the comparison makes (default 100)"),
      cl::value_desc("N"), cl::init(100), cl::cat(Category)};
  cl::opt<ReportFormat> Format{
      "report", cl::desc("Report format"), cl::init(ReportFormat::Text),
      cl::values(clEnumValN(ReportFormat::Text, "text", "tables"),
                 clEnumValN(ReportFormat::Json, "json", "JSON for machines")),
      cl::cat(Category)};
  cl::opt<std::string> Output{"o", cl::desc("Report file ('-' for stdout)"),
                              cl::value_desc("file"), cl::init("-"),
                              cl::cat(Category)};

  cl::list<std::string> Lengths{
      "lengths",
      cl::desc("The CSV columns / JSON keys of an iteration's lengths "
               "(default seq_len)"),
      cl::value_desc("name,name"), cl::CommaSeparated, cl::cat(LengthCategory)};
  cl::opt<std::string> TimeColumn{
      "time-column",
      cl::desc("The CSV column / JSON key of an iteration's time in "
               "microseconds (default time_us)"),
      cl::value_desc("name"), cl::init("time_us"), cl::cat(LengthCategory)};
  cl::opt<LengthCombine> Combine{
      "combine", cl::desc("How several lengths make one (default sum)"),
      cl::init(LengthCombine::Sum),
      cl::values(
          clEnumValN(LengthCombine::Sum, "sum", "source + target tokens"),
          clEnumValN(LengthCombine::Product, "product",
                     "batch size * sequence length")),
      cl::cat(LengthCategory)};
  cl::opt<std::string> LengthOp{
      "length-op",
      cl::desc("In a trace: the CPU op whose input dimension is the length "
               "(default: the first one that varies across steps)"),
      cl::value_desc("name"), cl::cat(LengthCategory)};
  cl::opt<unsigned> LengthInput{
      "length-input", cl::desc("... its input (default 0)"),
      cl::value_desc("N"), cl::init(0), cl::cat(LengthCategory)};
  cl::opt<unsigned> LengthDim{
      "length-dim", cl::desc("... that input's dimension (default 0)"),
      cl::value_desc("N"), cl::init(0), cl::cat(LengthCategory)};

  cl::opt<std::string> OtherRun{
      "other-run",
      cl::desc("Another recording of the same run (other hardware or "
               "settings): project its total and the speedup from these "
               "SeqPoints"),
      cl::value_desc("file"), cl::cat(ProjectCategory)};
  cl::opt<std::string> TraceDir{
      "traces",
      cl::desc("A folder with each SeqPoint's trace as ITERATION.* (.ddir, "
               ".ddir.txt, or a trace dd-import reads)"),
      cl::value_desc("dir"), cl::cat(ProjectCategory)};
  cl::list<std::string> Traces{
      "trace", cl::desc("One SeqPoint's trace (repeatable)"),
      cl::value_desc("iteration=file"), cl::cat(ProjectCategory)};
  cl::opt<std::string> Passes{
      "passes",
      cl::desc("The dd-opt pipeline to model on each SeqPoint's trace"),
      cl::value_desc("pipeline"), cl::cat(ProjectCategory)};
};

/// What the report points into, alive until it is printed.
struct Session {
  llvm::Optional<RunProfile> Run, Other;
  Selection Sel;
  llvm::Optional<OtherRunProjection> OtherProjection;
  llvm::Optional<TraceProjection> Traces;
  SeqPointReport Report;
};

/// Reads the run, chooses its SeqPoints and projects what was asked for.
llvm::Error run(const Options &Opt, Session &S) {
  RunReadOptions RO;
  if (!Opt.Lengths.empty())
    RO.LengthColumns.assign(Opt.Lengths.begin(), Opt.Lengths.end());
  RO.TimeColumn = Opt.TimeColumn;
  RO.Trace = {Opt.LengthOp, Opt.LengthInput, Opt.LengthDim};
  auto Run = readRunFile(Opt.Input, RO);
  if (!Run)
    return Run.takeError();
  S.Run = std::move(*Run);

  SelectOptions SO;
  SO.Threshold = Opt.Threshold / 100;
  SO.MaxSeqPoints = Opt.MaxSeqPoints;
  SO.Fixed = Opt.Fixed;
  auto Sel = selectSeqPoints(*S.Run, S.Run->keys(Opt.Combine), SO);
  if (!Sel)
    return Sel.takeError();
  S.Sel = std::move(*Sel);
  if (!S.Sel.Converged)
    reportWarning(Tool,
                  llvm::formatv("{0}: no number of SeqPoints up to {1} "
                                "projects the profiled iterations "
                                "within {2:f2}%; kept the most accurate, {3}",
                                S.Run->source(), SO.MaxSeqPoints,
                                double(Opt.Threshold), S.Sel.Bins.size()));

  SeqPointReport &R = S.Report;
  R.Run = &*S.Run;
  R.Length = S.Run->describeLengths(Opt.Combine);
  R.Time = Opt.TimeColumn;
  R.Sel = &S.Sel;
  R.Proj = project(*S.Run, S.Sel.Bins);
  R.Threshold = SO.Threshold;
  R.Fixed = Opt.Fixed != 0;
  R.Comparison =
      compareBaselines(*S.Run, S.Sel.Bins.size(), Opt.Draws, Opt.Seed);

  if (!Opt.OtherRun.empty()) {
    auto Other = readRunFile(Opt.OtherRun, RO);
    if (!Other)
      return Other.takeError();
    S.Other = std::move(*Other);
    auto P = projectOtherRun(*S.Run, S.Sel.Bins, R.Proj, *S.Other);
    if (!P)
      return P.takeError();
    S.OtherProjection = std::move(*P);
    R.Other = &*S.OtherProjection;
  }

  if (Opt.TraceDir.empty() && Opt.Traces.empty()) {
    if (!Opt.Passes.empty())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "-passes needs the SeqPoints' traces (-traces=DIR or "
          "-trace=ITERATION=FILE)");
    return llvm::Error::success();
  }
  std::vector<int64_t> Iterations;
  for (const SeqPointBin &B : S.Sel.Bins)
    Iterations.push_back(S.Run->iteration(B.Rep));
  auto Paths = findSeqPointTraces(Iterations, Opt.TraceDir, Opt.Traces);
  if (!Paths)
    return Paths.takeError();
  PassRegistry Registry;
  registerBuiltinPasses(Registry);
  auto T = projectWithTraces(*S.Run, S.Sel.Bins, *Paths, Registry, Opt.Passes);
  if (!T)
    return T.takeError();
  S.Traces = std::move(*T);
  R.Traces = &*S.Traces;
  return llvm::Error::success();
}

} // namespace

int dd::ddSeqPointMain(int Argc, char **Argv) {
  InitTool X(Argc, Argv);
  keepFreedMemory();
  Options Opt;
  cl::HideUnrelatedOptions(
      {&Opt.Category, &Opt.LengthCategory, &Opt.ProjectCategory});
  if (!cl::ParseCommandLineOptions(
          Argc, Argv,
          "dd-seqpoint: choose the iterations of a sequence model's run to "
          "profile, and project the run from them\n\n"
          "  dd-seqpoint run.csv\n"
          "  dd-seqpoint -report=json trace.pt.trace.json.gz\n"
          "  dd-seqpoint run.csv -traces=seqpoint-traces/ -passes=amp-scale\n"))
    return 1;
  if (Opt.Threshold < 0)
    return reportError(Tool, "-threshold must not be negative");
  Session S;
  if (llvm::Error E = run(Opt, S))
    return reportError(Tool, std::move(E));
  std::string Report;
  llvm::raw_string_ostream OS(Report);
  if (Opt.Format == ReportFormat::Json)
    printSeqPointJson(S.Report, OS);
  else
    printSeqPointText(S.Report, OS);
  if (llvm::Error E = writeTextFile(OS.str(), Opt.Output))
    return reportError(Tool, std::move(E));
  return 0;
}
