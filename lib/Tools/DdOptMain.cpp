//===- DdOptMain.cpp - The dd-opt driver ----------------------------------===//
//
// dd-opt reads a graph, runs a pipeline of passes over it and writes the
// result. A pipeline is either -passes='a{k=v},b' or per-pass flags in
// command-line order (dd-opt -scale-tasks='factor=0.5' -remove-tasks=...),
// as mlir-opt allows; the two cannot be mixed. Per-pass flags are taken out
// of argv before LLVM's option parser sees them, because cl::opt cannot
// report the relative order of different options.
//
//===----------------------------------------------------------------------===//

#include "SplitJobOpt.h"
#include "ToolSupport.h"
#include "daydream/IR/FileKind.h"
#include "daydream/IR/IRReader.h"
#include "daydream/IR/StringTable.h"
#include "daydream/IR/Verifier.h"
#include "daydream/Pass/PassRegistry.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Plugin/PluginLoader.h"
#include "daydream/Support/ToolInit.h"
#include "daydream/Support/Version.h"
#include "daydream/Tools/Drivers.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

using namespace dd;
namespace cl = llvm::cl;

static constexpr const char *Tool = "dd-opt";

namespace {

struct PassFlag {
  std::string Name, Options;
};

/// Removes the per-pass flags (-NAME or -NAME=OPTIONS, one or two dashes)
/// from \p Args, returning them in order. Stops at "--".
std::vector<PassFlag> extractPassFlags(const PassRegistry &R,
                                       std::vector<const char *> &Args) {
  std::vector<PassFlag> Flags;
  std::vector<const char *> Rest;
  bool Done = false;
  for (size_t I = 0; I != Args.size(); ++I) {
    llvm::StringRef A = Args[I];
    if (I == 0 || Done || !A.startswith("-") || A == "-") {
      Rest.push_back(Args[I]);
      continue;
    }
    if (A == "--") {
      Done = true;
      Rest.push_back(Args[I]);
      continue;
    }
    llvm::StringRef Body = A.drop_front(A.startswith("--") ? 2 : 1);
    auto [Name, Opts] = Body.split('=');
    if (R.lookup(Name))
      Flags.push_back(PassFlag{Name.str(), Opts.str()});
    else
      Rest.push_back(Args[I]);
  }
  Args = std::move(Rest);
  return Flags;
}

struct Options {
  cl::OptionCategory Category{"dd-opt options"};
  cl::OptionCategory PassCategory{
      "Passes (as flags, in order: -NAME or -NAME='KEY=VALUE ...')"};
  cl::opt<std::string> Input{cl::Positional, cl::desc("<input .ddir>"),
                             cl::init("-"), cl::cat(Category)};
  cl::opt<std::string> Output{"o", cl::desc("Output file ('-' for stdout)"),
                              cl::value_desc("file"), cl::init("-"),
                              cl::cat(Category)};
  cl::opt<bool> Text{"S", cl::desc("Write the text form instead of binary"),
                     cl::cat(Category)};
  cl::opt<bool> Force{"f", cl::desc("Write binary even to a terminal"),
                      cl::cat(Category)};
  cl::opt<bool> DisableOutput{"disable-output",
                              cl::desc("Do not write the resulting graph"),
                              cl::cat(Category)};
  cl::opt<std::string> Passes{
      "passes", cl::desc("Pipeline: 'name{key=value ...},name,...'"),
      cl::value_desc("pipeline"), cl::cat(Category)};
  cl::opt<bool> PrintPasses{"print-passes",
                            cl::desc("List the available passes and exit"),
                            cl::cat(Category)};
  cl::opt<std::string> PrintPassDocs{
      "print-pass-docs",
      cl::desc("Print a pass's reference (synopsis, options, traits) in "
               "Markdown, as its docs/passes page holds it, and exit"),
      cl::value_desc("name"), cl::cat(Category)};
  BoolFlag PrintPipeline{
      "print-pipeline-passes",
      "Print the pipeline with every option, in -passes= form, and exit",
      Category};
  cl::opt<bool> VerifyEach{"verify-each",
                           cl::desc("Verify the graph after every pass"),
                           cl::cat(Category)};
  BoolFlag PrintAfterAll{
      "print-after-all",
      "Print the graph (text form) to stderr after every pass", Category};
  BoolFlag TimePasses{"time-passes", "Report the time each pass took",
                      Category};
  BoolFlag Stats{"stats",
                 "Print what each pass changed and counted, as LLVM's "
                 "-stats does, to stderr at the end",
                 Category};
  /// Read by pluginPathsInArgs() before parsing; declared for --help and so
  /// that the parser accepts it.
  cl::list<std::string> Plugins{
      llvm::StringRef(LoadPluginOption),
      cl::desc("Load a plugin's passes (they then work like built-in ones)"),
      cl::value_desc("path"), cl::cat(Category)};
  cl::opt<bool> DebugPM{"debug-pass-manager",
                        cl::desc("Log passes and analyses as they run"),
                        cl::cat(Category)};
  /// Shown by --help only: the flags themselves are extracted beforehand.
  std::vector<std::unique_ptr<cl::opt<std::string>>> PassHelp;

