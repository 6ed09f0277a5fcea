//===- Utilization.cpp - How busy a run keeps GPUs, threads, links --------===//
//
// One walk over the live tasks merges each lane's intervals as they come
// (measureLanes() says when they come sorted, and what happens when not);
// the lanes' kernel and communication unions are then merged by device and
// for the whole run, so the computation is O(n) in tasks when lanes come in
// order (O(n log n) otherwise) plus O(log n) per iteration window. The
// simulated and recorded runs differ only in where a task's interval and the
// iteration windows come from.
//
//===----------------------------------------------------------------------===//

#include "daydream/Analysis/Utilization.h"

#include "daydream/IR/Graph.h"
#include "daydream/Sim/Simulator.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <limits>
#include <map>

using namespace dd;

namespace {

/// One lane's share of the figures: its busy time, and its kernels and its
/// communication as sorted, disjoint intervals, ready to merge with other
/// lanes'.
struct LaneIntervals {
  int64_t BusyNs = 0;
  /// Ran a kernel, even an empty one: its device is then reported.
  bool HasKernel = false;
  std::vector<Interval> Kernels, Communication;
};

/// Appends \p I to \p Merged, sorted and disjoint so far, given that no
/// interval before it began later: it can only extend the last one.
void appendSorted(std::vector<Interval> &Merged, Interval I) {
  if (!Merged.empty() && I.Begin <= Merged.back().End)
    Merged.back().End = std::max(Merged.back().End, I.End);
  else
    Merged.push_back(I);
}

/// The union of several sorted, disjoint runs as one sorted vector (not yet
/// merged where runs overlap): pairwise merges, O(n log runs).
std::vector<Interval>
mergeRuns(llvm::ArrayRef<const std::vector<Interval> *> Runs) {
  std::vector<Interval> All;
  std::vector<size_t> Bounds{0};
  for (const std::vector<Interval> *R : Runs)
    if (!R->empty()) {
      All.insert(All.end(), R->begin(), R->end());
      Bounds.push_back(All.size());
    }
  auto Less = [](Interval A, Interval B) {
    return A.Begin < B.Begin || (A.Begin == B.Begin && A.End < B.End);
  };
  while (Bounds.size() > 2) {
    std::vector<size_t> Next{0};
    for (size_t I = 0; I + 2 < Bounds.size(); I += 2) {
      std::inplace_merge(All.begin() + Bounds[I], All.begin() + Bounds[I + 1],
                         All.begin() + Bounds[I + 2], Less);
      Next.push_back(Bounds[I + 2]);
    }
    if (Bounds.size() % 2 == 0) // an odd run out, kept as it is
      Next.push_back(Bounds.back());
    Bounds.swap(Next);
  }
  return All;
}

/// Each lane's busy time, kernels and communication, in one walk over the
/// tasks in slot order that keeps no per-task storage: a lane's tasks
/// arrive by begin time whenever the lane runs its tasks in list order and
/// slot order follows list order (every simulated InOrder lane of a graph
/// read from a file, and the recorded times of one), so each lane's unions
/// are merged as they come. A lane whose tasks arrive out of order has its
/// intervals collected and sorted in a second walk instead.
template <typename TimeFn>
std::vector<LaneIntervals> measureLanes(const Graph &G, TimeFn TimeOf) {
  const size_t NumLanes = G.numLanes();
  std::vector<LaneIntervals> Out(NumLanes);
  std::vector<uint8_t> IsCommLane(NumLanes), Sorted(NumLanes, 1);
  std::vector<int64_t> LastBegin(NumLanes, std::numeric_limits<int64_t>::min());
  // The lane's merged busy interval still growing; busy time before it is
  // already in BusyNs.
  std::vector<Interval> Open(NumLanes);
  for (LaneId L = 0; L != NumLanes; ++L)
    IsCommLane[L] = G.lane(L).Kind == LaneKind::CommChannel;

  llvm::ArrayRef<Task> Tasks = G.taskSlots();
  const bool AllLive = G.numTasks() == Tasks.size();
  bool AnyUnsorted = false;
  for (TaskId T = 0, N = Tasks.size(); T != N; ++T) {
    if (!AllLive && !G.isLive(T))
      continue;
    const Task &Tk = Tasks[T];
    const LaneId L = Tk.Lane;
    const Interval I = TimeOf(T);
    if (Tk.Kind == TaskKind::Kernel)
      Out[L].HasKernel = true;
    // IntervalUnion drops empty intervals; so does this.
    if (I.End <= I.Begin || !Sorted[L])
      continue;
    if (I.Begin < LastBegin[L]) {
      Sorted[L] = 0;
      AnyUnsorted = true;
      continue;
    }
    LastBegin[L] = I.Begin;
    LaneIntervals &Lane = Out[L];
    Interval &Cur = Open[L];
    if (Cur.End > Cur.Begin && I.Begin <= Cur.End) {
      Cur.End = std::max(Cur.End, I.End);
    } else {
      Lane.BusyNs += Cur.length();
      Cur = I;
    }
    if (Tk.Kind == TaskKind::Kernel)
      appendSorted(Lane.Kernels, I);
    if (Tk.Kind == TaskKind::Collective || IsCommLane[L])
      appendSorted(Lane.Communication, I);
  }
  for (LaneId L = 0; L != NumLanes; ++L)
    Out[L].BusyNs += Open[L].length();
  if (!AnyUnsorted)
    return Out;

  std::vector<std::vector<Interval>> All(NumLanes), Kernels(NumLanes),
      Communication(NumLanes);
  for (TaskId T = 0, N = Tasks.size(); T != N; ++T) {
    const LaneId L = Tasks[T].Lane;
    if (Sorted[L] || !G.isLive(T))
      continue;
    const Interval I = TimeOf(T);
    All[L].push_back(I);
    if (Tasks[T].Kind == TaskKind::Kernel)
      Kernels[L].push_back(I);
    if (Tasks[T].Kind == TaskKind::Collective || IsCommLane[L])
      Communication[L].push_back(I);
  }
  for (LaneId L = 0; L != NumLanes; ++L)
    if (!Sorted[L]) {
      Out[L].BusyNs = IntervalUnion(std::move(All[L])).length();
      IntervalUnion K(std::move(Kernels[L]));
      Out[L].Kernels.assign(K.intervals().begin(), K.intervals().end());
      IntervalUnion C(std::move(Communication[L]));
      Out[L].Communication.assign(C.intervals().begin(), C.intervals().end());
    }
  return Out;
}

/// The union of several lanes' sorted, disjoint runs, taking over a lone
/// run instead of copying it.
IntervalUnion unionOfRuns(std::vector<std::vector<Interval> *> Runs) {
  llvm::erase_if(Runs,
                 [](const std::vector<Interval> *R) { return R->empty(); });
  if (Runs.size() == 1)
    return IntervalUnion::fromMerged(std::move(*Runs.front()));
  std::vector<const std::vector<Interval> *> Const(Runs.begin(), Runs.end());
  return IntervalUnion(mergeRuns(Const));
}

template <typename TimeFn>
RunUtilization measure(const Graph &G, Interval Run,
                       std::vector<llvm::Optional<Interval>> Iterations,
                       TimeFn TimeOf) {
  std::vector<LaneIntervals> Lanes = measureLanes(G, TimeOf);
  // Ordered, so devices come out by index: every device with a GPU stream,
  // and every device of a lane that ran a kernel.
  std::map<int32_t, std::vector<std::vector<Interval> *>> ByDevice;
  std::vector<std::vector<Interval> *> Communication;
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    const Lane &Ln = G.lane(L);
    if (Ln.Kind == LaneKind::GpuStream || Lanes[L].HasKernel)
      ByDevice[Ln.Device].push_back(&Lanes[L].Kernels);
    Communication.push_back(&Lanes[L].Communication);
  }

