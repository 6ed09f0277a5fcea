//===- MemoryBreakdown.cpp - Where a trace's memory goes ------------------===//
//
// Three sweeps over the memory events in time order: find each event's phase
// and iteration (binary searches over per-lane task lists and the iteration
// starts, sorted once), pair frees with allocations (hash maps keyed by
// address, or by size for events without one), then classify each block and
// replay the events per device to build the timeline. The rules are in the
// header; this file follows them in that order.
//
//===----------------------------------------------------------------------===//

#include "daydream/Analysis/MemoryBreakdown.h"

#include "daydream/IR/Graph.h"
#include "daydream/Sim/Simulator.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <map>
#include <numeric>

using namespace dd;

namespace {

constexpr size_t NoEvent = ~size_t(0);

/// Tasks of one lane in recorded time, for "which task was the thread
/// running at time T".
struct LaneSpan {
  int64_t Begin, End;
  Phase Ph;
  TaskId Task;
};

/// Where an event falls on its lane: inside a task, or between tasks
/// (attributed to the next or the previous one).
struct LanePlace {
  const LaneSpan *Span = nullptr;
  enum { Inside, Before, After } Where = Inside;
};

class PhaseLookup {
public:
  /// Only the lanes some event of \p Events names are looked up, so only
  /// their tasks are collected: a graph without memory events (or whose
  /// events name one CPU thread) costs nothing (or one thread's tasks).
  PhaseLookup(const Graph &G, llvm::ArrayRef<MemoryEvent> Events)
      : ByLane(G.numLanes()) {
    std::vector<uint8_t> Wanted(G.numLanes(), 0);
    bool Any = false;
    for (const MemoryEvent &E : Events)
      if (E.Lane != NoId && !Wanted[E.Lane])
        Wanted[E.Lane] = Any = true;
    if (!Any)
      return;
    for (TaskId T = 0; T != G.numTaskSlots(); ++T) {
      const Task &Tk = G.task(T);
      if (Wanted[Tk.Lane] && G.isLive(T))
        ByLane[Tk.Lane].push_back(
            {Tk.StartNs, Tk.StartNs + Tk.DurationNs, Tk.Phase, T});
    }
    auto Earlier = [](const LaneSpan &A, const LaneSpan &B) {
      return A.Begin < B.Begin;
    };
    // A thread's tasks are mostly recorded in time order already.
    for (std::vector<LaneSpan> &Spans : ByLane)
      if (!std::is_sorted(Spans.begin(), Spans.end(), Earlier))
        std::stable_sort(Spans.begin(), Spans.end(), Earlier);
  }

  /// The task containing \p TimeNs on \p L; between tasks, the next one if
  /// \p PreferNext, else the previous one (the other at the lane's ends).
  LanePlace placeAt(LaneId L, int64_t TimeNs, bool PreferNext) const {
    if (L == NoId || ByLane[L].empty())
      return {};
    const std::vector<LaneSpan> &Spans = ByLane[L];
    auto Next = std::upper_bound(
        Spans.begin(), Spans.end(), TimeNs,
        [](int64_t T, const LaneSpan &S) { return T < S.Begin; });
    if (Next == Spans.begin())
      return {&*Next, LanePlace::Before}; // before the lane's first task
    auto Prev = std::prev(Next);
    if (TimeNs < Prev->End)
      return {&*Prev, LanePlace::Inside};
    if (Next == Spans.end() || !PreferNext)
      return {&*Prev, LanePlace::After};
    return {&*Next, LanePlace::Before};
  }

private:
  std::vector<std::vector<LaneSpan>> ByLane;
};

/// Which iteration a time falls in: the position in start order of the last
/// one starting at or before it (-1 before the first), so that positions
/// compare as "earlier" and "later".
class IterationLookup {
public:
  explicit IterationLookup(const Graph &G) {
    for (size_t I = 0; I != G.iterations().size(); ++I)
      Starts.push_back({G.iterations()[I].StartNs, I});
    std::sort(Starts.begin(), Starts.end());
  }
  int64_t at(int64_t TimeNs) const {
    return int64_t(std::upper_bound(Starts.begin(), Starts.end(),
                                    std::make_pair(TimeNs, ~size_t(0))) -
                   Starts.begin()) -
           1;
  }
  /// The Graph::iterations() index of position \p Pos, -1 for -1.
  int64_t graphIndex(int64_t Pos) const {
    return Pos < 0 ? -1 : int64_t(Starts[Pos].second);
  }

private:
  std::vector<std::pair<int64_t, size_t>> Starts;
};

struct EventPlace {
  Phase Ph = Phase::Other;
  int64_t Iteration = -1;
};

MemoryCategory classify(const EventPlace &A, const EventPlace *F) {
  if (!F && (A.Iteration < 0 || (A.Iteration == 0 && A.Ph == Phase::Forward)))
    return MemoryCategory::Weights;
  if (F && A.Ph == Phase::Forward && F->Ph == Phase::Backward &&
      A.Iteration == F->Iteration)
    return MemoryCategory::Activations;
  if (A.Ph == Phase::Backward &&
      (!F || F->Ph == Phase::Optimizer || F->Iteration > A.Iteration))
    return MemoryCategory::WeightGradients;
  if (!F && A.Ph == Phase::Optimizer)
    return MemoryCategory::OptimizerState;
  if (F && A.Ph == F->Ph && A.Iteration == F->Iteration)
    return MemoryCategory::Workspace;
  return MemoryCategory::Other;
}

/// The iteration whose predicted span holds \p TimeNs (the latest to start
/// at or before it), -1 if none.
int64_t predictedIterationAt(const SimResult &R, int64_t TimeNs) {
  int64_t Best = -1, BestStart = INT64_MIN;
  for (size_t I = 0; I != R.Iterations.size(); ++I) {
    int64_t S = R.Iterations[I].PredictedStartNs;
    if (R.Iterations[I].PredictedNs >= 0 && S <= TimeNs && S > BestStart) {
      Best = int64_t(I);
      BestStart = S;
    }
  }
  return Best;
}

} // namespace

