//===- Units.cpp - Times and sizes for people, one unit a report ----------===//

#include "daydream/Support/Units.h"

#include "llvm/Support/FormatVariadic.h"

using namespace dd;

TimeUnit TimeUnit::forSpan(int64_t Ns) {
  if (Ns >= 10'000'000)
    return {"ms", 1e6};
  if (Ns >= 10'000)
    return {"us", 1e3};
  return {"ns", 1};
}

std::string TimeUnit::operator()(int64_t Ns) const {
  if (Ns < 0)
    return "-";
  if (NsPer == 1)
    return llvm::formatv("{0} ns", Ns).str();
  return llvm::formatv("{0:f3} {1}", double(Ns) / NsPer, Name).str();
}

SizeUnit SizeUnit::forSize(int64_t Bytes) {
  constexpr int64_t KiB = 1024, MiB = KiB * KiB;
  if (Bytes < 0)
    Bytes = -Bytes;
  if (Bytes >= 10 * MiB)
    return {"MiB", double(MiB)};
  if (Bytes >= 10 * KiB)
    return {"KiB", double(KiB)};
  return {"bytes", 1};
}

std::string SizeUnit::operator()(int64_t Bytes) const {
  if (BytesPer == 1)
    return llvm::formatv("{0} bytes", Bytes).str();
  return llvm::formatv("{0:f1} {1}", double(Bytes) / BytesPer, Name).str();
}
