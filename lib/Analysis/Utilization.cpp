//===- Utilization.cpp - How busy a run keeps GPUs, threads, links --------===//
//
// One walk over the live tasks merges each lane's intervals as they come
// (LaneMeasure.h says when they come sorted, and what happens when not),
// for one run or for the simulated and the recorded run at once; the lanes'
// kernel and communication unions are then merged by device and for the
// whole run, so the computation is O(n) in tasks when lanes come in order
// (O(n log n) otherwise) plus O(log n) per iteration window. A device with
// one lane has its kernels measured against the windows as they come, not
// kept: on a graph of millions of kernels that memory, fresh, cost more
// than the walk. The simulated and recorded runs differ only in where a
// task's interval and the iteration windows come from.
//
//===----------------------------------------------------------------------===//

#include "daydream/Analysis/Utilization.h"
#include "LaneMeasure.h"
#include "UnionStream.h"

#include "daydream/IR/Graph.h"
#include "daydream/Sim/Simulator.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <map>
#include <set>

using namespace dd;

namespace {

/// The union of several lanes' sorted, disjoint runs, taking over a lone
/// run instead of copying it.
IntervalUnion unionOfRuns(std::vector<std::vector<Interval> *> Runs) {
  llvm::erase_if(Runs,
                 [](const std::vector<Interval> *R) { return R->empty(); });
  if (Runs.size() == 1)
    return IntervalUnion::fromMerged(std::move(*Runs.front()));
  std::vector<llvm::ArrayRef<Interval>> Views;
  size_t Total = 0;
  for (const std::vector<Interval> *R : Runs) {
    Views.push_back(*R);
    Total += R->size();
  }
  // Room for every interval; what merging saves is never touched, so it
  // costs address space, not memory.
  std::vector<Interval> Merged;
  Merged.reserve(Total);
  UnionStream(Views).collect(Merged);
  return IntervalUnion::fromMerged(std::move(Merged));
}

/// One run to measure.
struct RunSpec {
  TimeSource Source;
  /// None for the span of the tasks' intervals.
  llvm::Optional<Interval> Run;
  std::vector<llvm::Optional<Interval>> Windows;
  /// The windows' ends, ascending: what a metered lane answers for.
  std::vector<int64_t> Times;
};

/// One walk over the live tasks for the \p K runs in \p Measures. False,
/// midway, if \p StopAtCollective and a Collective task turns up.
template <size_t K>
bool walkTasks(const Graph &G, LaneMeasure *Measures, bool StopAtCollective) {
  llvm::ArrayRef<Task> Tasks = G.taskSlots();
  const bool AllLive = G.numTasks() == Tasks.size();
  for (TaskId T = 0, N = Tasks.size(); T != N; ++T) {
    if (!AllLive && !G.isLive(T))
      continue;
    const Task &Tk = Tasks[T];
    if (StopAtCollective && Tk.Kind == TaskKind::Collective)
      return false;
    for (size_t I = 0; I != K; ++I)
      Measures[I].add(Tk, Measures[I].source().of(T, Tk));
  }
  return true;
}

bool walkTasks(const Graph &G, std::vector<LaneMeasure> &Measures,
               bool StopAtCollective) {
  assert((Measures.size() == 1 || Measures.size() == 2) && "one run or two");
  return Measures.size() == 1
             ? walkTasks<1>(G, Measures.data(), StopAtCollective)
             : walkTasks<2>(G, Measures.data(), StopAtCollective);
}

/// A run's figures from its lanes', and from what the processes below
/// measured (UtilizationObserver::mergeUp()), if \p Below.
RunUtilization combine(const Graph &G, RunSpec &Spec,
                       std::vector<LaneIntervals> Lanes, Interval Span,
                       UtilizationObserver::DevicesBelow *Below = nullptr) {
  // Ordered, so devices come out by index: every device with a GPU stream,
  // and every device of a lane that ran a kernel.
  std::map<int32_t, std::vector<LaneId>> ByDevice;
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    const Lane &Ln = G.lane(L);
    if (Ln.Kind == LaneKind::GpuStream || Lanes[L].HasKernel)
      ByDevice[Ln.Device].push_back(L);
  }

