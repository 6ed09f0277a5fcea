//===- dd-opt.cpp - Rewrite a trace graph with passes ---------------------===//
//
// The whole tool is the library driver ddOptMain (lib/Tools/DdOptMain.cpp).
//
//===----------------------------------------------------------------------===//

#include "daydream/Tools/Drivers.h"

int main(int Argc, char **Argv) { return dd::ddOptMain(Argc, Argv); }
