//===- ddir-text-fuzzer.cpp - Fuzz the text .ddir parser ------------------===//
//
// Any text given to the parser must yield a graph or an error with a line
// and column, never a crash or a hang; and a graph that verifies must print
// and parse back to the same text.
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/TextFormat.h"
#include "daydream/IR/Verifier.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>

using namespace dd;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  auto G = parseTextGraph(Text);
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
  if (llvm::Error E = printTextGraph(*G, OS1))
    abort();
  auto G2 = parseTextGraph(OS1.str());
  if (!G2)
    abort();
  if (llvm::Error E = printTextGraph(*G2, OS2))
    abort();
  if (OS1.str() != OS2.str())
    abort();
  return 0;
}
