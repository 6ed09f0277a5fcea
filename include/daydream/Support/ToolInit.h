//===- ToolInit.h - How every dd-* tool meets signals and faults -*- C++
//-*-===//
//
// LLVM's handlers (InitLLVM) are right for crashes, which deserve a stack
// trace, but wrong for a tool that is told to stop: they replace a signal
// the shell ignored (SIGHUP under nohup, SIGINT in a background job), remove
// the output and return, so the tool went on and exited 0 with its output
// gone; SIGQUIT and SIGXFSZ (ulimit -f) printed the crash banner. Here:
//  - a signal ignored when the tool started stays ignored, so the tool goes
//    on and writes its output;
//  - any other stop signal removes the outputs being written
//    (Support/OutputFile.h) and ends the tool with that signal's status;
//  - SIGXFSZ is ignored, so a write past the size limit fails with "File
//    too large" and is reported as one error line;
//  - out of memory and LLVM's fatal errors print one "tool: error:" line,
//    remove the outputs being written and exit 1; a crash still prints
//    LLVM's stack trace, after the outputs are removed.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SUPPORT_TOOLINIT_H
#define DAYDREAM_SUPPORT_TOOLINIT_H

#include "llvm/Support/InitLLVM.h"

#include <csignal>

namespace dd {

/// The dispositions the tool was started with, read before LLVM's.
class StartingSignals {
public:
  StartingSignals();
  bool ignored(int Sig) const { return sigismember(&Ignored, Sig) == 1; }

private:
  sigset_t Ignored;
};

/// Replaces llvm::InitLLVM in every tool's main.
class InitTool {
public:
  InitTool(int &Argc, char **&Argv);

private:
  StartingSignals Before; // must be read before Llvm is constructed
  llvm::InitLLVM Llvm;
};

} // namespace dd

#endif // DAYDREAM_SUPPORT_TOOLINIT_H
