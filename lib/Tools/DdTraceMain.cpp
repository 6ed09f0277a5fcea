//===- DdTraceMain.cpp - The dd-trace driver ------------------------------===//
//
// dd-trace runs a command with libddtrace.so injected into every CUDA
// process it starts (CUDA_INJECTION64_PATH), waits for it, and lowers the
// CUPTI records those processes wrote into one .ddir graph, through the same
// lowering as dd-import. The launcher checks everything it can before the
// command runs (the output, the window, the injection library, CUPTI), so a
// long job is not run for nothing.
//
// Ctrl-C reaches the traced command, whose injected library flushes its
// records; the launcher waits for it and still writes the graph of what was
// recorded, then exits with the command's status.
//
//===----------------------------------------------------------------------===//

#include "ToolSupport.h"
#include "daydream/Import/CuptiRecordReader.h"
#include "daydream/Import/Lowering.h"
#include "daydream/Support/ToolInit.h"
#include "daydream/Support/Version.h"
#include "daydream/Tools/Drivers.h"
#include "daydream/Trace/RecordFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <dlfcn.h>

extern char **environ;

using namespace dd;
using namespace dd::import;
namespace cl = llvm::cl;
namespace env = dd::trace::env;

static constexpr const char *Tool = "dd-trace";

namespace {

struct Options {
  cl::OptionCategory Category{"dd-trace options"};
  cl::opt<std::string> Program{cl::Positional, cl::desc("-- <command>"),
                               cl::cat(Category)};
  cl::list<std::string> Args{cl::ConsumeAfter, cl::desc("<arguments>...")};
  cl::opt<std::string> Output{
      "o", cl::desc("Output .ddir file ('-' for stdout)"),
      cl::value_desc("file"), cl::Required, cl::cat(Category)};
  cl::opt<bool> Text{"S", cl::desc("Write the text form instead of binary"),
                     cl::cat(Category)};
  cl::opt<bool> Force{"f", cl::desc("Write binary even to a terminal"),
                      cl::cat(Category)};
  cl::opt<bool> Quiet{"q", cl::desc("Do not print the summary line"),
                      cl::cat(Category)};
  cl::opt<std::string> Window{
      "window",
      cl::desc("Trace only iterations FIRST to LAST (0-based, inclusive), "
               "counted by NVTX ranges (-window-range)"),
      cl::value_desc("FIRST:LAST"), cl::cat(Category)};
  cl::opt<std::string> WindowRange{
      "window-range",
      cl::desc("Name (prefix) of the NVTX range that marks an iteration "
               "(default: ProfilerStep#N, step#N, iteration N, ...)"),
      cl::value_desc("name"), cl::cat(Category)};
  cl::opt<unsigned> BufferMB{
      "buffer-mb", cl::init(256),
      cl::desc("CUPTI buffer memory per process, in MiB (default 256); "
               "records arriving while all of it is full are dropped and "
               "counted"),
      cl::cat(Category)};
  cl::opt<bool> Memory{"memory",
                       cl::desc("Also record allocations and frees (CUPTI "
                                "MEMORY2; slower)"),
                       cl::cat(Category)};
  cl::opt<std::string> Cupti{
      "cupti", cl::desc("The CUPTI library to load"), cl::value_desc("path"),
      cl::init(DAYDREAM_CUPTI_LIBRARY), cl::cat(Category)};
  cl::opt<std::string> Injection{
      "injection",
      cl::desc("The injection library (default: lib/libddtrace.so beside "
               "this tool's bin/)"),
      cl::value_desc("path"), cl::cat(Category)};
  cl::opt<std::string> KeepRecords{
      "keep-records",
      cl::desc("Keep the raw CUPTI records (<pid>.ddrec, readable by "
               "dd-import) in this folder instead of a temporary one"),
      cl::value_desc("dir"), cl::cat(Category)};
};

llvm::Error fail(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// "FIRST:LAST" with FIRST <= LAST, both unsigned.
llvm::Error checkWindow(llvm::StringRef W) {
  auto [First, Last] = W.split(':');
  unsigned F, L;
  if (!W.contains(':') || First.getAsInteger(10, F) || Last.getAsInteger(10, L))
    return fail("-window: expected FIRST:LAST (iteration numbers, from 0), "
                "got '" +
                W + "'");
  if (F > L)
    return fail("-window: FIRST (" + llvm::Twine(F) + ") is after LAST (" +
                llvm::Twine(L) + ")");
  return llvm::Error::success();
}

/// libddtrace.so beside this tool: <prefix>/bin/dd-trace and
/// <prefix>/lib/libddtrace.so, in the build tree as once installed.
std::string defaultInjectionPath(const char *Argv0) {
  std::string Exe = llvm::sys::fs::getMainExecutable(
      Argv0, reinterpret_cast<void *>(&ddTraceMain));
  llvm::SmallString<256> Path(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(Exe)));
  llvm::sys::path::append(Path, "lib", "libddtrace.so");
  return std::string(Path);
}

/// Loads CUPTI here first, so that a wrong path is reported before the
/// command runs rather than as a message lost in its output.
llvm::Error checkCupti(llvm::StringRef Path) {
  void *H = dlopen(Path.str().c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!H)
    return fail("cannot load the CUPTI library '" + Path + "': " + dlerror() +
                " (give its path with -cupti=)");
  bool IsCupti = dlsym(H, "cuptiActivityEnable") != nullptr;
  dlclose(H);
  if (!IsCupti)
    return fail("'" + Path +
                "' is not a CUPTI library (no "
                "cuptiActivityEnable)");
  return llvm::Error::success();
}

/// The folder the traced processes write to: -keep-records's, which must
/// hold no records yet, or a new temporary one.
llvm::Expected<std::string> recordsFolder(llvm::StringRef Keep) {
  llvm::SmallString<128> Dir;
  if (Keep.empty()) {
    if (std::error_code EC =
            llvm::sys::fs::createUniqueDirectory("dd-trace", Dir))
      return fail("cannot create a temporary folder: " + EC.message());
  } else {
    Dir = Keep;
    if (std::error_code EC = llvm::sys::fs::create_directories(Dir))
      return fail("-keep-records: cannot create '" + Keep +
                  "': " + EC.message());
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
         It.increment(EC))
      if (llvm::sys::path::extension(It->path()) == ".ddrec")
        return fail("-keep-records: '" + Keep +
                    "' already holds records; give an empty folder");
  }
  llvm::SmallString<128> Abs(Dir);
  llvm::sys::fs::make_absolute(Abs);
  return std::string(Abs);
}

