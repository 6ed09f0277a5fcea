//===- dd-sim.cpp - Simulate a trace graph and report ---------------------===//
//
// The whole tool is the library driver ddSimMain (lib/Tools/DdSimMain.cpp).
//
//===----------------------------------------------------------------------===//

#include "daydream/Tools/Drivers.h"

int main(int Argc, char **Argv) { return dd::ddSimMain(Argc, Argv); }
