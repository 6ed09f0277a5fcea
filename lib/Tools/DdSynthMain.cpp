//===- DdSynthMain.cpp - The dd-synth driver ------------------------------===//
//
// dd-synth makes the trace of a training job of any size (lib/Synth) and
// writes it as a .ddir graph, lowered by the importer's own code exactly as
// dd-import would lower the trace, or as Kineto JSON, one file per rank,
// which dd-import reads back into the same graph. Output follows dd-opt's
// rules: binary refused on a terminal without -f, text with -S, and no file
// left behind on failure. docs/Synth.md has the families and the figures.
//
//===----------------------------------------------------------------------===//

#include "ToolSupport.h"
#include "daydream/IR/BinaryFormat.h"
#include "daydream/IR/RankCopies.h"
#include "daydream/Import/ImportJob.h"
#include "daydream/Import/Lowering.h"
#include "daydream/Support/MachineMemory.h"
#include "daydream/Support/OutputFile.h"
#include "daydream/Support/ToolInit.h"
#include "daydream/Support/Version.h"
#include "daydream/Synth/KinetoWriter.h"
#include "daydream/Synth/Synth.h"
#include "daydream/Tools/Drivers.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace dd;
using namespace dd::synth;
namespace cl = llvm::cl;
using llvm::StringRef;

static constexpr const char *Tool = "dd-synth";

