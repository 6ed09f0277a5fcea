//===- ddir-binary-fuzzer.cpp - Fuzz the binary .ddir reader --------------===//
//
// Any bytes given to the binary reader must yield a graph or an error, and a
// graph that verifies must write and read back to the same bytes.
//
//===----------------------------------------------------------------------===//

#include "RoundTrip.h"
#include "daydream/IR/BinaryFormat.h"

using namespace dd;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  // FlatBuffers reads structs in place: give it an aligned copy, as a
  // memory-mapped file or a MemoryBuffer would be.
  std::string Bytes(reinterpret_cast<const char *>(Data), Size);
  return checkRoundTrip(Bytes, parseBinaryGraph, writeBinaryGraph);
}
