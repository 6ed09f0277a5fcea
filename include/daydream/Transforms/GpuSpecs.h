//===- GpuSpecs.h - Peak figures of common GPUs -----------------*- C++ -*-===//
//
// What the device-aware passes know about GPUs: peak FP32 (non-tensor) and
// dense FP16/BF16 tensor throughput, memory bandwidth and the per-GPU
// interconnect bandwidth, from the vendors' datasheets (SXM / OAM parts; see
// docs/passes/retarget-gpu.md for the sources). Looked up by the device name
// a trace records ("NVIDIA H100 80GB HBM3", "Tesla V100-SXM2-16GB", ...).
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TRANSFORMS_GPUSPECS_H
#define DAYDREAM_TRANSFORMS_GPUSPECS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace dd {

class Graph;

struct GpuSpec {
  llvm::StringRef Name;       ///< short name: "v100", "a100", ...
  double Fp32Tflops;          ///< peak FP32 on the CUDA / vector cores
  double Fp16Tflops;          ///< peak dense FP16 / BF16 on tensor cores
  double MemoryBandwidthGBps; ///< peak DRAM / HBM bandwidth
  double LinkGBps;            ///< per-GPU NVLink / Infinity Fabric, one way
};

/// The table: V100, A100, H100, H200, B200, MI300X.
llvm::ArrayRef<GpuSpec> knownGpus();

/// The entry whose short name is \p Name (case-insensitive), or, failing
/// that, whose short name appears in \p Name as a device string spells it
/// ("NVIDIA A100-SXM4-80GB"); nullptr if none.
const GpuSpec *findGpu(llvm::StringRef Name);

/// The GPU the graph's first named device is, or nullptr.
const GpuSpec *findGraphGpu(const Graph &G);

} // namespace dd

#endif // DAYDREAM_TRANSFORMS_GPUSPECS_H
