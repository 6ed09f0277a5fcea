//===- SteadyState.h - The one figure a what-if is read by ------*- C++ -*-===//
//
// A trace holds a few steps, the first often slower (warm-up, allocator
// growth, cuDNN's autotuning) and the last sometimes cut short; its whole
// span also counts time outside any step. So every report (dd-sim, dd-diff,
// the plot, JSON) leads with one steady-state figure, by one rule:
//
//   the median over the complete steps, a step being complete when it has a
//   recorded duration and a predicted one (tasks in the graph); in a job,
//   a step's duration is its slowest rank's (data-parallel ranks wait for
//   each other at every step), steps matched by name.
//
// The median of an even number of steps is the mean of the middle two. The
// baseline and the prediction are medians over the same steps.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SIM_STEADYSTATE_H
#define DAYDREAM_SIM_STEADYSTATE_H

#include "daydream/Sim/Simulator.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace dd {

/// The rule above, in words, for reports to state.
extern const char *const SteadyStateRule;

struct SteadyState {
  /// Complete steps counted; 0 when there is none (the figures are then -1).
  size_t Steps = 0;
  /// Median recorded and predicted step durations.
  int64_t BaselineNs = -1, PredictedNs = -1;

  bool known() const { return Steps != 0; }
  /// (predicted - baseline) / baseline: a replay's error, a prediction's
  /// change.
  double relativeChange() const {
    return double(PredictedNs - BaselineNs) / double(BaselineNs);
  }
  double changePercent() const { return 100.0 * relativeChange(); }
  /// baseline / predicted: above 1 is faster.
  double speedup() const { return double(BaselineNs) / double(PredictedNs); }
};

/// The steady state of a simulation's \p Iterations, by the rule above
/// (an unnamed step is a step of its own).
SteadyState steadyState(llvm::ArrayRef<IterationResult> Iterations);

} // namespace dd

#endif // DAYDREAM_SIM_STEADYSTATE_H