  explicit Options(const PassRegistry &R) {
    for (const PassInfo *I : R.passes()) {
      // The option keeps a reference to its name: point into the registry.
      for (const std::string *Spelling : {&I->Name, &I->Flag}) {
        if (Spelling->empty())
          continue;
        PassHelp.push_back(std::make_unique<cl::opt<std::string>>(
            llvm::StringRef(*Spelling), cl::desc(I->Description),
            cl::ValueOptional, cl::value_desc("options"),
            cl::cat(PassCategory)));
      }
    }
  }
};

} // namespace

int dd::ddOptMain(int Argc, char **Argv) {
  InitTool X(Argc, Argv);
  keepFreedMemory();
  PassRegistry Registry;
  registerBuiltinPasses(Registry);

  std::vector<const char *> Args(Argv, Argv + Argc);
  // Before the flags are taken out: a plugin's passes are flags too.
  for (const std::string &Path : pluginPathsInArgs(Args))
    if (auto Loaded = loadPlugin(Path, {&Registry, nullptr}); !Loaded)
      return reportError(Tool, Loaded.takeError());
  std::vector<PassFlag> Flags = extractPassFlags(Registry, Args);

  Options Opt(Registry);
  cl::HideUnrelatedOptions({&Opt.Category, &Opt.PassCategory});
  if (!cl::ParseCommandLineOptions(
          int(Args.size()), Args.data(),
          "dd-opt: rewrite a trace graph to model an optimization\n\n"
          "  dd-opt -passes='scale-tasks{factor=0.5 kind=kernel}' in.ddir -o "
          "out.ddir\n  dd-opt -remove-tasks='kind=memcpy' in.ddir | dd-sim\n"))
    return 1;

  if (Opt.PrintPasses) {
    Registry.printPasses(llvm::outs());
    return 0;
  }
  if (Opt.PrintPassDocs.getNumOccurrences()) {
    const PassInfo *I = Registry.lookup(Opt.PrintPassDocs);
    if (!I)
      return reportError(Tool, "-print-pass-docs: no pass named '" +
                                   Opt.PrintPassDocs +
                                   "' (dd-opt -print-passes lists them)");
    PassRegistry::printPassDocs(*I, llvm::outs());
    return 0;
  }

  PassManager PM;
  if (!Flags.empty() && Opt.Passes.getNumOccurrences())
    return reportError(Tool, "use either -passes= or per-pass flags, not both");
  for (const PassFlag &F : Flags) {
    auto P = Registry.createPass(F.Name, F.Options);
    if (!P)
      return reportError(Tool, P.takeError());
    PM.addPass(std::move(*P));
  }
  if (!Opt.Passes.empty())
    if (llvm::Error E = Registry.parsePipeline(Opt.Passes, PM))
      return reportError(Tool, std::move(E));

  if (Opt.PrintPipeline.isSet()) {
    PM.printPipeline(llvm::outs());
    llvm::outs() << "\n";
    return 0;
  }

  PassInstrumentation PI;
  PI.VerifyEach = Opt.VerifyEach;
  PI.PrintAfterAll = Opt.PrintAfterAll.isSet();
  PI.TimePasses = Opt.TimePasses.isSet();
  PI.DebugPassManager = Opt.DebugPM;
  PI.Stats = Opt.Stats.isSet();
  bool WriteGraph = !Opt.DisableOutput;
  // A split job written as a split job: each rank through the pipeline
  // alone (SplitJobOpt.h).
  const bool InSplit =
      Opt.Input != "-" && sniffFileKindOf(Opt.Input) == FileKind::DdJob;
  if (WriteGraph && llvm::StringRef(Opt.Output).endswith(".ddjob")) {
    if (!InSplit)
      return reportError(Tool, "-o " + Opt.Output +
                                   ": a split job (.ddjob) is written from "
                                   "a split job only; name a .ddir to "
                                   "write one file");
    SplitJobOptOptions SO;
    SO.Tool = Tool;
    SO.Text = Opt.Text;
    SO.DebugPM = Opt.DebugPM;
    SO.Warn = [](llvm::StringRef Message) { reportWarning(Tool, Message); };
    auto Stats = optimizeSplitJob(Opt.Input, Opt.Output, PM, PI, SO);
    if (!Stats)
      return reportError(Tool, Stats.takeError());
    if (PI.Stats)
      printStatistics(llvm::errs(), *Stats);
    return 0;
  }
  if (WriteGraph)
    if (llvm::Error E =
            checkBinaryOutputAllowed(Opt.Output, Opt.Text, Opt.Force))
      return reportError(Tool, std::move(E));

  // A pipeline of printers reads the graph where the file holds it; one
  // that changes tasks has their pages made private at load, rather than
  // one fault at a time in the middle of its first pass, and room mapped
  // after them for the tasks it adds (readGraphFile()). At 5 million tasks
  // the first took amp-scale's whole run from 688 MB to 425 MB (the file's
  // pages and a copy of the tasks before; one private copy of the file
  // now), and from 2.35 s to 1.91 s; at 10^7 the room took a whole
  // activation-checkpointing run from 3.6-5.2 s to 2.2-3.5 s, which had
  // copied every task to make room for its own (docs/Performance.md).
  auto G = readInputGraph(Opt.Input, PM.onlyPrinters() ? GraphUse::ReadInPlace
                                                       : GraphUse::Change);
  if (!G)
    return reportError(Tool, G.takeError());

  AnalysisManager AM(Opt.DebugPM ? &llvm::errs() : nullptr);
  // Reports go to stdout unless the graph does.
  bool GraphOnStdout = WriteGraph && Opt.Output == "-";
  AM.setReportStream(GraphOnStdout ? llvm::errs() : llvm::outs());
  AM.setWarningHandler(
      [](llvm::StringRef Message) { reportWarning(Tool, Message); });

  std::string InputName =
      Opt.Input == "-" ? std::string("<stdin>") : Opt.Input.getValue();
  bool Changed = false;
  if (llvm::Error E = PM.run(*G, AM, PI, &Changed))
    return reportError(Tool, InputName + ": " + llvm::toString(std::move(E)));
  if (PI.Stats)
    printStatistics(llvm::errs(), AM.statistics());
  if (!WriteGraph)
    return 0;
  // Provenance: a graph a pipeline changed is a prediction, and its
  // reports say so (dd-sim, dd-diff) and of what.
  if (Changed)
    recordPipelineRun(*G, PM, Tool, InputName);
  // Never write what the readers would refuse (a pass's arithmetic that
  // went past the limits, a pass's bug): the check is linear, about a
  // tenth of the write itself. -verify-each has done it already.
  if (!Opt.VerifyEach && !PM.onlyPrinters())
    if (llvm::Error E = verifyGraph(*G))
      return reportError(Tool, InputName +
                                   ": the pipeline made an invalid graph, "
                                   "not written: " +
                                   llvm::toString(std::move(E)));
  if (llvm::Error E = writeGraphFile(*G, Opt.Output, Opt.Text))
    return reportError(Tool, std::move(E));
  return 0;
}
