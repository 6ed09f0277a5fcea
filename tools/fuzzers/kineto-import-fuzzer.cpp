//===- kineto-import-fuzzer.cpp - Fuzz the Kineto importer ----------------===//
//
// Any bytes given to the Kineto front-end and the lowering must yield a
// verified graph or an error, never a crash, a hang or an invalid graph:
// malformed JSON, missing fields, out-of-order and duplicate events, and
// dependency cycles are all expected from real traces.
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/Verifier.h"
#include "daydream/Import/InputFile.h"
#include "daydream/Import/KinetoReader.h"
#include "daydream/Import/Lowering.h"

#include <cstdlib>

using namespace dd;
using namespace dd::import;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Data), Size);
  auto In = makeInputFile("fuzz.json", Bytes);
  if (!In) {
    llvm::consumeError(In.takeError());
    return 0;
  }
  auto M = readKinetoTrace(*In);
  if (!M) {
    llvm::consumeError(M.takeError());
    return 0;
  }
  LoweringStats Stats;
  auto G = lowerTrace(std::move(*M), LoweringOptions(), Stats);
  if (!G) {
    llvm::consumeError(G.takeError());
    return 0;
  }
  // Whatever the input, the lowering must produce a valid graph.
  if (llvm::Error E = verifyGraph(*G)) {
    llvm::errs() << llvm::toString(std::move(E)) << "\n";
    abort();
  }
  return 0;
}
