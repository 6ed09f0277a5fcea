//===- GpuSpecs.cpp - Peak figures of common GPUs -------------------------===//
//
// Datasheet figures, dense (no structured sparsity):
//   V100 SXM2: 15.7 FP32, 125 FP16 tensor, 900 GB/s HBM2, NVLink2 150 GB/s
//   A100 SXM4 80GB: 19.5 FP32, 312 BF16, 2039 GB/s, NVLink3 300 GB/s
//   H100 SXM5: 67 FP32, 989 BF16, 3350 GB/s, NVLink4 450 GB/s
//   H200 SXM: 67 FP32, 989 BF16, 4800 GB/s, NVLink4 450 GB/s
//   B200 (HGX): 75 FP32, 2250 BF16, 8000 GB/s, NVLink5 900 GB/s
//   MI300X: 163.4 FP32 (matrix; 81.7 vector), 1307.4 BF16, 5300 GB/s,
//           Infinity Fabric 448 GB/s (7 links x 64 GB/s)
//
//===----------------------------------------------------------------------===//

#include "daydream/Transforms/GpuSpecs.h"
#include "daydream/IR/Graph.h"

#include "llvm/ADT/StringExtras.h"

using namespace dd;

static const GpuSpec Table[] = {
    {"v100", 15.7, 125, 900, 150},     {"a100", 19.5, 312, 2039, 300},
    {"h100", 67, 989, 3350, 450},      {"h200", 67, 989, 4800, 450},
    {"b200", 75, 2250, 8000, 900},     {"mi300x", 81.7, 1307.4, 5300, 448},
};

llvm::ArrayRef<GpuSpec> dd::knownGpus() { return Table; }

const GpuSpec *dd::findGpu(llvm::StringRef Name) {
  std::string Lower = Name.lower();
  for (const GpuSpec &S : Table)
    if (Lower == S.Name)
      return &S;
  for (const GpuSpec &S : Table)
    if (llvm::StringRef(Lower).contains(S.Name))
      return &S;
  return nullptr;
}

const GpuSpec *dd::findGraphGpu(const Graph &G) {
  for (const Device &D : G.metadata().Devices)
    if (!D.Name.empty())
      if (const GpuSpec *S = findGpu(D.Name))
        return S;
  return nullptr;
}