  RunUtilization U;
  U.Run = Run;
  U.Iterations = std::move(Iterations);
  std::vector<IntervalUnion> DeviceBusy;
  for (auto &[Device, Kernels] : ByDevice) {
    DeviceBusy.push_back(unionOfRuns(Kernels));
    const IntervalUnion &Busy = DeviceBusy.back();
    GpuUtilization Gpu;
    Gpu.Device = Device;
    Gpu.ComputeNs = Busy.length();
    for (const llvm::Optional<Interval> &W : U.Iterations)
      Gpu.IterationComputeNs.push_back(
          W ? llvm::Optional<int64_t>(Busy.lengthWithin(*W)) : llvm::None);
    U.Gpus.push_back(std::move(Gpu));
  }
  for (const LaneIntervals &L : Lanes)
    U.LaneBusyNs.push_back(L.BusyNs);
  IntervalUnion Comm = unionOfRuns(Communication);
  U.CommunicationNs = Comm.length();
  if (Comm.length() == 0)
    return U; // nothing to overlap: spare the union of every kernel
  // Every kernel ran on some device, so the devices' unions together are
  // the union of all kernels.
  std::vector<const std::vector<Interval> *> AllKernels;
  std::vector<std::vector<Interval>> Copies;
  Copies.reserve(DeviceBusy.size());
  for (const IntervalUnion &Busy : DeviceBusy) {
    Copies.emplace_back(Busy.intervals().begin(), Busy.intervals().end());
    AllKernels.push_back(&Copies.back());
  }
  U.OverlappedCommunicationNs =
      Comm.overlapWith(IntervalUnion(mergeRuns(AllKernels)));
  return U;
}

} // namespace