  RunUtilization U;
  U.Run = Spec.Run ? *Spec.Run : Span;
  if (U.Run.Begin > U.Run.End)
    U.Run = Interval{0, 0}; // no live tasks
  U.Iterations = std::move(Spec.Windows);
  const std::vector<int64_t> &Times = Spec.Times;
  auto TimeIndex = [&](int64_t T) {
    return std::lower_bound(Times.begin(), Times.end(), T) - Times.begin();
  };
  // Kept for the overlap with communication, which needs every kernel
  // kept: no lane is metered then.
  std::vector<IntervalUnion> DeviceBusy;
  size_t FinishedBelow = 0;
  for (auto &[Device, OnDevice] : ByDevice) {
    GpuUtilization Gpu;
    Gpu.Device = Device;
    auto Finished = Below ? Below->Finished.find(Device)
                          : std::map<int32_t, int64_t>::iterator();
    if (Below && Finished != Below->Finished.end()) {
      assert(U.Iterations.empty() && "measured below without the windows");
      Gpu.ComputeNs = Finished->second;
      ++FinishedBelow;
    } else if (const llvm::Optional<UnionMeter> &M =
                   Lanes[OnDevice[0]].KernelMeter) {
      // A metered lane is its device's only one.
      Gpu.ComputeNs = M->length();
      for (const llvm::Optional<Interval> &W : U.Iterations)
        Gpu.IterationComputeNs.push_back(
            !W ? llvm::None
               : llvm::Optional<int64_t>(
                     W->End <= W->Begin
                         ? 0
                         : M->lengthBefore(TimeIndex(W->End)) -
                               M->lengthBefore(TimeIndex(W->Begin))));
    } else {
      std::vector<std::vector<Interval> *> Kernels;
      for (LaneId L : OnDevice)
        Kernels.push_back(&Lanes[L].Kernels);
      if (Below)
        if (auto It = Below->Open.find(Device); It != Below->Open.end())
          for (std::vector<Interval> &Run : It->second)
            Kernels.push_back(&Run);
      DeviceBusy.push_back(unionOfRuns(Kernels));
      const IntervalUnion &Busy = DeviceBusy.back();
      Gpu.ComputeNs = Busy.length();
      for (const llvm::Optional<Interval> &W : U.Iterations)
        Gpu.IterationComputeNs.push_back(
            W ? llvm::Optional<int64_t>(Busy.lengthWithin(*W)) : llvm::None);
    }
    U.Gpus.push_back(std::move(Gpu));
  }
  std::vector<std::vector<Interval> *> Communication;
  for (LaneIntervals &L : Lanes) {
    U.LaneBusyNs.push_back(L.BusyNs);
    Communication.push_back(&L.Communication);
  }
  IntervalUnion Comm = unionOfRuns(Communication);
  U.CommunicationNs = Comm.length();
  if (Comm.length() == 0)
    return U; // nothing to overlap: spare the union of every kernel
  assert(DeviceBusy.size() + FinishedBelow == ByDevice.size() &&
         "a lane was metered");
  // Every kernel ran on some device, so the devices' unions together are
  // the union of all kernels; it is measured against communication as it
  // comes, not kept.
  std::vector<llvm::ArrayRef<Interval>> AllKernels;
  AllKernels.reserve(DeviceBusy.size());
  for (const IntervalUnion &Busy : DeviceBusy)
    AllKernels.push_back(Busy.intervals());
  if (Below)
    for (const std::vector<Interval> &Run : Below->FinishedKernels)
      AllKernels.push_back(Run);
  UnionStream Kernels(AllKernels);
  U.OverlappedCommunicationNs = overlapOf(Comm, Kernels);
  return U;
}

/// The figures of every run in \p Specs, from one walk over the tasks (two
/// if a Collective task turns up after lanes were metered: the walk starts
/// over keeping every kernel).
std::vector<RunUtilization> measure(const Graph &G,
                                    std::vector<RunSpec> Specs) {
  for (RunSpec &S : Specs) {
    for (const llvm::Optional<Interval> &W : S.Windows)
      if (W && W->End > W->Begin) {
        S.Times.push_back(W->Begin);
        S.Times.push_back(W->End);
      }
    llvm::sort(S.Times);
    S.Times.erase(std::unique(S.Times.begin(), S.Times.end()), S.Times.end());
  }
  std::vector<uint8_t> Meter = meterableLanes(G);
  std::vector<LaneMeasure> Measures;
  auto Start = [&] {
    Measures.clear();
    for (const RunSpec &S : Specs)
      Measures.emplace_back(G, S.Source, S.Times, Meter);
  };
  Start();
  const bool AnyMeter = llvm::is_contained(Meter, 1);
  if (!walkTasks(G, Measures, AnyMeter)) {
    Meter.assign(G.numLanes(), 0);
    Start();
    walkTasks(G, Measures, false);
  }
  std::vector<RunUtilization> Out;
  for (size_t I = 0; I != Specs.size(); ++I)
    Out.push_back(
        combine(G, Specs[I], Measures[I].finish(), Measures[I].span()));
  return Out;
}

