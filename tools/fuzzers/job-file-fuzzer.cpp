//===- job-file-fuzzer.cpp - Fuzz the split job's file parser -------------===//
//
// Any text given as a job file (or as a collective table's first lines)
// must parse or give an error with its line, never crash or hang; and a job
// file that parses must print and parse back to the same text.
//
//===----------------------------------------------------------------------===//

#include "daydream/Import/JobFile.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace dd;
using namespace dd::import;

namespace {

std::string print(const JobFile &J) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printJobFile(J, OS);
  return OS.str();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  if (auto Part = parseJobFilePart("fuzz.ddcoll", "ddcoll", Text); !Part)
    llvm::consumeError(Part.takeError());
  auto J = parseJobFile("fuzz.ddjob", Text);
  if (!J) {
    llvm::consumeError(J.takeError());
    return 0;
  }
  const std::string Once = print(*J);
  auto Again = parseJobFile("printed.ddjob", Once);
  if (!Again || print(*Again) != Once) {
    if (!Again)
      llvm::errs() << llvm::toString(Again.takeError()) << "\n";
    llvm::errs() << "job file round trip differs:\n" << Once;
    abort();
  }
  return 0;
}
