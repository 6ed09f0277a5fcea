//===- dd-diff.cpp - Compare two runs by kernel class and layer -----------===//
//
// The whole tool is the library driver ddDiffMain (lib/Tools/DdDiffMain.cpp).
//
//===----------------------------------------------------------------------===//

#include "daydream/Tools/Drivers.h"

int main(int Argc, char **Argv) { return dd::ddDiffMain(Argc, Argv); }