RunSpec simulated(const SimResult &R) {
  RunSpec S;
  S.Source.Sim = &R;
  S.Run = Interval{R.OriginNs, R.OriginNs + R.MakespanNs};
  for (const IterationResult &I : R.Iterations)
    S.Windows.push_back(
        I.PredictedNs < 0
            ? llvm::None
            : llvm::Optional<Interval>(Interval{
                  I.PredictedStartNs, I.PredictedStartNs + I.PredictedNs}));
  return S;
}

RunSpec recorded(const Graph &G) {
  RunSpec S; // the run is the tasks' span, found by the same walk
  for (const Iteration &I : G.iterations())
    S.Windows.push_back(I.MeasuredNs < 0
                            ? llvm::None
                            : llvm::Optional<Interval>(Interval{
                                  I.StartNs, I.StartNs + I.MeasuredNs}));
  return S;
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
  return std::move(measure(G, {simulated(R)}).front());
}

RunUtilization dd::recordedUtilization(const Graph &G) {
  return std::move(measure(G, {recorded(G)}).front());
}

/// The lanes an observer meters: meterableLanes()' GPU streams. A CPU
/// thread seldom runs a kernel, and a metered lane, kernels or not, makes a
/// collective refuse the observer.
static std::vector<uint8_t> observerMeters(const Graph &G) {
  std::vector<uint8_t> Meter = meterableLanes(G);
  for (LaneId L = 0; L != G.numLanes(); ++L)
    Meter[L] &= G.lane(L).Kind == LaneKind::GpuStream;
  return Meter;
}

UtilizationObserver::UtilizationObserver(const Graph &G)
    : G(G), Meter(observerMeters(G)), AnyMeter(llvm::is_contained(Meter, 1)),
      // The source is read only for lanes that come unsorted, which a
      // sweep's never do.
      Measure(std::make_unique<LaneMeasure>(G, TimeSource(),
                                            llvm::ArrayRef<int64_t>(), Meter)) {
}

UtilizationObserver::~UtilizationObserver() = default;

void UtilizationObserver::ran(TaskId First, llvm::ArrayRef<int64_t> Start,
                              llvm::ArrayRef<int64_t> End) {
  if (Failed)
    return;
  const Task *Tasks = G.taskSlots().data() + First;
  for (size_t I = 0, N = Start.size(); I != N; ++I) {
    if (AnyMeter && Tasks[I].Kind == TaskKind::Collective) {
      Failed = true;
      return;
    }
    // The sweep that shows the times runs every lane in slot order.
    Measure->addInOrder(Tasks[I], Interval{Start[I], End[I]});
  }
}

void UtilizationObserver::finishLanes() {
  if (!Finished)
    Lanes = Measure->finish();
  Finished = true;
}

// Per lane with anything to say: its id, whether it ran a kernel, its
// metered length (-1 if not metered), its kernels' and its communication's
// interval counts, then their begins and ends; its kernels went up the
// tree (packUp()), so their count is 0. First, whether it failed.
void UtilizationObserver::pack(std::vector<int64_t> &Out) {
  finishLanes();
  Out.push_back(Failed);
  for (LaneId L = 0; L != Lanes.size(); ++L) {
    const LaneIntervals &Lane = Lanes[L];
    if (!Lane.HasKernel && Lane.Kernels.empty() && Lane.Communication.empty() &&
        (!Lane.KernelMeter || Lane.KernelMeter->length() == 0))
      continue;
    // The kernels go up the tree (packUp()).
    Out.insert(Out.end(), {int64_t(L), int64_t(Lane.HasKernel),
                           Lane.KernelMeter ? Lane.KernelMeter->length() : -1,
                           0, int64_t(Lane.Communication.size())});
    for (Interval I : Lane.Communication)
      Out.insert(Out.end(), {I.Begin, I.End});
  }
}

