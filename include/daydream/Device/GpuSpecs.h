//===- GpuSpecs.h - Peak figures of common GPUs -----------------*- C++ -*-===//
//
// What the device-aware passes know about GPUs: dense peaks per precision
// (FP32 on the vector cores; TF32, FP16/BF16 and FP8 on tensor or matrix
// cores), memory bandwidth, the per-GPU interconnect, and the latency
// floor: the time of the smallest kernels, which no peak speeds up. From
// the vendors' datasheets (docs/CostModels.md cites each); the floors are
// measured in real traces where one exists. Looked up by the device name a
// trace records ("NVIDIA H100 80GB HBM3", "Tesla V100-SXM2-16GB"), and by
// compute-unit count and memory where the name does not tell ("AMD Radeon
// Graphics").
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_DEVICE_GPUSPECS_H
#define DAYDREAM_DEVICE_GPUSPECS_H

#include "daydream/IR/Types.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace dd {

class Graph;
struct Device;

enum class GpuVendor : uint8_t { Nvidia, Amd };

struct GpuSpec {
  llvm::StringRef Name; ///< short name: "v100", "a100", ...
  GpuVendor Vendor;
  double Fp32Tflops;          ///< peak FP32 on the CUDA / vector cores
  double Tf32Tflops;          ///< dense TF32 / XF32 matrix peak; 0: none
  double Fp16Tflops;          ///< dense FP16 / BF16 tensor peak
  double Fp8Tflops;           ///< dense FP8 tensor peak; 0: none
  double MemoryBandwidthGBps; ///< peak DRAM / HBM bandwidth
  double LinkGBps;            ///< per-GPU NVLink / Infinity Fabric (or
                              ///< PCIe where none), one way
  double LatencyFloorUs;      ///< duration of the smallest kernels
  bool HasBf16;               ///< BF16 runs on the tensor cores
  unsigned ComputeUnits;      ///< SMs / CUs, to tell parts apart
  unsigned MemoryGiB;
  llvm::StringRef Match; ///< what a device name contains; "" = Name
};

/// The table, oldest first.
llvm::ArrayRef<GpuSpec> knownGpus();

/// The entry whose short name is \p Name (case-insensitive).
const GpuSpec *findGpuByShortName(llvm::StringRef Name);

/// The entry for a device called \p Name: the short name exactly, else the
/// entry whose match text is the longest contained in \p Name (so "A100"
/// is not "A10"), the memory size choosing between parts of one name
/// (\p MemoryBytes, 0 if unknown); nullptr if none.
const GpuSpec *findGpu(llvm::StringRef Name, uint64_t MemoryBytes = 0);

/// The entry for a recorded device: by name, else by compute-unit count
/// and memory (ROCm names every GPU "AMD Radeon Graphics").
const GpuSpec *findDeviceGpu(const Device &D);

/// The GPU the graph's first recognised device is, or nullptr.
const GpuSpec *findGraphGpu(const Graph &G);

/// Dense peak (TFLOP/s) for arithmetic in \p D: the precision's own peak,
/// else the next wider one the GPU has (TF32 on a V100 runs as FP32, FP8 on
/// an A100 as FP16). Unknown and FP64 count as FP32.
double peakTflops(const GpuSpec &S, DType D);

} // namespace dd

#endif // DAYDREAM_DEVICE_GPUSPECS_H
