//===- Drivers.h - The dd-* tools as library functions ----------*- C++ -*-===//
//
// Each tool's main() is one line over a driver here, so tests, plugins and
// future bindings share one code path with the command line.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TOOLS_DRIVERS_H
#define DAYDREAM_TOOLS_DRIVERS_H

namespace dd {

class ProcessGroup;

int ddImportMain(int Argc, char **Argv);
int ddOptMain(int Argc, char **Argv);
/// \p Processes: the processes mpirun started (Sim/ProcessGroup.h), every
/// one of which calls ddSimMain; null for one process.
int ddSimMain(int Argc, char **Argv, ProcessGroup *Processes = nullptr);
int ddDiffMain(int Argc, char **Argv);
int ddSeqPointMain(int Argc, char **Argv);
int ddSynthMain(int Argc, char **Argv);
/// Built only with CUPTI (DAYDREAM_HAVE_CUPTI).
int ddTraceMain(int Argc, char **Argv);

} // namespace dd

#endif // DAYDREAM_TOOLS_DRIVERS_H