/// This process's environment, with dd-trace's variables set (replacing any
/// the user had).
std::vector<std::string> tracedEnvironment(const Options &Opt,
                                           llvm::StringRef Injection,
                                           llvm::StringRef Records) {
  std::vector<std::pair<std::string, std::string>> Set = {
      {"CUDA_INJECTION64_PATH", Injection.str()},
      // CUPTI records NVTX ranges only when it is NVTX's injection too.
      {"NVTX_INJECTION64_PATH", Opt.Cupti},
      {env::CuptiLibrary, Opt.Cupti},
      {env::OutputDir, Records.str()},
      {env::BufferMiB, std::to_string(Opt.BufferMB)}};
  if (!Opt.Window.empty())
    Set.push_back({env::Window, Opt.Window});
  if (!Opt.WindowRange.empty())
    Set.push_back({env::WindowRange, Opt.WindowRange});
  if (Opt.Memory)
    Set.push_back({env::Memory, "1"});
  std::vector<std::string> Env;
  for (char **E = environ; *E; ++E) {
    llvm::StringRef Name = llvm::StringRef(*E).split('=').first;
    if (llvm::none_of(Set, [&](const auto &S) { return S.first == Name; }))
      Env.push_back(*E);
  }
  for (const auto &[Name, Value] : Set)
    Env.push_back((llvm::Twine(Name) + "=" + Value).str());
  return Env;
}

/// While the command runs, Ctrl-C is for it: the launcher only notes it
/// (a handler, not SIG_IGN, since ignored signals stay ignored across exec)
/// and goes on to write what was recorded.
class InterruptsGoToTheCommand {
public:
  InterruptsGoToTheCommand() {
    struct sigaction A = {};
    A.sa_handler = [](int) {};
    sigemptyset(&A.sa_mask);
    for (int I = 0; I < 3; ++I)
      sigaction(Signals[I], &A, &Old[I]);
  }
  ~InterruptsGoToTheCommand() {
    for (int I = 0; I < 3; ++I)
      sigaction(Signals[I], &Old[I], nullptr);
  }

private:
  static constexpr int Signals[3] = {SIGINT, SIGQUIT, SIGTERM};
  struct sigaction Old[3];
};

/// Runs the command; returns its exit status (128 + signal if killed).
llvm::Expected<int> runCommand(const Options &Opt,
                               const std::vector<std::string> &Env) {
  llvm::StringRef Name = Opt.Program;
  std::string Path = Name.str();
  if (!Name.contains('/')) {
    auto Found = llvm::sys::findProgramByName(Name);
    if (!Found)
      return fail("cannot find the command '" + Name + "' on the PATH");
    Path = *Found;
  }
  std::vector<llvm::StringRef> Argv = {Name};
  Argv.insert(Argv.end(), Opt.Args.begin(), Opt.Args.end());
  std::vector<llvm::StringRef> EnvRefs(Env.begin(), Env.end());
  std::string ErrMsg;
  bool ExecFailed = false;
  int Status;
  {
    InterruptsGoToTheCommand Guard;
    Status = llvm::sys::ExecuteAndWait(Path, Argv, llvm::makeArrayRef(EnvRefs),
                                       {}, 0, 0, &ErrMsg, &ExecFailed);
  }
  if (ExecFailed)
    return fail("cannot run '" + Path + "': " + ErrMsg);
  if (Status < 0)
    return 128 + (Status == -2 ? SIGINT : SIGKILL);
  return Status;
}

