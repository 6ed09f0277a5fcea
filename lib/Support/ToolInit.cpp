//===- ToolInit.cpp - How every dd-* tool meets signals and faults --------===//

#include "daydream/Support/ToolInit.h"
#include "daydream/Support/OutputFile.h"
#include "daydream/Support/Version.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Signals.h"

#include <cstring>
#include <iterator>

#include <unistd.h>

using namespace dd;

namespace {

/// Signals whose default is to end the process and that a user or the
/// system sends to stop it (not faults of the program itself).
const int StopSignals[] = {SIGHUP,  SIGINT,  SIGTERM, SIGQUIT, SIGPIPE,
                           SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, SIGVTALRM};

char ToolName[64] = "dd-tool";

void writeStderr(const char *S) {
  ssize_t Unused = ::write(STDERR_FILENO, S, strlen(S));
  (void)Unused;
}

extern "C" void onStopSignal(int Sig) {
  removePendingOutputs();
  ::signal(Sig, SIG_DFL);
  sigset_t Unblock;
  sigemptyset(&Unblock);
  sigaddset(&Unblock, Sig);
  sigprocmask(SIG_UNBLOCK, &Unblock, nullptr);
  ::raise(Sig);
}

[[noreturn]] void failOneLine(const char *Reason) {
  removePendingOutputs();
  writeStderr(ToolName);
  writeStderr(": error: ");
  writeStderr(Reason);
  writeStderr("\n");
  ::_exit(1);
}

void onFatalError(void *, const char *Reason, bool) { failOneLine(Reason); }

void onBadAlloc(void *, const char *, bool) { failOneLine("out of memory"); }

void onCrash(void *) { removePendingOutputs(); }

} // namespace

StartingSignals::StartingSignals() {
  sigemptyset(&Ignored);
  for (int Sig : StopSignals) {
    struct sigaction Old;
    if (sigaction(Sig, nullptr, &Old) == 0 && Old.sa_handler == SIG_IGN)
      sigaddset(&Ignored, Sig);
  }
}

InitTool::InitTool(int &Argc, char **&Argv) : Llvm(Argc, Argv) {
  if (Argc > 0) {
    const char *Slash = strrchr(Argv[0], '/');
    strncpy(ToolName, Slash ? Slash + 1 : Argv[0], sizeof(ToolName) - 1);
  }
  for (int Sig : StopSignals) {
    struct sigaction Action;
    memset(&Action, 0, sizeof(Action));
    sigemptyset(&Action.sa_mask);
    Action.sa_handler = Before.ignored(Sig) ? SIG_IGN : onStopSignal;
    sigaction(Sig, &Action, nullptr);
  }
  ::signal(SIGXFSZ, SIG_IGN);
  llvm::install_fatal_error_handler(onFatalError);
  llvm::install_bad_alloc_error_handler(onBadAlloc);
  llvm::sys::AddSignalHandler(onCrash, nullptr);
  // --version: this project's version first; LLVM's (the library the
  // options come from) after it, as clang prints its own.
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &OS) {
    OS << ToolName << " (Daydream) " << projectVersion()
       << "\n  built with LLVM " << LLVM_VERSION_STRING << "\n";
  });
}
