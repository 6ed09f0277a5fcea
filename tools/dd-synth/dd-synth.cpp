//===- dd-synth.cpp - Realistic training graphs of any size ---------------===//
//
// The whole tool is the library driver ddSynthMain (lib/Tools/DdSynthMain.cpp).
//
//===----------------------------------------------------------------------===//

#include "daydream/Tools/Drivers.h"

int main(int Argc, char **Argv) { return dd::ddSynthMain(Argc, Argv); }
