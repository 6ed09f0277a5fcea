//===- Utilization.h - How busy a run keeps its lanes -----------*- C++ -*-===//
//
// The utilization figures of the TBD benchmark study (Zhu et al., IISWC
// 2018), for one run of a graph: the simulated one (from a SimResult) or the
// recorded one (from the tasks' recorded times). Every figure is a length of
// a union of task intervals (IntervalUnion.h), never a sum of durations, so
// concurrent work counts once:
//
//   GPU compute time of device d   time at least one Kernel task runs on a
//                                  lane of device d (copies, sets and
//                                  collectives are not compute)
//   ... per iteration              the same inside the iteration's window
//   busy time of a lane            time at least one of its tasks runs
//   communication time             time a Collective task, or any task on a
//                                  CommChannel lane, runs
//   overlapped communication       communication time during which some
//                                  kernel (on any device) runs too
//
// Shares divide by the run (its first start to its last end) or by the
// iteration's window. Hardware counters (FP32 or tensor-pipe activity) are
// not in the IR, so no figure here pretends to know them.
//
// dd-sim's summary can show the headline figures with
// predictedUtilization(G, SimResult) and recordedUtilization(G).
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_ANALYSIS_UTILIZATION_H
#define DAYDREAM_ANALYSIS_UTILIZATION_H

#include "daydream/Analysis/IntervalUnion.h"
#include "daydream/IR/Types.h"

#include "llvm/ADT/Optional.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace dd {

class Graph;
struct SimResult;

struct GpuUtilization {
  int32_t Device = -1;
  int64_t ComputeNs = 0;
  /// Compute time inside each iteration's window, in the graph's iteration
  /// order; None where the iteration has no window.
  std::vector<llvm::Optional<int64_t>> IterationComputeNs;
};

struct RunUtilization {
  /// First task start to last task end.
  Interval Run;
  /// One window per Graph::iterations() entry; None where the run does not
  /// say when it began or how long it took.
  std::vector<llvm::Optional<Interval>> Iterations;
  /// Devices with a GPU-stream lane or a kernel, by device index.
  std::vector<GpuUtilization> Gpus;
  /// Indexed by LaneId.
  std::vector<int64_t> LaneBusyNs;
  int64_t CommunicationNs = 0;
  int64_t OverlappedCommunicationNs = 0;

  /// Mean length of the known, non-empty iteration windows; None if there
  /// are none.
  llvm::Optional<double> meanIterationNs() const;
  /// \p BatchSize samples per mean iteration, per second; None without a
  /// mean iteration time or a positive batch size.
  llvm::Optional<double> samplesPerSecond(int64_t BatchSize) const;
};

/// The simulated run \p R of \p G. Iteration windows are the predicted ones
/// (IterationResult::PredictedStartNs and PredictedNs).
RunUtilization predictedUtilization(const Graph &G, const SimResult &R);

/// The recorded run of \p G: tasks at their recorded StartNs for
/// DurationNs; iteration windows from Iteration::StartNs and MeasuredNs.
RunUtilization recordedUtilization(const Graph &G);

/// predictedUtilization(G, R) and recordedUtilization(G), from one walk over
/// the tasks instead of two.
std::pair<RunUtilization, RunUtilization>
predictedAndRecordedUtilization(const Graph &G, const SimResult &R);

} // namespace dd

#endif // DAYDREAM_ANALYSIS_UTILIZATION_H
