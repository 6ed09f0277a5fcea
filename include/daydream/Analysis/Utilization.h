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
// predictedUtilization(G, SimResult) and recordedUtilization(G), or with a
// UtilizationObserver that measures them during the simulation.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_ANALYSIS_UTILIZATION_H
#define DAYDREAM_ANALYSIS_UTILIZATION_H

#include "daydream/Analysis/IntervalUnion.h"
#include "daydream/IR/Types.h"
#include "daydream/Sim/Simulator.h"

#include "llvm/ADT/Optional.h"

#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace dd {

class Graph;
class LaneMeasure;
struct LaneIntervals;

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

/// predictedUtilization()'s figures of the whole run from \p R's lane
/// results alone (LaneResult::KernelNs), without a walk over the tasks or
/// their times: a lane runs one task at a time, so where a GPU's kernels
/// all ran on one lane their union is that lane's sum. Answers where every
/// GPU's kernels ran on one lane and nothing communicated (no Collective
/// task, no task on a CommChannel lane); None otherwise. The iteration
/// windows are left out, as by UtilizationObserver. \p R as simulate()
/// returned it (expandResults() gives a rank left out its
/// representative's lanes).
llvm::Optional<RunUtilization> utilizationFromLanes(const Graph &G,
                                                    const SimResult &R);

/// Whether utilizationFromLanes() will answer for a simulation of \p G, as
/// far as its lanes tell: no CommChannel lane, and no device with two GPU
/// streams. It still will not if a Collective task runs, or a kernel on a
/// CPU thread of a device that has a GPU stream.
bool utilizationFromLanesLikely(const Graph &G);

/// predictedUtilization()'s figures of the whole run, measured while the
/// simulator sweeps (SimOptions::Observer) from the times as they come,
/// rather than in a walk of its own over the tasks and SimResult's times
/// afterwards. The iteration windows are not known before the sweep ends,
/// so RunUtilization::Iterations and every IterationComputeNs stay empty.
/// The kernels of a GPU stream that is its device's only lane, in a graph
/// without communication lanes, are metered rather than kept (as by
/// predictedUtilization()); a Collective task then makes the observer not
/// complete(), since the overlap with communication needs every kernel,
/// and the simulator keeps the times instead.
class UtilizationObserver final : public TaskTimeObserver {
public:
  explicit UtilizationObserver(const Graph &G);
  ~UtilizationObserver() override;
  void ran(TaskId First, llvm::ArrayRef<int64_t> Start,
           llvm::ArrayRef<int64_t> End) override;
  void finish(int64_t OriginNs) override;
  bool complete() const override;
  /// Each lane's communication, as merged intervals, and whether it ran a
  /// kernel (or, for a metered lane, its kernels' union's length): a lane
  /// is on one process, so the merge takes each lane from the process that
  /// packed it.
  void pack(std::vector<int64_t> &Out) override;
  bool merge(llvm::ArrayRef<int64_t> Packed) override;
  /// The kernels go up the tree instead, merged on the way, rather than
  /// every lane's kernels from every process to process 0: each device's
  /// union, and once a process has every lane of a device below it
  /// (laneOwners()), only the union's length, its kernels joining the one
  /// union of all such devices', which the overlap with communication
  /// reads. Where a job's GPUs run together, that union is a few
  /// intervals a step.
  bool mergesUp() const override { return true; }
  void packUp(std::vector<int64_t> &Out) override;
  bool mergeUp(llvm::ArrayRef<int64_t> Packed) override;
  void laneOwners(llvm::ArrayRef<uint32_t> Owner, unsigned Me) override;

  /// What the processes below one in the tree measured (mergeUp()).
  struct DevicesBelow {
    /// By device, unions of its kernels, for a device some of whose lanes
    /// are elsewhere.
    std::map<int32_t, std::vector<std::vector<Interval>>> Open;
    /// By device, its kernels' union's length, for a device all of whose
    /// lanes are below; and unions of those devices' kernels.
    std::map<int32_t, int64_t> Finished;
    std::vector<std::vector<Interval>> FinishedKernels;
  };
  /// The figures of \p R, the simulation that was observed (R.Observed),
  /// as simulate() returned it: each lane's busy time is its lane result's
  /// (expandResults() would give a rank left out its representative's).
  /// Once only.
  RunUtilization result(const SimResult &R);

private:
  const Graph &G;
  std::vector<uint8_t> Meter;
  bool AnyMeter = false;
  std::unique_ptr<LaneMeasure> Measure;
  /// The lanes' figures once pack() or merge() ended the measure.
  std::vector<LaneIntervals> Lanes;
  DevicesBelow Below;
  /// By device, the processes that own its lanes, and this one
  /// (laneOwners()); empty if not told.
  std::map<int32_t, std::vector<uint32_t>> DeviceOwners;
  unsigned Me = 0;
  /// Whether every lane of \p Device is this process's or below it.
  bool allBelow(int32_t Device) const;
  bool Finished = false;
  bool Failed = false;
  /// Ends the measure, once, into Lanes.
  void finishLanes();
};

/// predictedUtilization(G, R) and recordedUtilization(G), from one walk over
/// the tasks instead of two.
std::pair<RunUtilization, RunUtilization>
predictedAndRecordedUtilization(const Graph &G, const SimResult &R);

} // namespace dd

#endif // DAYDREAM_ANALYSIS_UTILIZATION_H
