//===- dd-import.cpp - Lower a GPU trace to a .ddir graph -----------------===//
//
// The whole tool is the library driver ddImportMain
// (lib/Tools/DdImportMain.cpp).
//
//===----------------------------------------------------------------------===//

#include "daydream/Tools/Drivers.h"

int main(int Argc, char **Argv) { return dd::ddImportMain(Argc, Argv); }
