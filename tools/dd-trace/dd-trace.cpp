//===- dd-trace.cpp - Trace a CUDA program into a .ddir graph -------------===//
//
// The whole tool is the library driver ddTraceMain
// (lib/Tools/DdTraceMain.cpp); the code that runs inside the traced program
// is libddtrace.so (lib/Trace/Injection).
//
//===----------------------------------------------------------------------===//

#include "daydream/Tools/Drivers.h"

int main(int Argc, char **Argv) { return dd::ddTraceMain(Argc, Argv); }