bool UtilizationObserver::merge(llvm::ArrayRef<int64_t> Packed) {
  finishLanes();
  if (Packed.empty())
    return false;
  Failed |= Packed[0] != 0;
  for (size_t At = 1; At != Packed.size();) {
    if (Packed.size() - At < 5)
      return false;
    const int64_t L = Packed[At], Metered = Packed[At + 2];
    const int64_t NumKernels = Packed[At + 3], NumComm = Packed[At + 4];
    At += 5;
    if (L < 0 || uint64_t(L) >= Lanes.size() || NumKernels < 0 || NumComm < 0 ||
        uint64_t(Packed.size() - At) / 2 <
            uint64_t(NumKernels) + uint64_t(NumComm))
      return false;
    // The lane is the sender's alone: its figures replace ours, which
    // are empty.
    LaneIntervals &Lane = Lanes[L];
    Lane.HasKernel = Packed[At - 4] != 0;
    if (Metered >= 0 && Lane.KernelMeter) {
      *Lane.KernelMeter = UnionMeter(llvm::ArrayRef<int64_t>());
      Lane.KernelMeter->addDisjoint(Interval{0, Metered});
    }
    for (std::vector<Interval> *List : {&Lane.Kernels, &Lane.Communication}) {
      const int64_t Count = List == &Lane.Kernels ? NumKernels : NumComm;
      List->clear();
      for (int64_t I = 0; I != Count; ++I, At += 2)
        List->push_back(Interval{Packed[At], Packed[At + 1]});
    }
  }
  return true;
}

void UtilizationObserver::laneOwners(llvm::ArrayRef<uint32_t> Owner,
                                     unsigned Me) {
  this->Me = Me;
  DeviceOwners.clear();
  for (LaneId L = 0; L != G.numLanes(); ++L)
    DeviceOwners[G.lane(L).Device].push_back(Owner[L]);
}

bool UtilizationObserver::allBelow(int32_t Device) const {
  auto It = DeviceOwners.find(Device);
  if (It == DeviceOwners.end())
    return false;
  // In the tree, process P is below its parent (P - 1) / 2.
  return llvm::all_of(It->second, [&](uint32_t P) {
    while (P > Me)
      P = (P - 1) / 2;
    return P == Me;
  });
}

// Three parts: the devices some of whose lanes are elsewhere, their number
// and then for each its index, its union's interval count and the
// intervals; the devices all of whose lanes are here or below, their
// number and then for each its index and its kernels' union's length; and
// the union of those devices' kernels, its interval count and the
// intervals.
void UtilizationObserver::packUp(std::vector<int64_t> &Out) {
  finishLanes();
  std::map<int32_t, std::vector<std::vector<Interval> *>> ByDevice;
  for (LaneId L = 0; L != Lanes.size(); ++L)
    if (!Lanes[L].Kernels.empty())
      ByDevice[G.lane(L).Device].push_back(&Lanes[L].Kernels);
  for (auto &[Device, Runs] : Below.Open)
    for (std::vector<Interval> &Run : Runs)
      ByDevice[Device].push_back(&Run);
  std::vector<IntervalUnion> Finished;
  std::vector<std::pair<int32_t, int64_t>> Lengths(Below.Finished.begin(),
                                                   Below.Finished.end());
  const size_t OpenAt = Out.size();
  Out.push_back(0);
  for (auto &[Device, Runs] : ByDevice) {
    IntervalUnion Busy = unionOfRuns(Runs);
    if (allBelow(Device)) {
      Lengths.emplace_back(Device, Busy.length());
      Finished.push_back(std::move(Busy));
      continue;
    }
    ++Out[OpenAt];
    Out.insert(Out.end(), {Device, int64_t(Busy.intervals().size())});
    for (Interval I : Busy.intervals())
      Out.insert(Out.end(), {I.Begin, I.End});
  }
  Out.push_back(int64_t(Lengths.size()));
  for (auto [Device, Length] : Lengths)
    Out.insert(Out.end(), {Device, Length});
  std::vector<llvm::ArrayRef<Interval>> Views;
  Views.reserve(Finished.size() + Below.FinishedKernels.size());
  for (const IntervalUnion &Busy : Finished)
    Views.push_back(Busy.intervals());
  for (const std::vector<Interval> &Run : Below.FinishedKernels)
    Views.push_back(Run);
  std::vector<Interval> All;
  UnionStream(Views).collect(All);
  Out.push_back(int64_t(All.size()));
  for (Interval I : All)
    Out.insert(Out.end(), {I.Begin, I.End});
}

