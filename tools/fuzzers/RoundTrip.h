//===- RoundTrip.h - The check both reader fuzzers share --------*- C++ -*-===//
//
// A reader must turn any bytes into a graph or an error, never a crash; and
// a graph that verifies must write and read back to the same bytes. The
// fuzzers differ only in the form they read and write.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TOOLS_FUZZERS_ROUNDTRIP_H
#define DAYDREAM_TOOLS_FUZZERS_ROUNDTRIP_H

#include "daydream/IR/Graph.h"
#include "daydream/IR/Verifier.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>

namespace dd {

/// Parses \p Bytes with \p Parse; if the graph verifies, writes it with
/// \p Write, parses and writes that again, and aborts (a fuzzer finding)
/// unless both writes agree. Returns 0 as libFuzzer expects.
template <typename ParseFn, typename WriteFn>
int checkRoundTrip(llvm::StringRef Bytes, ParseFn Parse, WriteFn Write) {
  llvm::Expected<Graph> G = Parse(Bytes);
  if (!G) {
    llvm::consumeError(G.takeError());
    return 0;
  }
  if (llvm::Error E = verifyGraph(*G)) {
    llvm::consumeError(std::move(E));
    return 0;
  }
  std::string Out1, Out2;
  llvm::raw_string_ostream OS1(Out1), OS2(Out2);
  // A verified graph is acyclic, so nothing below may fail.
  if (llvm::Error E = Write(*G, OS1))
    abort();
  llvm::Expected<Graph> G2 = Parse(OS1.str());
  if (!G2)
    abort();
  if (llvm::Error E = verifyGraph(*G2))
    abort();
  if (llvm::Error E = Write(*G2, OS2))
    abort();
  if (OS1.str() != OS2.str())
    abort();
  return 0;
}

} // namespace dd

#endif // DAYDREAM_TOOLS_FUZZERS_ROUNDTRIP_H
