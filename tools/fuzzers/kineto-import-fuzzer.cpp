//===- kineto-import-fuzzer.cpp - Fuzz the Kineto importer ----------------===//
//
// Any bytes given to the Kineto front-end and the lowering must yield a
// verified graph or an error, never a crash, a hang or an invalid graph:
// malformed JSON, missing fields, out-of-order and duplicate events, and
// dependency cycles are all expected from real traces. Reading the input in
// tiny pieces (KinetoOptions::PieceBytes) must give what reading it whole
// gives.
//
//===----------------------------------------------------------------------===//

#include "LowerAndVerify.h"

#include "daydream/Import/InputFile.h"
#include "daydream/Import/KinetoReader.h"

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
  KinetoOptions Whole, Pieces;
  Whole.PieceBytes = 0;
  Pieces.PieceBytes = 16;
  auto M = readKinetoTrace(*In, Whole);
  auto P = readKinetoTrace(*In, Pieces);
  if (!M || !P) {
    std::string ME = M ? "" : llvm::toString(M.takeError());
    std::string PE = P ? "" : llvm::toString(P.takeError());
    if (ME != PE) {
      llvm::errs() << "whole: '" << ME << "', in pieces: '" << PE << "'\n";
      abort();
    }
    return 0;
  }
  auto Counts = [](const TraceModel &T) {
    return std::make_tuple(T.Stats.Events, T.Stats.SkippedOther,
                           T.Stats.MissingFields, T.Ranges.size(),
                           T.Calls.size(), T.Activities.size(), T.Syncs.size(),
                           T.Memory.size(), T.Threads.size(), T.Streams.size());
  };
  if (Counts(*M) != Counts(*P)) {
    llvm::errs() << "whole and in pieces read different models\n";
    abort();
  }
  return lowerAndVerify(std::move(*M));
}
