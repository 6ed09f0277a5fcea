//===- GpuSpecs.cpp - Peak figures of common GPUs -------------------------===//
//
// Dense datasheet peaks (no structured sparsity), SXM / OAM parts where
// there are several; docs/CostModels.md gives the source of every row.
// AMD MI250 and MI250X rows are per GCD, the device PyTorch sees (half the
// package's figures). Latency floors: 1.4 us for NVIDIA, the median
// FillFunctor kernel of the V100 and A100 traces in ../shared (1.41, 1.38
// us); 2.2 us for AMD, the MI250 trace's (2.24 us); 2.0 us for the P100
// (the GP100 trace, whole-microsecond timestamps). GPUs without a trace take
// their vendor's figure, an assumption docs/CostModels.md states.
//
//===----------------------------------------------------------------------===//

#include "daydream/Device/GpuSpecs.h"
#include "daydream/IR/Graph.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace dd;

namespace {
constexpr GpuVendor NV = GpuVendor::Nvidia, AMD = GpuVendor::Amd;
constexpr double NvFloor = 1.4, AmdFloor = 2.2;
} // namespace

static const GpuSpec Table[] = {
    // name      vendor fp32  tf32   fp16    fp8     GB/s  link  floor  bf16
    //                                                       CUs  GiB  match
    {"p100", NV, 10.6, 0, 21.2, 0, 732, 80, 2.0, false, 56, 16, ""},
    {"v100", NV, 15.7, 0, 125, 0, 900, 150, NvFloor, false, 80, 32, ""},
    {"t4", NV, 8.1, 0, 65, 0, 320, 16, NvFloor, false, 40, 16, ""},
    {"a100-40gb", NV, 19.5, 156, 312, 0, 1555, 300, NvFloor, true, 108, 40,
     "a100"},
    {"a100", NV, 19.5, 156, 312, 0, 2039, 300, NvFloor, true, 108, 80, ""},
    {"a10g", NV, 31.2, 62.5, 125, 0, 600, 32, NvFloor, true, 80, 24, "a10"},
    {"rtx4090", NV, 82.6, 82.6, 165.2, 330.3, 1008, 32, NvFloor, true, 128, 24,
     "4090"},
    {"l4", NV, 30.3, 60, 121, 242, 300, 32, NvFloor, true, 58, 24, ""},
    {"l40s", NV, 91.6, 183, 362, 733, 864, 32, NvFloor, true, 142, 48, ""},
    {"h100", NV, 67, 494.7, 989.4, 1978.9, 3350, 450, NvFloor, true, 132, 80,
     ""},
    {"h200", NV, 67, 494.7, 989.4, 1978.9, 4800, 450, NvFloor, true, 132, 141,
     ""},
    {"b200", NV, 75, 1100, 2250, 4500, 8000, 900, NvFloor, true, 148, 180, ""},
    {"mi250", AMD, 22.6, 0, 181, 0, 1638, 200, AmdFloor, true, 104, 64, ""},
    {"mi250x", AMD, 23.9, 0, 191.5, 0, 1638, 200, AmdFloor, true, 110, 64, ""},
    {"mi300x", AMD, 81.7, 653.7, 1307.4, 2614.9, 5300, 448, AmdFloor, true, 304,
     192, ""},
    {"mi325x", AMD, 81.7, 653.7, 1307.4, 2614.9, 6000, 448, AmdFloor, true, 304,
     256, ""},
};

llvm::ArrayRef<GpuSpec> dd::knownGpus() { return Table; }

const GpuSpec *dd::findGpuByShortName(llvm::StringRef Name) {
  for (const GpuSpec &S : Table)
    if (S.Name.equals_insensitive(Name))
      return &S;
  return nullptr;
}

static llvm::StringRef matchText(const GpuSpec &S) {
  return S.Match.empty() ? S.Name : S.Match;
}

static double memoryDistance(const GpuSpec &S, uint64_t MemoryBytes) {
  return std::fabs(double(S.MemoryGiB) - double(MemoryBytes) / (1ull << 30));
}

const GpuSpec *dd::findGpu(llvm::StringRef Name, uint64_t MemoryBytes) {
  if (const GpuSpec *S = findGpuByShortName(Name))
    return S;
  std::string Lower = Name.lower();
  const GpuSpec *Best = nullptr;
  for (const GpuSpec &S : Table) {
    llvm::StringRef M = matchText(S);
    if (!llvm::StringRef(Lower).contains(M))
      continue;
    if (!Best || M.size() > matchText(*Best).size()) {
      Best = &S;
      continue;
    }
    if (M != matchText(*Best))
      continue;
    // Rows of one name: the memory chooses; without it, the row the name
    // is short for ("a100", not "a100-40gb").
    if (MemoryBytes ? memoryDistance(S, MemoryBytes) <
                          memoryDistance(*Best, MemoryBytes)
                    : S.Name == M)
      Best = &S;
  }
  return Best;
}

const GpuSpec *dd::findDeviceGpu(const Device &D) {
  if (!D.Name.empty())
    if (const GpuSpec *S = findGpu(D.Name, D.MemoryBytes))
      return S;
  // ROCm reports "AMD Radeon Graphics" for every part: the CU count and the
  // memory tell them apart.
  if (D.SmCount <= 0 || !llvm::StringRef(D.Name).contains_insensitive("amd"))
    return nullptr;
  const GpuSpec *Best = nullptr;
  for (const GpuSpec &S : Table)
    if (S.Vendor == GpuVendor::Amd && S.ComputeUnits == unsigned(D.SmCount))
      if (!Best || memoryDistance(S, D.MemoryBytes) <
                       memoryDistance(*Best, D.MemoryBytes))
        Best = &S;
  return Best;
}

const GpuSpec *dd::findGraphGpu(const Graph &G) {
  for (const Device &D : G.metadata().Devices)
    if (const GpuSpec *S = findDeviceGpu(D))
      return S;
  return nullptr;
}

double dd::peakTflops(const GpuSpec &S, DType D) {
  switch (D) {
  case DType::FP8:
  case DType::INT8:
    if (S.Fp8Tflops > 0)
      return S.Fp8Tflops;
    [[fallthrough]];
  case DType::FP16:
  case DType::BF16:
    return S.Fp16Tflops;
  case DType::TF32:
    return S.Tf32Tflops > 0 ? S.Tf32Tflops : S.Fp32Tflops;
  default:
    return S.Fp32Tflops;
  }
}
