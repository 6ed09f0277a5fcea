//===- nsys-import-fuzzer.cpp - Fuzz the Nsight Systems importer ----------===//
//
// Any bytes given to the nsys front-end and the lowering must yield a
// verified graph, a warning or an error, never a crash, a hang or an invalid
// graph: exports come damaged, cut short, from other nsys versions and
// hand-edited. SQLite reads only files, so each input is written to one
// temporary file first. Seeds are small exports make-nsys.py writes.
//
//===----------------------------------------------------------------------===//

#include "LowerAndVerify.h"

#include "daydream/Import/NsysReader.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace dd;
using namespace dd::import;

namespace {
/// The file every input is written to, removed at exit.
struct Scratch {
  llvm::SmallString<128> Path;
  Scratch() {
    int FD;
    if (llvm::sys::fs::createTemporaryFile("nsys-fuzz", "sqlite", FD, Path))
      abort();
    llvm::sys::fs::closeFile(FD);
  }
  ~Scratch() { llvm::sys::fs::remove(Path); }
};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static Scratch File;
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(File.Path, EC);
    if (EC)
      abort();
    OS.write(reinterpret_cast<const char *>(Data), Size);
  }
  return lowerAndVerify(readNsysTrace(File.Path));
}
