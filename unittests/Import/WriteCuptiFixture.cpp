//===- WriteCuptiFixture.cpp - The fixture's records as a .ddrec file -----===//
//
// A test-only program: writes CuptiRecordsFixture.h's records to a .ddrec
// file with the writer libddtrace.so uses, so that lit tests can run
// dd-import and the dd-trace launcher on a recording without a GPU.
//   write-cupti-fixture OUT.ddrec [--no-end] [--dropped=N] [--iterations=N]
// With --iterations=N the iteration repeats N times, 100 us apart (26 records
// in the first, 23 in each other): a synthetic input for benchmarks
// (utils/bench-ddrec.sh).
//
//===----------------------------------------------------------------------===//

#include "daydream/Trace/CuptiRecordWriter.h"

#include "CuptiRecordsFixture.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int Argc, char **Argv) {
  if (Argc < 2) {
    std::fprintf(stderr,
                 "usage: %s OUT.ddrec [--no-end] [--dropped=N] "
                 "[--iterations=N]\n",
                 Argv[0]);
    return 2;
  }
  bool End = true;
  uint64_t Dropped = 0;
  uint32_t Iterations = 1;
  for (int I = 2; I < Argc; ++I) {
    if (!std::strcmp(Argv[I], "--no-end"))
      End = false;
    else if (!std::strncmp(Argv[I], "--dropped=", 10))
      Dropped = std::strtoull(Argv[I] + 10, nullptr, 10);
    else if (!std::strncmp(Argv[I], "--iterations=", 13))
      Iterations = uint32_t(std::strtoul(Argv[I] + 13, nullptr, 10));
  }
  dd::trace::CuptiRecordWriter W;
  std::string Err;
  if (!W.open(Argv[1], CUPTI_API_VERSION, dd::testing::CuptiRecordsFixture::Pid,
              0, Err)) {
    std::fprintf(stderr, "%s\n", Err.c_str());
    return 1;
  }
  for (uint32_t I = 0; I < Iterations; ++I) {
    dd::testing::CuptiRecordsFixture F(I);
    for (const dd::testing::ApiNameEntry &N : F.ApiNames)
      W.addApiName(N.Domain, N.Cbid, N.Name);
    for (const dd::testing::RawRecord &R : F.Records)
      W.addRecord(reinterpret_cast<const CUpti_Activity *>(R.data()));
  }
  if (Dropped)
    W.addDropped(Dropped);
  if (!End) {
    W.flush();
    return 0;
  }
  if (!W.close(100000, Err)) {
    std::fprintf(stderr, "%s\n", Err.c_str());
    return 1;
  }
  return 0;
}