namespace {

struct Options {
  cl::OptionCategory Category{"dd-synth options"};
  cl::opt<std::string> FamilyName{
      "family",
      cl::desc("cnn (ResNet-like), transformer (GPT-like) or "
               "recommender (DLRM-like); default transformer"),
      cl::value_desc("name"), cl::init("transformer"), cl::cat(Category)};
  cl::opt<unsigned> Layers{
      "layers",
      cl::desc("Blocks (cnn, transformer) or MLP layers "
               "(recommender); default: the family's, or to fit "
               "-tasks"),
      cl::value_desc("n"), cl::init(0), cl::cat(Category)};
  cl::opt<unsigned> Iterations{
      "iterations", cl::desc("Training steps (default 3, or to fit -tasks)"),
      cl::value_desc("n"), cl::init(0), cl::cat(Category)};
  cl::opt<unsigned> Ranks{"ranks", cl::desc("Data-parallel ranks (default 1)"),
                          cl::value_desc("n"), cl::init(1), cl::cat(Category)};
  cl::opt<unsigned> Tp{
      "tp",
      cl::desc("Tensor-parallel degree (transformer; default 1): groups of "
               "this many consecutive ranks all-reduce each block's "
               "activations, and DDP's gradients are all-reduced across "
               "the ranks with the same place in their group; every "
               "collective then names its process group"),
      cl::value_desc("n"), cl::init(1), cl::cat(Category)};
  cl::opt<uint64_t> Tasks{
      "tasks",
      cl::desc("About this many tasks in the whole job's graph; "
               "layers and iterations are chosen to fit"),
      cl::value_desc("n"), cl::init(0), cl::cat(Category)};
  cl::opt<uint64_t> Seed{"seed", cl::desc("Random seed (default 1)"),
                         cl::value_desc("n"), cl::init(1), cl::cat(Category)};
  cl::opt<double> Jitter{
      "rank-jitter",
      cl::desc("How much the ranks' speeds differ, as a fraction (default "
               "0.02: each rank is up to 2% faster or slower)"),
      cl::value_desc("f"), cl::init(0.02), cl::cat(Category)};
  cl::opt<bool> Identical{
      "identical-ranks",
      cl::desc("Make every rank the same, draw for draw (no jitter): a job "
               "dd-sim simulates one rank of"),
      cl::cat(Category)};
  cl::opt<std::string> Format{
      "format",
      cl::desc("ddir, kineto or text (default: kineto for "
               ".json and .json.gz, else ddir; -S for text)"),
      cl::value_desc("name"), cl::init(""), cl::cat(Category)};
  cl::opt<std::string> Output{
      "o",
      cl::desc("Output file ('-' for stdout); Kineto output of several "
               "ranks goes to one file per rank, named with .rankN "
               "before the extension, or with %r replaced by N"),
      cl::value_desc("file"), cl::init("-"), cl::cat(Category)};
  cl::opt<bool> Text{"S", cl::desc("Write the graph's text form"),
                     cl::cat(Category)};
  cl::opt<bool> Force{"f", cl::desc("Write binary even to a terminal"),
                      cl::cat(Category)};
  cl::opt<bool> Quiet{"q", cl::desc("Do not print the summary line"),
                      cl::cat(Category)};
};

enum class OutFormat { Ddir, Text, Kineto };

double secondsSince(std::chrono::steady_clock::time_point Start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
      .count();
}

/// The output format: -format, else -S, else the file name.
llvm::Expected<OutFormat> outputFormat(const Options &Opt) {
  StringRef F = Opt.Format;
  auto Fail = [](const llvm::Twine &Msg) -> llvm::Error {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
  };
  if (F.empty()) {
    if (Opt.Text)
      return OutFormat::Text;
    StringRef Out = Opt.Output;
    return Out.endswith(".json") || Out.endswith(".json.gz") ? OutFormat::Kineto
                                                             : OutFormat::Ddir;
  }
  OutFormat Result;
  if (F == "ddir")
    Result = OutFormat::Ddir;
  else if (F == "text")
    Result = OutFormat::Text;
  else if (F == "kineto")
    Result = OutFormat::Kineto;
  else
    return Fail("-format=" + F + ": expected ddir, kineto or text");
  if (Opt.Text && Result != OutFormat::Text)
    return Fail("-S writes the text form; it cannot go with -format=" + F);
  return Result;
}

void printSummary(const JobPlan &Plan, uint64_t Asked, uint64_t Tasks,
                  StringRef Timing, StringRef Where) {
  auto &OS = llvm::errs();
  OS << Tool << ": " << toString(Plan.Fam) << ", " << Plan.Layers << " layers, "
     << Plan.Iterations << " iterations, " << Plan.Ranks
     << (Plan.Ranks == 1 ? " rank: " : " ranks: ") << Tasks << " tasks";
  if (Asked)
    OS << llvm::format(" (asked for %llu: %+.1f%%)", (unsigned long long)Asked,
                       100.0 * (double(Tasks) - double(Asked)) / double(Asked));
  OS << "; " << Timing << ": " << Where << "\n";
}

int writeKineto(const Options &Opt, const JobPlan &Plan,
                std::vector<import::TraceModel> &&Models, double GenSeconds) {
  StringRef Out = Opt.Output;
  if (Out == "-" && Plan.Ranks > 1)
    return reportError(Tool, "Kineto output of " + llvm::Twine(Plan.Ranks) +
                                 " ranks needs a file per rank: give -o "
                                 "FILE.json (or a name with %r)");
  auto Start = std::chrono::steady_clock::now();
  std::string Name = describePlan(Plan);
  // Every rank's file is written before any is committed, so a failure
  // (a full disk at rank 5) leaves none of the job's files behind.
  std::vector<std::unique_ptr<OutputFile>> Files;
  for (size_t R = 0; R != Models.size(); ++R) {
    auto File = OutputFile::create(rankPath(Out, int32_t(R), Plan.Ranks));
    if (!File)
      return reportError(Tool, File.takeError());
    if (llvm::Error E = writeKinetoFile(Models[R], **File, Name))
      return reportError(Tool, std::move(E));
    Models[R] = import::TraceModel(); // its memory goes back for the next
    Files.push_back(std::move(*File));
  }
  for (std::unique_ptr<OutputFile> &File : Files)
    if (llvm::Error E = File->commit())
      return reportError(Tool, std::move(E));
  if (Opt.Quiet)
    return 0;
  std::string Where = rankPath(Out, 0, Plan.Ranks);
  if (Plan.Ranks > 1)
    Where += " ... " + rankPath(Out, int32_t(Plan.Ranks - 1), Plan.Ranks);
  printSummary(Plan, Opt.Tasks, Plan.Tasks,
               llvm::formatv("generated in {0:f2} s, written in {1:f2} s "
                             "(dd-import makes the graph)",
                             GenSeconds, secondsSince(Start))
                   .str(),
               Where);
  return 0;
}

} // namespace