llvm::StringRef dd::toString(MemoryCategory C) {
  static const char *const Names[NumMemoryCategories] = {
      "weights",     "weight-gradients", "optimizer-state",
      "activations", "workspace",        "other"};
  return Names[unsigned(C)];
}

int64_t MemorySample::total() const {
  return std::accumulate(Live.begin(), Live.end(), int64_t(0));
}

MemoryBreakdown dd::computeMemoryBreakdown(const Graph &G,
                                           const SimResult *Simulated) {
  llvm::ArrayRef<MemoryEvent> Events = G.memoryEvents();
  // Graphs read from files are sorted already; passes may have added
  // events out of order.
  std::vector<size_t> Order(Events.size());
  std::iota(Order.begin(), Order.end(), 0);
  auto Earlier = [&](size_t A, size_t B) {
    return Events[A].TimeNs < Events[B].TimeNs;
  };
  if (!std::is_sorted(Order.begin(), Order.end(), Earlier))
    std::stable_sort(Order.begin(), Order.end(), Earlier);

  PhaseLookup Phases(G, Events);
  IterationLookup Iterations(G);
  std::vector<EventPlace> Place(Events.size());
  // When each event happens in the run followed: recorded, or moved with
  // its task (the header's rules).
  std::vector<int64_t> When(Events.size());
  for (size_t I = 0; I != Events.size(); ++I) {
    const MemoryEvent &E = Events[I];
    LanePlace At = Phases.placeAt(E.Lane, E.TimeNs, /*PreferNext=*/E.Bytes > 0);
    Place[I] = {At.Span ? At.Span->Ph : Phase::Other, Iterations.at(E.TimeNs)};
    When[I] = E.TimeNs;
    if (Simulated && At.Span) {
      TaskId T = At.Span->Task;
      int64_t Start = Simulated->Start[T], End = Simulated->End[T];
      When[I] = At.Where == LanePlace::Before ? Start
                : At.Where == LanePlace::After
                    ? End
                    : std::min(End, Start + (E.TimeNs - At.Span->Begin));
    }
  }

  // Devices in index order; each event's device entry.
  std::map<int32_t, DeviceMemory> Devices;
  for (const MemoryEvent &E : Events)
    Devices[E.Device].Device = E.Device;

  // Pair frees with allocations. AllocOf[free] is its allocation's index.
  std::vector<size_t> AllocOf(Events.size(), NoEvent);
  std::vector<size_t> FreeOf(Events.size(), NoEvent);
  llvm::DenseMap<std::pair<int32_t, uint64_t>, size_t> LiveByAddress;
  llvm::DenseMap<std::pair<int32_t, int64_t>, std::vector<size_t>> LiveBySize;
  for (size_t I : Order) {
    const MemoryEvent &E = Events[I];
    DeviceMemory &D = Devices[E.Device];
    if (E.TotalAllocated >= 0)
      D.AllocatorPeak = std::max(D.AllocatorPeak, E.TotalAllocated);
    if (E.Bytes > 0) {
      ++D.Allocations;
      if (E.Address)
        LiveByAddress[{E.Device, E.Address}] = I;
      else
        LiveBySize[{E.Device, E.Bytes}].push_back(I);
      continue;
    }
    if (E.Bytes == 0)
      continue;
    ++D.Frees;
    size_t Alloc = NoEvent;
    if (E.Address) {
      auto It = LiveByAddress.find({E.Device, E.Address});
      if (It != LiveByAddress.end()) {
        Alloc = It->second;
        LiveByAddress.erase(It);
        ++D.PairedByAddress;
      }
    } else {
      auto It = LiveBySize.find({E.Device, -E.Bytes});
      if (It != LiveBySize.end() && !It->second.empty()) {
        Alloc = It->second.back();
        It->second.pop_back();
        ++D.PairedBySize;
      }
    }
    if (Alloc == NoEvent) {
      ++D.UnmatchedFrees;
      D.UnmatchedFreeBytes += -E.Bytes;
      continue;
    }
    AllocOf[I] = Alloc;
    FreeOf[Alloc] = I;
  }

  // The timeline's order: by the times followed, ties in recorded order. A
  // block freed on another thread than it was made on could have its free
  // simulated first; it dies no earlier than it is born.
  std::vector<size_t> ByWhen = Order;
  if (Simulated) {
    for (size_t I : Order)
      if (AllocOf[I] != NoEvent)
        When[I] = std::max(When[I], When[AllocOf[I]]);
    std::stable_sort(ByWhen.begin(), ByWhen.end(),
                     [&](size_t A, size_t B) { return When[A] < When[B]; });
  }

  // Classify blocks (in recorded order: a free after its allocation), then
  // replay the events of each device over the times followed.
  std::vector<MemoryCategory> CategoryOf(Events.size(), MemoryCategory::Other);
  for (size_t I : Order)
    if (Events[I].Bytes > 0)
      CategoryOf[I] = classify(
          Place[I], FreeOf[I] == NoEvent ? nullptr : &Place[FreeOf[I]]);
  // In recorded order: before the trace (the allocator's total at the first
  // event that reports one, less what the trace's own events had added by
  // then), and the recorded peak of live bytes, taken once all events of a
  // time have happened, as the timeline's samples are.
  struct RecordedRun {
    int64_t Net = 0, Live = 0, Time = 0;
    bool Seen = false;
  };
  std::map<int32_t, RecordedRun> Recorded;
  for (size_t I : Order) {
    const MemoryEvent &E = Events[I];
    DeviceMemory &D = Devices[E.Device];
    RecordedRun &Run = Recorded[E.Device];
    Run.Net += E.Bytes;
    if (D.BeforeTraceBytes < 0 && E.TotalAllocated >= 0)
      D.BeforeTraceBytes = std::max<int64_t>(0, E.TotalAllocated - Run.Net);
    if (Run.Seen && Run.Time != E.TimeNs)
      D.RecordedPeakBytes = std::max(D.RecordedPeakBytes, Run.Live);
    Run.Seen = true;
    Run.Time = E.TimeNs;
    if (E.Bytes > 0)
      Run.Live += E.Bytes;
    else if (AllocOf[I] != NoEvent)
      Run.Live -= Events[AllocOf[I]].Bytes;
  }
  for (const auto &[Device, Run] : Recorded)
    Devices[Device].RecordedPeakBytes =
        std::max(Devices[Device].RecordedPeakBytes, Run.Live);
  for (size_t I : ByWhen) {
    const MemoryEvent &E = Events[I];
    DeviceMemory &D = Devices[E.Device];
    if (D.Timeline.empty() || D.Timeline.back().TimeNs != When[I]) {
      MemorySample Next;
      if (!D.Timeline.empty())
        Next.Live = D.Timeline.back().Live;
      Next.TimeNs = When[I];
      D.Timeline.push_back(Next);
    }
    CategoryBytes &Live = D.Timeline.back().Live;
    if (E.Bytes > 0) {
      MemoryCategory C = CategoryOf[I];
      Live[unsigned(C)] += E.Bytes;
      D.AllocatedBytes[unsigned(C)] += E.Bytes;
      ++D.AllocationCount[unsigned(C)];
    } else if (AllocOf[I] != NoEvent) {
      // The allocation's size, so that a category never goes negative even
      // if a free reports another size for the same address.
      size_t A = AllocOf[I];
      Live[unsigned(CategoryOf[A])] -= Events[A].Bytes;
    }
  }

  MemoryBreakdown B;
  for (auto &Entry : Devices) {
    DeviceMemory &D = Entry.second;
    int64_t Best = -1;
    for (size_t S = 0; S != D.Timeline.size(); ++S)
      if (D.Timeline[S].total() > Best) {
        Best = D.Timeline[S].total();
        D.Peak = S;
      }
    if (!D.Timeline.empty())
      D.PeakIteration =
          Simulated
              ? predictedIterationAt(*Simulated, D.Timeline[D.Peak].TimeNs)
              : Iterations.graphIndex(Iterations.at(D.Timeline[D.Peak].TimeNs));
    B.Devices.push_back(std::move(D));
  }
  return B;
}
