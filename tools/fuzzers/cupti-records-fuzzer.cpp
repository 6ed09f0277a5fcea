//===- cupti-records-fuzzer.cpp - Fuzz the .ddrec reader ------------------===//
//
// dd-trace's record files come from processes that may be killed mid-write,
// from disks that fill up and from copies between machines: any bytes given
// to the reader and the lowering must yield a verified graph, a warning or
// an error, never a crash, a hang or an invalid graph. Seeds are the
// fixture's recording (write-cupti-fixture) and pieces of it.
//
//===----------------------------------------------------------------------===//

#include "LowerAndVerify.h"

#include "daydream/Import/CuptiRecordReader.h"

#include <cstdlib>

using namespace dd;
using namespace dd::import;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Data), Size);
  std::vector<std::string> Warnings;
  return lowerAndVerify(
      readCuptiRecordFiles({{"fuzz.ddrec", Bytes}}, Warnings));
}
