//===- ddir-text-fuzzer.cpp - Fuzz the text .ddir parser ------------------===//
//
// Any text given to the parser must yield a graph or an error with a line
// and column, never a crash or a hang; and a graph that verifies must print
// and parse back to the same text.
//
//===----------------------------------------------------------------------===//

#include "RoundTrip.h"
#include "daydream/IR/TextFormat.h"

using namespace dd;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  return checkRoundTrip(Text, parseTextGraph, printTextGraph);
}