/// The .ddrec files in \p Dir, by name (so by pid).
std::vector<std::string> recordFiles(llvm::StringRef Dir) {
  std::vector<std::string> Files;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    if (llvm::sys::path::extension(It->path()) == ".ddrec")
      Files.push_back(It->path());
  llvm::sort(Files);
  return Files;
}

/// Reads the records of every traced process and lowers them to a graph.
llvm::Expected<Graph> lowerRecords(const std::vector<std::string> &Files,
                                   LoweringStats &Stats, ImportStats &Read) {
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> Buffers;
  std::vector<RecordFileInput> Inputs;
  for (const std::string &F : Files) {
    auto Buf = llvm::MemoryBuffer::getFile(F, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
    if (!Buf)
      return fail(F + ": " + Buf.getError().message());
    Inputs.push_back({F, (*Buf)->getBuffer()});
    Buffers.push_back(std::move(*Buf));
  }
  std::vector<std::string> Warnings;
  auto Model = readCuptiRecordFiles(Inputs, Warnings);
  for (const std::string &W : Warnings)
    reportWarning(Tool, W);
  if (!Model)
    return Model.takeError();
  Read = Model->Stats;
  return lowerTrace(std::move(*Model), LoweringOptions(), Stats);
}

void printSummary(const Options &Opt, size_t Processes, const ImportStats &In,
                  const LoweringStats &L) {
  llvm::errs() << Tool << ": traced '" << Opt.Program << "': " << Processes
               << (Processes == 1 ? " process, " : " processes, ") << In.Events
               << " records (" << In.DroppedRecords << " dropped) -> "
               << L.Tasks << " tasks on " << L.Lanes << " lanes, " << L.Edges
               << " edges, " << L.Iterations << " iterations; "
               << L.UnmatchedActivities
               << " GPU activities without a launch; CUPTI's own overhead "
               << llvm::format("%.3f ms", double(In.TracerOverheadNs) / 1e6)
               << "\n";
}

} // namespace

int dd::ddTraceMain(int Argc, char **Argv) {
  InitTool X(Argc, Argv);
  keepFreedMemory();
  Options Opt;
  cl::HideUnrelatedOptions(Opt.Category);
  if (!cl::ParseCommandLineOptions(
          Argc, Argv,
          "dd-trace: trace a CUDA program with CUPTI into a .ddir graph\n\n"
          "  dd-trace -o train.ddir -- python train.py\n"
          "  dd-trace -window=10:19 -o train.ddir -- python train.py\n"))
    return 1;
  if (Opt.Program.empty())
    return reportError(Tool, "no command to trace (dd-trace -o OUT.ddir "
                             "[options] -- COMMAND ARGS...)");
  if (llvm::Error E = checkBinaryOutputAllowed(Opt.Output, Opt.Text, Opt.Force))
    return reportError(Tool, std::move(E));
  if (!Opt.Window.empty())
    if (llvm::Error E = checkWindow(Opt.Window))
      return reportError(Tool, std::move(E));
  if (Opt.BufferMB < 16 || Opt.BufferMB > (1u << 20))
    return reportError(Tool, "-buffer-mb: " + llvm::Twine(Opt.BufferMB) +
                                 " is outside 16 to 1048576");
  std::string Injection =
      Opt.Injection.empty() ? defaultInjectionPath(Argv[0]) : Opt.Injection;
  if (!llvm::sys::fs::exists(Injection))
    return reportError(Tool, "cannot find the injection library '" + Injection +
                                 "' (give it with -injection=)");
  if (llvm::Error E = checkCupti(Opt.Cupti))
    return reportError(Tool, std::move(E));

  auto Dir = recordsFolder(Opt.KeepRecords);
  if (!Dir)
    return reportError(Tool, Dir.takeError());
  // The temporary folder goes whatever happens next.
  auto Cleanup = llvm::make_scope_exit([&] {
    if (Opt.KeepRecords.empty())
      llvm::sys::fs::remove_directories(*Dir);
  });

  auto Status = runCommand(Opt, tracedEnvironment(Opt, Injection, *Dir));
  if (!Status)
    return reportError(Tool, Status.takeError());
  if (*Status != 0)
    reportWarning(Tool, "'" + Opt.Program + "' exited with status " +
                            llvm::Twine(*Status) +
                            "; writing what was recorded");

  std::vector<std::string> Files = recordFiles(*Dir);
  if (Files.empty())
    return reportError(
        Tool, "'" + Opt.Program +
                  "' wrote no CUDA records: no process it started "
                  "initialized CUDA with dd-trace's library loaded (see any "
                  "'dd-trace:' messages above)");
  LoweringStats Stats;
  ImportStats Read;
  auto G = lowerRecords(Files, Stats, Read);
  if (!G)
    return reportError(Tool, G.takeError());
  G->metadata().Producer = toolVersion("dd-trace");
  for (const std::string &Note : Stats.CycleNotes)
    reportWarning(Tool, Note);
  if (llvm::Error E = writeGraphFile(*G, Opt.Output, Opt.Text))
    return reportError(Tool, std::move(E));
  if (!Opt.Quiet)
    printSummary(Opt, Files.size(), Read, Stats);
  return *Status;
}