bool UtilizationObserver::mergeUp(llvm::ArrayRef<int64_t> Packed) {
  size_t At = 0;
  // A count of groups at least \p Width values wide, which must fit.
  auto Count = [&](uint64_t Width) -> llvm::Optional<int64_t> {
    if (At == Packed.size() || Packed[At] < 0 ||
        uint64_t(Packed.size() - At - 1) / Width < uint64_t(Packed[At]))
      return llvm::None;
    return Packed[At++];
  };
  auto Intervals = [&](std::vector<Interval> &Run, int64_t N) {
    if (N < 0 || uint64_t(Packed.size() - At) / 2 < uint64_t(N))
      return false;
    for (int64_t I = 0; I != N; ++I, At += 2)
      Run.push_back(Interval{Packed[At], Packed[At + 1]});
    return true;
  };
  auto Open = Count(2);
  if (!Open)
    return false;
  for (int64_t D = 0; D != *Open; ++D) {
    if (Packed.size() - At < 2)
      return false;
    const int32_t Device = int32_t(Packed[At]);
    const int64_t N = Packed[At + 1];
    At += 2;
    if (!Intervals(Below.Open[Device].emplace_back(), N))
      return false;
  }
  auto Finished = Count(2);
  if (!Finished)
    return false;
  for (int64_t D = 0; D != *Finished; ++D, At += 2)
    Below.Finished[int32_t(Packed[At])] = Packed[At + 1];
  auto All = Count(2);
  return All && Intervals(Below.FinishedKernels.emplace_back(), *All) &&
         At == Packed.size();
}

// Lengths and overlaps do not depend on where the times are counted from.
void UtilizationObserver::finish(int64_t) {}

bool UtilizationObserver::complete() const { return !Failed; }

RunUtilization UtilizationObserver::result(const SimResult &R) {
  assert(complete() && "measured from the times as they came");
  assert(R.Lanes.size() == G.numLanes() && "lane results of the sweep");
  RunSpec Spec = simulated(R);
  Spec.Windows.clear(); // not known while the tasks came
  finishLanes();
  std::vector<LaneIntervals> Lanes = std::move(this->Lanes);
  // Each lane ran one task at a time: its busy time is the sum the
  // simulation has.
  for (LaneId L = 0; L != G.numLanes(); ++L)
    Lanes[L].BusyNs = R.Lanes[L].BusyNs;
  // The run is the simulation's (Spec.Run), not the span of the times seen.
  return combine(G, Spec, std::move(Lanes), *Spec.Run, &Below);
}

llvm::Optional<RunUtilization> dd::utilizationFromLanes(const Graph &G,
                                                        const SimResult &R) {
  if (R.Lanes.size() != G.numLanes())
    return llvm::None; // the simulation kept no lane results
  constexpr uint32_t Kernel = 1u << unsigned(TaskKind::Kernel);
  constexpr uint32_t Collective = 1u << unsigned(TaskKind::Collective);
  // The devices combine() reports, with the one lane each may have.
  std::map<int32_t, LaneId> ByDevice;
  RunUtilization U;
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    const Lane &Ln = G.lane(L);
    const LaneResult &LR = R.Lanes[L];
    if ((LR.TaskKinds & Collective) ||
        (Ln.Kind == LaneKind::CommChannel && LR.NumTasks != 0))
      return llvm::None; // communication, whose overlap needs the kernels
    if (Ln.Kind == LaneKind::GpuStream || (LR.TaskKinds & Kernel))
      if (!ByDevice.try_emplace(Ln.Device, L).second)
        return llvm::None; // a second lane: the union needs the intervals
    U.LaneBusyNs.push_back(LR.BusyNs);
  }
  U.Run = Interval{R.OriginNs, R.OriginNs + R.MakespanNs};
  for (auto [Device, L] : ByDevice) {
    GpuUtilization Gpu;
    Gpu.Device = Device;
    Gpu.ComputeNs = R.Lanes[L].KernelNs;
    U.Gpus.push_back(std::move(Gpu));
  }
  return U;
}

bool dd::utilizationFromLanesLikely(const Graph &G) {
  std::set<int32_t> WithStream;
  for (const Lane &L : G.lanes())
    if (L.Kind == LaneKind::CommChannel ||
        (L.Kind == LaneKind::GpuStream && !WithStream.insert(L.Device).second))
      return false;
  return true;
}

std::pair<RunUtilization, RunUtilization>
dd::predictedAndRecordedUtilization(const Graph &G, const SimResult &R) {
  std::vector<RunUtilization> Both = measure(G, {simulated(R), recorded(G)});
  return {std::move(Both[0]), std::move(Both[1])};
}
