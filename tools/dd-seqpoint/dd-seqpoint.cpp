//===- dd-seqpoint.cpp - Representative iterations of a training run ------===//
//
// The whole tool is the library driver ddSeqPointMain
// (lib/Tools/DdSeqPointMain.cpp).
//
//===----------------------------------------------------------------------===//

#include "daydream/Tools/Drivers.h"

int main(int Argc, char **Argv) { return dd::ddSeqPointMain(Argc, Argv); }
