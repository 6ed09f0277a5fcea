//===- LowerAndVerify.h - The check the importer fuzzers share --*- C++ -*-===//
//
// Whatever a front-end made of the fuzzer's bytes, the lowering must turn it
// into a graph the verifier accepts, or into an error: a front-end's or the
// lowering's error ends the input quietly, an invalid graph aborts. The
// importer fuzzers differ only in the front-end they feed.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TOOLS_FUZZERS_LOWERANDVERIFY_H
#define DAYDREAM_TOOLS_FUZZERS_LOWERANDVERIFY_H

#include "daydream/IR/Verifier.h"
#include "daydream/Import/Lowering.h"
#include "daydream/Import/TraceModel.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace dd::import {

/// Lowers \p M (unless it is an error) and aborts if the graph does not
/// verify; the return value is libFuzzer's.
inline int lowerAndVerify(llvm::Expected<TraceModel> M) {
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
  if (llvm::Error E = verifyGraph(*G)) {
    llvm::errs() << llvm::toString(std::move(E)) << "\n";
    abort();
  }
  return 0;
}

} // namespace dd::import

#endif // DAYDREAM_TOOLS_FUZZERS_LOWERANDVERIFY_H