llvm::Optional<double> RunUtilization::meanIterationNs() const {
  int64_t Sum = 0, N = 0;
  for (const llvm::Optional<Interval> &W : Iterations)
    if (W && W->length() > 0) {
      Sum += W->length();
      ++N;
    }
  if (N == 0)
    return llvm::None;
  return double(Sum) / double(N);
}

llvm::Optional<double>
RunUtilization::samplesPerSecond(int64_t BatchSize) const {
  llvm::Optional<double> Mean = meanIterationNs();
  if (!Mean || BatchSize <= 0)
    return llvm::None;
  return double(BatchSize) * 1e9 / *Mean;
}

RunUtilization dd::predictedUtilization(const Graph &G, const SimResult &R) {
  std::vector<llvm::Optional<Interval>> Windows;
  for (const IterationResult &I : R.Iterations)
    Windows.push_back(
        I.PredictedNs < 0
            ? llvm::None
            : llvm::Optional<Interval>(Interval{
                  I.PredictedStartNs, I.PredictedStartNs + I.PredictedNs}));
  return measure(G, Interval{R.OriginNs, R.OriginNs + R.MakespanNs},
                 std::move(Windows), [&](TaskId T) {
                   return Interval{R.Start[T], R.End[T]};
                 });
}

RunUtilization dd::recordedUtilization(const Graph &G) {
  Interval Run{std::numeric_limits<int64_t>::max(),
               std::numeric_limits<int64_t>::min()};
  for (TaskId T = 0; T != G.numTaskSlots(); ++T)
    if (G.isLive(T)) {
      const Task &Tk = G.task(T);
      Run.Begin = std::min(Run.Begin, Tk.StartNs);
      Run.End = std::max(Run.End, Tk.StartNs + Tk.DurationNs);
    }
  if (Run.Begin > Run.End)
    Run = Interval{0, 0}; // no live tasks
  std::vector<llvm::Optional<Interval>> Windows;
  for (const Iteration &I : G.iterations())
    Windows.push_back(I.MeasuredNs < 0
                          ? llvm::None
                          : llvm::Optional<Interval>(
                                Interval{I.StartNs, I.StartNs + I.MeasuredNs}));
  return measure(G, Run, std::move(Windows), [&](TaskId T) {
    const Task &Tk = G.task(T);
    return Interval{Tk.StartNs, Tk.StartNs + Tk.DurationNs};
  });
}
