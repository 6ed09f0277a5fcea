//===- SimPlot.h - Baseline and prediction as a picture ---------*- C++ -*-===//
//
// dd-sim -plot=FILE.svg draws what people decide from: the run's time, the
// baseline's above the prediction's, split by what the GPUs were doing
// (forward, backward and optimizer kernels, exposed communication, other GPU
// work, idle), and the kernels that take the most time in either run. A
// self-contained SVG, so that it opens in any browser and converts with any
// tool (the tests render it with rsvg-convert).
//
// The split is over the union of GPU work: at each instant the time goes to
// the first of backward, forward, optimizer, other GPU work and
// communication that is running on some GPU lane, so communication counts
// only where no computation hides it (exposed), and idle is the rest of the
// run.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TOOLS_SIMPLOT_H
#define DAYDREAM_TOOLS_SIMPLOT_H

#include "RunView.h"

#include "llvm/Support/raw_ostream.h"

#include <array>

namespace dd {

/// What the GPUs were doing, in the order time is attributed.
enum class GpuActivityClass : uint8_t {
  Backward,
  Forward,
  Optimizer,
  OtherGpu,
  Communication,
  Idle,
};
inline constexpr size_t NumGpuActivityClasses = 6;

/// Nanoseconds of the run in each class; they sum to the run's makespan.
using TimeBreakdown = std::array<int64_t, NumGpuActivityClasses>;

TimeBreakdown breakDownTime(const RunView &Run);

/// Writes the SVG comparing \p Baseline and \p Predicted (at most \p TopKernels
/// kernel names).
void writePlot(const RunView &Baseline, const RunView &Predicted,
               llvm::raw_ostream &OS, unsigned TopKernels = 10);

} // namespace dd

#endif // DAYDREAM_TOOLS_SIMPLOT_H
