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

#include "daydream/IR/DeviceName.h"
#include "daydream/IR/Graph.h"
#include "daydream/Sim/Simulator.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Optional.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <map>
#include <numeric>

using namespace dd;

namespace {

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
      // A task a pass made has modelled times: no recorded event falls
      // in it (a pass names the task of any event it makes).
      if (Wanted[Tk.Lane] && G.isLive(T) && !(Tk.Flags & TF_Synthetic))
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

/// Pairs frees with allocations in recorded order (\p Order), leaving out
/// events with any of \p Skip's flags: Partner[I] is an allocation's free
/// and a free's allocation (NoMemoryEvent if none), PairedBy[I] says how a
/// free was paired (0 not at all, 1 by address, 2 by size).
void pairFrees(const Graph &G, llvm::ArrayRef<size_t> Order, uint8_t Skip,
               std::vector<size_t> &Partner, std::vector<uint8_t> &PairedBy) {
  llvm::ArrayRef<MemoryEvent> Events = G.memoryEvents();
  Partner.assign(Events.size(), NoMemoryEvent);
  PairedBy.assign(Events.size(), 0);
  // The event's allocator: its rank's process (-1 where its lane is not
  // known, or of no rank) and its device, in one key.
  auto Space = [&](const MemoryEvent &E) {
    return uint64_t(uint32_t(memoryEventRank(G, E))) << 32 | uint32_t(E.Device);
  };
  llvm::DenseMap<std::pair<uint64_t, uint64_t>, size_t> LiveByAddress;
  llvm::DenseMap<std::pair<uint64_t, int64_t>, std::vector<size_t>> LiveBySize;
  for (size_t I : Order) {
    const MemoryEvent &E = Events[I];
    if (E.Flags & Skip)
      continue;
    if (E.Bytes > 0) {
      if (E.Address)
        LiveByAddress[{Space(E), E.Address}] = I;
      else
        LiveBySize[{Space(E), E.Bytes}].push_back(I);
      continue;
    }
    if (E.Bytes == 0)
      continue;
    size_t Alloc = NoMemoryEvent;
    if (E.Address) {
      auto It = LiveByAddress.find({Space(E), E.Address});
      if (It != LiveByAddress.end()) {
        Alloc = It->second;
        LiveByAddress.erase(It);
        PairedBy[I] = 1;
      }
    } else {
      auto It = LiveBySize.find({Space(E), -E.Bytes});
      if (It != LiveBySize.end() && !It->second.empty()) {
        Alloc = It->second.back();
        It->second.pop_back();
        PairedBy[I] = 2;
      }
    }
    if (Alloc == NoMemoryEvent)
      continue;
    Partner[I] = Alloc;
    Partner[Alloc] = I;
  }
}

} // namespace

