//===- ddir-binary-fuzzer.cpp - Fuzz the binary .ddir reader --------------===//
//
// Any bytes given to the binary reader must yield a graph or an error, never
// a crash; and any graph that verifies must write and read back to the same
// bytes (the round-trip property the IR promises).
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/BinaryFormat.h"
#include "daydream/IR/Verifier.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>

using namespace dd;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  // FlatBuffers reads structs in place: give it an aligned copy, as a
  // memory-mapped file or a MemoryBuffer would be.
  std::string Bytes(reinterpret_cast<const char *>(Data), Size);
  auto G = parseBinaryGraph(Bytes);
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
  if (llvm::Error E = writeBinaryGraph(*G, OS1))
    abort(); // a verified graph is acyclic, so writing cannot fail
  auto G2 = parseBinaryGraph(OS1.str());
  if (!G2)
    abort();
  if (llvm::Error E = verifyGraph(*G2))
    abort();
  if (llvm::Error E = writeBinaryGraph(*G2, OS2))
    abort();
  if (OS1.str() != OS2.str())
    abort();
  return 0;
}
