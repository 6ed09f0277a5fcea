//===- Signals.cpp - Ending the trace however the process ends ------------===//
//
// Exit: an atexit handler. CUDA calls InitializeInjection from cuInit, after
// the CUDA runtime registered its own atexit teardown, so the tracer's runs
// first (atexit handlers run in reverse), while CUPTI can still flush.
//
// Signals: for SIGINT, SIGTERM and SIGHUP the handler depends on what the
// program had installed before.
//   - The default action (the process dies): the handler finishes the trace
//     once (finishTracing's atomic guard), puts the default back and raises
//     the signal again, so the process dies of it as it would have, exit
//     status included.
//   - A handler of the program's (Python's SIGINT handler, which turns into
//     KeyboardInterrupt): the tracer calls it and does nothing else. Such a
//     program decides whether it ends; if it does, it goes through exit()
//     and the atexit handler, with no lock held and nothing interrupted; if
//     it goes on, so does the trace.
//   - Ignored (nohup's SIGHUP): the tracer installs nothing.
// A program that installs its own handler after CUDA started replaces the
// tracer's; it then ends through exit() or not at all, as above.
//
// Finishing in a signal handler is not async-signal-safe: CUPTI's flush,
// the writer's buffers and write() may take locks or allocate, and the
// interrupted thread may hold those locks (malloc's, CUPTI's). It is
// acceptable here because the alternative, the default action, kills the
// process and loses the whole trace: at worst the handler hangs or the file
// is cut short, and the tracer's own locks are waited for a bounded time
// (lockTracer) so the common hang, on the writer, cannot happen.
//
// Left out: SIGKILL and crashes (SIGSEGV, SIGABRT) end the process with
// the file cut short at its last whole frame, which RecordFile.h allows;
// _exit() and quick_exit() skip atexit the same way.
//
// fork: CUDA cannot be used in a child, and the parent's file is the
// parent's; the child forgets the tracer. A child that exec()s a CUDA
// program is traced anew, into its own <pid>.ddrec, since CUDA_INJECTION64_PATH
// is inherited.
//
//===----------------------------------------------------------------------===//

#include "Signals.h"
#include "Tracer.h"

#include <csignal>
#include <cstdlib>
#include <pthread.h>

using namespace dd::trace;

namespace {
constexpr int HandledSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction Previous[NSIG];

bool isProgramHandler(const struct sigaction &Action) {
  if (Action.sa_flags & SA_SIGINFO)
    return Action.sa_sigaction != nullptr;
  return Action.sa_handler != SIG_DFL && Action.sa_handler != SIG_IGN;
}

void onSignal(int Signal, siginfo_t *Info, void *Context) {
  const struct sigaction &Old = Previous[Signal];
  if (isProgramHandler(Old)) {
    if (Old.sa_flags & SA_SIGINFO)
      Old.sa_sigaction(Signal, Info, Context);
    else
      Old.sa_handler(Signal);
    return;
  }
  finishTracing(/*FromSignal=*/true);
  sigaction(Signal, &Old, nullptr);
  // Blocked until this handler returns, then delivered with the default
  // action.
  raise(Signal);
}

void onExit() { finishTracing(); }

void onForkChild() { forgetTracingInChild(); }
} // namespace

void dd::trace::installProcessHandlers() {
  static bool Installed = false;
  if (Installed)
    return;
  Installed = true;
  std::atexit(onExit);
  pthread_atfork(nullptr, nullptr, onForkChild);
  for (int Signal : HandledSignals) {
    struct sigaction Old;
    if (sigaction(Signal, nullptr, &Old) != 0 ||
        (!(Old.sa_flags & SA_SIGINFO) && Old.sa_handler == SIG_IGN))
      continue;
    Previous[Signal] = Old;
    struct sigaction New = {};
    New.sa_sigaction = onSignal;
    New.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&New.sa_mask);
    sigaction(Signal, &New, nullptr);
  }
}
