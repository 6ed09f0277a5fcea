//===- AutocastWork.h - The work autocast and GradScaler add ----*- C++ -*-===//
//
// Mixed precision is not free: torch.autocast casts the FP32 inputs of the
// ops it runs in FP16 or BF16 (a copy kernel and its CPU dispatch each), and
// GradScaler adds kernels and a host sync to every FP16 step. On an eager
// step bound by its CPU, that work can outweigh the kernels' gain.
// amp-scale calls addAutocastWork() after scaling the kernels; the rules and
// their sources are in docs/CostModels.md ("Autocast's own work").
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_PASSES_AUTOCASTWORK_H
#define DAYDREAM_PASSES_AUTOCASTWORK_H

#include "daydream/IR/Types.h"

#include <cmath>
#include <cstddef>

namespace dd {

class Graph;
struct GpuSpec;

namespace amp {

struct AutocastOptions {
  /// What autocast casts to: FP16 or BF16.
  DType To = DType::FP16;
  /// Add the casts of autocast-eligible ops' FP32 inputs.
  bool Casts = true;
  /// Add GradScaler's kernels and sync.
  bool Scaler = true;
  /// CPU time of one added launch, dispatch included; NaN: the trace's
  /// median CPU time between two launches of a forward.
  double LaunchCpuNs = NAN;
};

/// What was added, for the pass's report.
struct AutocastSummary {
  size_t Forwards = 0;      ///< forward passes with eligible calls
  size_t EligibleCalls = 0; ///< with recorded shapes, in FP32
  size_t ReducedCalls = 0;  ///< eligible, already in FP16/BF16
  /// Listed ops ran in forward, but none with recorded shapes.
  bool NoShapes = false;
  size_t CallsWithoutKernel = 0;
  size_t WeightCasts = 0;
  size_t ActivationCasts = 0;
  double CastBytes = 0;
  size_t ScalerSteps = 0;
  size_t ScalerLaunches = 0;
  /// Steps with casts whose optimizer step (after backward, on the same
  /// thread, launching a kernel) was not found: no GradScaler there.
  size_t StepsWithoutOptimizer = 0;
  /// The trace runs GradScaler already (its kernels are recorded).
  bool TraceHasScaler = false;
  double LaunchCpuNs = 0;
  double LaunchCallNs = 0;
};

/// Adds autocast's casts and GradScaler's work to \p G, timed by \p Spec's
/// latency floor and bandwidth and the trace's own CPU cost per launch.
AutocastSummary addAutocastWork(Graph &G, const GpuSpec &Spec,
                                const AutocastOptions &O);

} // namespace amp
} // namespace dd

#endif // DAYDREAM_PASSES_AUTOCASTWORK_H