int64_t dd::predictedIterationAt(const SimResult &R, int64_t TimeNs) {
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

int64_t MemorySample::total() const {
  return std::accumulate(Live.begin(), Live.end(), int64_t(0));
}

MemoryEventFacts dd::analyzeMemoryEvents(const Graph &G) {
  llvm::ArrayRef<MemoryEvent> Events = G.memoryEvents();
  MemoryEventFacts F;
  // Graphs read from files are sorted already; passes may have added
  // events out of order.
  F.Order.resize(Events.size());
  std::iota(F.Order.begin(), F.Order.end(), 0);
  auto Earlier = [&](size_t A, size_t B) {
    return Events[A].TimeNs < Events[B].TimeNs;
  };
  if (!std::is_sorted(F.Order.begin(), F.Order.end(), Earlier))
    std::stable_sort(F.Order.begin(), F.Order.end(), Earlier);

  PhaseLookup Phases(G, Events);
  IterationLookup Iterations(G);
  std::vector<EventPlace> Place(Events.size());
  F.Owner.assign(Events.size(), NoId);
  F.OwnerPlace.assign(Events.size(), EventOwnerPlace::None);
  F.Iteration.assign(Events.size(), -1);
  for (size_t I = 0; I != Events.size(); ++I) {
    const MemoryEvent &E = Events[I];
    F.Iteration[I] = Iterations.graphIndex(Iterations.at(E.TimeNs));
    Place[I].Iteration = Iterations.at(E.TimeNs);
    if (E.Task != NoId && E.Task < G.numTaskSlots() && G.isLive(E.Task)) {
      // Named by a pass: at its offset into the task's recorded span, from
      // the task's start to its end.
      const Task &Tk = G.task(E.Task);
      F.Owner[I] = E.Task;
      F.OwnerPlace[I] = EventOwnerPlace::Inside;
      F.OffsetNs.resize(Events.size(), 0);
      F.OffsetNs[I] =
          std::clamp<int64_t>(E.TimeNs - Tk.StartNs, 0, Tk.DurationNs);
      Place[I].Ph = Tk.Phase;
      continue;
    }
    LanePlace At = Phases.placeAt(E.Lane, E.TimeNs, /*PreferNext=*/E.Bytes > 0);
    if (!At.Span)
      continue;
    Place[I].Ph = At.Span->Ph;
    F.Owner[I] = At.Span->Task;
    F.OwnerPlace[I] = At.Where == LanePlace::Before  ? EventOwnerPlace::Before
                      : At.Where == LanePlace::After ? EventOwnerPlace::After
                                                     : EventOwnerPlace::Inside;
    F.OffsetNs.resize(Events.size(), 0);
    F.OffsetNs[I] = E.TimeNs - At.Span->Begin;
  }

  pairFrees(G, F.Order, MEF_Replaced, F.Partner, F.PairedBy);

  // Classify blocks: by a pass's word, else by the rules.
  F.Category.assign(Events.size(), MemoryCategory::Other);
  for (size_t I = 0; I != Events.size(); ++I) {
    const MemoryEvent &E = Events[I];
    if (E.Bytes <= 0)
      continue;
    F.Category[I] = E.Category != CategoryByRule
                        ? MemoryCategory(E.Category)
                        : classify(Place[I], F.Partner[I] == NoMemoryEvent
                                                 ? nullptr
                                                 : &Place[F.Partner[I]]);
  }
  for (size_t I = 0; I != Events.size(); ++I)
    if (Events[I].Bytes < 0 && F.Partner[I] != NoMemoryEvent)
      F.Category[I] = F.Category[F.Partner[I]];
  return F;
}

MemoryBreakdown dd::computeMemoryBreakdown(const Graph &G,
                                           const SimResult *Simulated,
                                           const MemoryEventFacts *Facts) {
  llvm::ArrayRef<MemoryEvent> Events = G.memoryEvents();
  llvm::Optional<MemoryEventFacts> Found;
  if (!Facts)
    Found = analyzeMemoryEvents(G);
  const MemoryEventFacts &F = Facts ? *Facts : *Found;
  const std::vector<size_t> &Order = F.Order;
  IterationLookup Iterations(G);
  // When each event happens in the run followed: recorded, or moved with
  // its task (the header's rules).
  std::vector<int64_t> When(Events.size());
  for (size_t I = 0; I != Events.size(); ++I) {
    When[I] = Events[I].TimeNs;
    if (!Simulated || F.Owner[I] == NoId)
      continue;
    TaskId T = F.Owner[I];
    int64_t Start = Simulated->Start[T], End = Simulated->End[T];
    When[I] = F.OwnerPlace[I] == EventOwnerPlace::Before ? Start
              : F.OwnerPlace[I] == EventOwnerPlace::After
                  ? End
                  : std::min(End, Start + F.OffsetNs[I]);
  }

  // Devices in index order, the host's memory a rank apart (ranks in
  // order); each event's device entry, with its counts.
  using MemoryKey = std::pair<int32_t, int32_t>;
  const bool Job = G.metadata().Ranks.size() > 1;
  auto KeyOf = [&](const MemoryEvent &E) {
    const int32_t Rank = Job && E.Device < 0 ? memoryEventRank(G, E) : -1;
    return MemoryKey{E.Device, Rank};
  };
  std::map<MemoryKey, DeviceMemory> Devices;
  for (size_t I = 0; I != Events.size(); ++I) {
    const MemoryEvent &E = Events[I];
    const MemoryKey Key = KeyOf(E);
    DeviceMemory &D = Devices[Key];
    D.Device = E.Device;
    D.Rank = Key.second;
    if (E.TotalAllocated >= 0 && !(E.Flags & MEF_Modelled))
      D.AllocatorPeak = std::max(D.AllocatorPeak, E.TotalAllocated);
    if (E.Flags & MEF_Replaced)
      continue;
    if (E.Bytes > 0) {
      ++D.Allocations;
      continue;
    }
    if (E.Bytes == 0)
      continue;
    ++D.Frees;
    if (F.PairedBy[I] == 1)
      ++D.PairedByAddress;
    else if (F.PairedBy[I] == 2)
      ++D.PairedBySize;
    else {
      ++D.UnmatchedFrees;
      D.UnmatchedFreeBytes += -E.Bytes;
    }
  }
  // A free's allocation, NoMemoryEvent for allocations and unmatched frees.
  auto AllocOf = [&](size_t I) {
    return Events[I].Bytes < 0 ? F.Partner[I] : NoMemoryEvent;
  };

  // The timeline's order: by the times followed, ties in recorded order. A
  // block freed on another thread than it was made on could have its free
  // simulated first; it dies no earlier than it is born.
  std::vector<size_t> ByWhen = Order;
  if (Simulated) {
    for (size_t I : Order)
      if (AllocOf(I) != NoMemoryEvent)
        When[I] = std::max(When[I], When[AllocOf(I)]);
    std::stable_sort(ByWhen.begin(), ByWhen.end(),
                     [&](size_t A, size_t B) { return When[A] < When[B]; });
  }

  // Replay the events of each device over the times followed.
  const std::vector<MemoryCategory> &CategoryOf = F.Category;
  // In recorded order, over the recorded events only: before the trace
  // (the allocator's total at the first event that reports one, less what
  // the trace's own events had added by then), and the recorded peak of
  // live bytes, taken once all events of a time have happened, as the
  // timeline's samples are. Where a pass replaced events, the recording's
  // blocks pair apart from the what-if's.
  std::vector<size_t> RecordedPartner;
  std::vector<uint8_t> RecordedPairedBy;
  const bool PassMadeEvents =
      llvm::any_of(Events, [](const MemoryEvent &E) { return E.Flags != 0; });
  if (PassMadeEvents)
    pairFrees(G, Order, MEF_Modelled, RecordedPartner, RecordedPairedBy);
  const std::vector<size_t> &RecordedPairs =
      PassMadeEvents ? RecordedPartner : F.Partner;
  struct RecordedRun {
    int64_t Net = 0, Live = 0, Time = 0;
    bool Seen = false;
  };
  std::map<MemoryKey, RecordedRun> Recorded;
  for (size_t I : Order) {
    const MemoryEvent &E = Events[I];
    if (E.Flags & MEF_Modelled)
      continue;
    const MemoryKey Key = KeyOf(E);
    DeviceMemory &D = Devices[Key];
    RecordedRun &Run = Recorded[Key];
    Run.Net += E.Bytes;
    if (D.BeforeTraceBytes < 0 && E.TotalAllocated >= 0)
      D.BeforeTraceBytes = std::max<int64_t>(0, E.TotalAllocated - Run.Net);
    if (Run.Seen && Run.Time != E.TimeNs)
      D.RecordedPeakBytes = std::max(D.RecordedPeakBytes, Run.Live);
    Run.Seen = true;
    Run.Time = E.TimeNs;
    if (E.Bytes > 0)
      Run.Live += E.Bytes;
    else if (RecordedPairs[I] != NoMemoryEvent)
      Run.Live -= Events[RecordedPairs[I]].Bytes;
  }
  for (const auto &[Key, Run] : Recorded)
    Devices[Key].RecordedPeakBytes =
        std::max(Devices[Key].RecordedPeakBytes, Run.Live);
  for (size_t I : ByWhen) {
    const MemoryEvent &E = Events[I];
    if (E.Flags & MEF_Replaced)
      continue;
    DeviceMemory &D = Devices[KeyOf(E)];
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
    } else if (AllocOf(I) != NoMemoryEvent) {
      // The allocation's size, so that a category never goes negative even
      // if a free reports another size for the same address.
      size_t A = AllocOf(I);
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

std::string dd::memoryDeviceName(const Graph &G, const DeviceMemory &D) {
  if (D.Rank >= 0)
    return "host of rank " + std::to_string(D.Rank);
  return deviceName(G, D.Device).str();
}

int32_t dd::memoryEventRank(const Graph &G, const MemoryEvent &E) {
  if (E.Lane != NoId && E.Lane < G.numLanes())
    return G.lane(E.Lane).Rank;
  if (E.Task != NoId && E.Task < G.numTaskSlots() && G.isLive(E.Task))
    return G.lane(G.task(E.Task).Lane).Rank;
  return -1;
}