int dd::ddSynthMain(int Argc, char **Argv) {
  InitTool X(Argc, Argv);
  keepFreedMemory();
  Options Opt;
  cl::HideUnrelatedOptions(Opt.Category);
  if (!cl::ParseCommandLineOptions(
          Argc, Argv,
          "dd-synth: make a realistic training trace of any size\n\n"
          "  dd-synth -tasks=1000000 -o big.ddir\n"
          "  dd-synth -family=cnn -ranks=4 -o resnet.json   (resnet.rank0.json"
          " ...)\n"
          "  dd-synth -family=recommender -layers=8 -iterations=2 -S\n"))
    return 1;
  auto Format = outputFormat(Opt);
  if (!Format)
    return reportError(Tool, Format.takeError());
  llvm::Optional<Family> Fam = parseFamily(Opt.FamilyName);
  if (!Fam)
    return reportError(Tool, "-family=" + Opt.FamilyName +
                                 ": expected cnn, transformer or recommender");
  if (*Format != OutFormat::Kineto && StringRef(Opt.Output).contains("%r"))
    return reportError(Tool, "-o " + Opt.Output +
                                 ": %r names a file per rank, which only "
                                 "Kineto output writes");
  if (Opt.Ranks.getNumOccurrences() && Opt.Ranks == 0)
    return reportError(Tool, "-ranks=0: expected at least 1");
  if (Opt.Tasks.getNumOccurrences() && Opt.Tasks == 0)
    return reportError(Tool, "-tasks=0: expected at least 1");
  if (Opt.Layers.getNumOccurrences() && Opt.Layers == 0)
    return reportError(Tool, "-layers=0: expected at least 1");
  if (Opt.Iterations.getNumOccurrences() && Opt.Iterations == 0)
    return reportError(Tool, "-iterations=0: expected at least 1");
  if (*Format == OutFormat::Ddir)
    if (llvm::Error E = checkBinaryOutputAllowed(Opt.Output, false, Opt.Force))
      return reportError(Tool, std::move(E));

  SynthOptions SO;
  SO.Fam = *Fam;
  SO.Layers = Opt.Layers;
  SO.Iterations = Opt.Iterations;
  SO.Ranks = Opt.Ranks;
  SO.Tasks = Opt.Tasks;
  SO.Seed = Opt.Seed;
  SO.RankJitter = Opt.Jitter;
  SO.IdenticalRanks = Opt.Identical;
  SO.TensorParallel = Opt.Tp;
  auto Plan = planJob(SO);
  if (!Plan)
    return reportError(Tool, Plan.takeError());
  // A graph that cannot fit in this machine's memory is refused before it
  // is made (planJob() has refused one its ids cannot number): a 64-rank
  // job of a million tasks a rank once took a minute and 10 GB to fail in
  // the writer.
  if (*Format != OutFormat::Kineto) {
    const uint64_t Stored =
        ranksAreCopies(*Plan) ? Plan->TasksPerRank : Plan->Tasks;
    // At least the generated records and the graph's, a task's worth each
    // (a 10^7-task transformer peaks at about 177 bytes a task).
    const uint64_t Needs = Stored * 2 * sizeof(Task);
    if (uint64_t Memory = machineMemoryBytes(); Memory && Needs > Memory)
      return reportError(
          Tool,
          llvm::formatv("{0} tasks to store need at least {1} GB of "
                        "memory ({2} bytes a task), more than this "
                        "machine's {3} GB; ask for fewer -tasks or "
                        "-identical-ranks (stored once)",
                        Stored, Needs >> 30, 2 * sizeof(Task), Memory >> 30)
              .str());
  }

  auto Start = std::chrono::steady_clock::now();
  // A graph stores ranks alike as copies of rank 0 (IR/RankCopies.h), so
  // only rank 0 is made; Kineto JSON is every rank's own file.
  bool Copies = *Format != OutFormat::Kineto && ranksAreCopies(*Plan);
  std::vector<import::TraceModel> Models = generateJob(*Plan, Copies);
  double GenSeconds = secondsSince(Start);
  if (*Format == OutFormat::Kineto)
    return writeKineto(Opt, *Plan, std::move(Models), GenSeconds);

  // The importer's own lowering, as dd-import runs it on the JSON.
  Start = std::chrono::steady_clock::now();
  Graph G;
  import::LoweringOptions Lowering;
  std::vector<std::string> Warnings;
  if (Plan->Ranks == 1) {
    import::LoweringStats Stats;
    auto Lowered =
        import::lowerTrace(std::move(Models.front()), Lowering, Stats);
    Models.clear();
    if (!Lowered)
      return reportError(Tool, Lowered.takeError());
    G = std::move(*Lowered);
    Warnings = std::move(Stats.CycleNotes);
  } else {
    std::vector<import::RankTrace> Traces(Plan->Ranks);
    for (size_t R = 0; R != Traces.size(); ++R) {
      Traces[R].R.Name = "rank " + std::to_string(R);
      if (R < Models.size()) {
        Traces[R].Model = std::move(Models[R]);
        continue;
      }
      Traces[R].SameAs = 0;
      Traces[R].CopyLane = nameCopyLane;
      Traces[R].Model.Meta.Ranks.push_back(
          RankInfo{int32_t(R), int32_t(Plan->Ranks), ""});
    }
    Models.clear();
    auto Job = import::lowerJob(std::move(Traces), Lowering);
    if (!Job)
      return reportError(Tool, Job.takeError());
    G = std::move(Job->G);
    Warnings = std::move(Job->Warnings);
    for (const import::ImportResult &R : Job->Ranks)
      for (const std::string &Note : R.Lowered.CycleNotes)
        Warnings.push_back(R.Name + ": " + Note);
  }
  G.metadata().Producer = toolVersion("dd-synth");
  double LowerSeconds = secondsSince(Start);
  for (const std::string &W : Warnings)
    reportWarning(Tool, W);
  // The plan's count is what -tasks aimed at; the graph is what it got,
  // its copies counted as the ranks they stand for.
  size_t JobTasks = G.numTasks() + countCopiedWork(G).Tasks;
  if (JobTasks != Plan->Tasks)
    reportWarning(Tool, llvm::formatv("the graph has {0} tasks where {1} were "
                                      "planned",
                                      JobTasks, Plan->Tasks));
  Start = std::chrono::steady_clock::now();
  if (llvm::Error E = writeGraphFile(G, Opt.Output, *Format == OutFormat::Text))
    return reportError(Tool, std::move(E));
  if (!Opt.Quiet)
    printSummary(
        *Plan, Opt.Tasks, JobTasks,
        llvm::formatv("{3}generated in {0:f2} s, lowered in {1:f2} "
                      "s, written in {2:f2} s",
                      GenSeconds, LowerSeconds, secondsSince(Start),
                      Copies ? llvm::formatv("ranks 1 to {0} stored "
                                             "as copies of rank 0 "
                                             "({1} tasks stored); ",
                                             Plan->Ranks - 1, G.numTasks())
                                   .str()
                             : std::string())
            .str(),
        Opt.Output == "-" ? "<stdout>" : StringRef(Opt.Output));
  return 0;
}
