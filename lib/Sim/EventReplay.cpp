//===- EventReplay.cpp - Event-driven replay for ByPriority lanes ---------===//
//
// A ByPriority lane chooses its next task only when it falls idle, among the
// tasks ready at that moment, so its order is known only as time advances.
// This engine therefore replays in time order: a min-heap of events keyed by
// (time, kind, sequence) where a task's own duration running out sorts before
// an idle lane picking its next task at the same instant (all simultaneous
// ends are seen before any pick), and the sequence number makes ties
// deterministic. InOrder lanes take the same formulas as the linear engine,
// so on graphs without ByPriority lanes the two agree exactly.
//
// Per task the engine counts what it still waits for: start predecessors
// (plus the lane predecessor on an InOrder lane) before it may start, and end
// predecessors plus its own duration before it may end. Counters, running
// maxima and the adjacency are flat arrays; only the per-lane ready heaps are
// separate vectors, one per ByPriority lane.
//
//===----------------------------------------------------------------------===//

#include "Replay.h"

#include "daydream/IR/Graph.h"
#include "daydream/Sim/SchedulingPolicy.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <utility>

using namespace dd;
using namespace dd::sim;

namespace {

enum class EventKind : uint8_t {
  /// A task's own duration has elapsed; Id is the task.
  DurationDone = 0,
  /// An idle ByPriority lane picks its next ready task; Id is the lane.
  Dispatch = 1,
};

struct Event {
  int64_t Time;
  EventKind Kind;
  uint64_t Seq;
  uint32_t Id;

  /// Inverted so that std::push_heap keeps the earliest event on top.
  bool operator<(const Event &O) const {
    if (Time != O.Time)
      return Time > O.Time;
    if (Kind != O.Kind)
      return Kind > O.Kind;
    return Seq > O.Seq;
  }
};

/// (priority, task): the smallest pair on a lane runs first.
using ReadyEntry = std::pair<int64_t, TaskId>;

class EventReplay {
public:
  EventReplay(const Graph &G, const SchedulingPolicy *Policy, int64_t T0,
              std::vector<int64_t> &Start, std::vector<int64_t> &End)
      : G(G), Policy(Policy), T0(T0), Now(T0), Start(Start), End(End) {}

  llvm::Error run();

private:
  bool isPriorityLane(LaneId L) const {
    return G.lane(L).Order == LaneOrder::ByPriority;
  }
  void push(int64_t Time, EventKind Kind, uint32_t Id) {
    Events.push_back(Event{Time, Kind, NextSeq++, Id});
    std::push_heap(Events.begin(), Events.end());
  }
  void init();
  void becomeReady(TaskId T);
  void startTask(TaskId T, int64_t At);
  void requestDispatch(LaneId L);
  void dispatch(LaneId L);
  void finish(TaskId T);

  const Graph &G;
  const SchedulingPolicy *Policy;
  const int64_t T0;
  int64_t Now;
  std::vector<int64_t> &Start, &End;

  SplitAdjacency Out;
  /// Start conditions not yet met / end conditions not yet met.
  std::vector<uint32_t> StartWait, EndWait;
  /// Latest end among start predecessors / end predecessors and own duration.
  std::vector<int64_t> PredEndMax, EndMax;
  /// Priority of each task on a ByPriority lane, asked of the policy once.
  std::vector<int64_t> Priority;

  std::vector<int64_t> LaneFree;
  std::vector<uint8_t> LaneBusy, DispatchPending;
  std::vector<std::vector<ReadyEntry>> Ready;

  std::vector<Event> Events;
  uint64_t NextSeq = 0;
  /// Tasks whose last end condition was met, awaiting their finish; a list
  /// rather than recursion because chains of Sync edges can be long.
  std::vector<TaskId> Finished;
};

} // namespace

void EventReplay::init() {
  const size_t N = G.numTaskSlots();
  Out = buildAdjacency(G, Direction::Outgoing);
  Start.assign(N, Unset);
  End.assign(N, Unset);
  StartWait.assign(N, 0);
  EndWait.assign(N, 1); // Its own duration.
  PredEndMax.assign(N, Unset);
  EndMax.assign(N, Unset);

  const size_t NumLanes = G.numLanes();
  LaneFree.assign(NumLanes, T0);
  LaneBusy.assign(NumLanes, 0);
  DispatchPending.assign(NumLanes, 0);
  Ready.resize(NumLanes);

  // In-degrees from the outgoing adjacency: every live edge appears in it
  // exactly once, already split by kind.
  for (TaskId T = 0; T != N; ++T) {
    for (uint64_t I = Out.orderBegin(T), E = Out.syncBegin(T); I != E; ++I)
      ++StartWait[Out.Adj[I]];
    for (uint64_t I = Out.syncBegin(T), E = Out.end(T); I != E; ++I)
      ++EndWait[Out.Adj[I]];
  }

  bool AnyPriorityLane = false;
  for (LaneId L = 0; L != NumLanes; ++L)
    AnyPriorityLane |= isPriorityLane(L);
  assert((!AnyPriorityLane || Policy) && "ByPriority lane without a policy");
  if (AnyPriorityLane)
    Priority.assign(N, 0);
  for (TaskId T = 0; T != N; ++T) {
    if (!G.isLive(T))
      continue;
    LaneId L = G.task(T).Lane;
    if (isPriorityLane(L))
      Priority[T] = Policy->priority(G, T);
    else if (G.prevOnLane(T) != NoId)
      ++StartWait[T];
  }
  Events.reserve(N + NumLanes);
  Finished.reserve(64);
}

void EventReplay::becomeReady(TaskId T) {
  const Task &Tk = G.task(T);
  if (isPriorityLane(Tk.Lane)) {
    std::vector<ReadyEntry> &Heap = Ready[Tk.Lane];
    Heap.push_back({Priority[T], T});
    std::push_heap(Heap.begin(), Heap.end(), std::greater<ReadyEntry>());
    requestDispatch(Tk.Lane);
    return;
  }
  // InOrder: every input of the start formula is known now. The gap counts
  // from the later of the lane falling free and the last start predecessor's
  // end (PredEndMax stays Unset without one).
  TaskId P = G.prevOnLane(T);
  int64_t Free = P == NoId ? T0 : End[P];
  startTask(T, std::max(Free, PredEndMax[T]) + Tk.GapNs);
}

void EventReplay::startTask(TaskId T, int64_t At) {
  Start[T] = At;
  push(At + G.task(T).DurationNs, EventKind::DurationDone, T);
}

void EventReplay::requestDispatch(LaneId L) {
  if (LaneBusy[L] || DispatchPending[L] || Ready[L].empty())
    return;
  DispatchPending[L] = 1;
  push(Now, EventKind::Dispatch, L);
}

void EventReplay::dispatch(LaneId L) {
  DispatchPending[L] = 0;
  std::vector<ReadyEntry> &Heap = Ready[L];
  if (LaneBusy[L] || Heap.empty())
    return;
  std::pop_heap(Heap.begin(), Heap.end(), std::greater<ReadyEntry>());
  TaskId T = Heap.back().second;
  Heap.pop_back();
  LaneBusy[L] = 1;
  // The model's max(now, ready time, lane-free time) + gap: a pick happens
  // only once the task is ready and the lane free, so now is the latest of
  // the three. The lane is held through the gap.
  assert(Now >= LaneFree[L] && Now >= PredEndMax[T] && "picked too early");
  startTask(T, Now + G.task(T).GapNs);
}

void EventReplay::finish(TaskId First) {
  Finished.push_back(First);
  while (!Finished.empty()) {
    TaskId T = Finished.back();
    Finished.pop_back();
    const int64_t E = EndMax[T];
    End[T] = E;

    LaneId L = G.task(T).Lane;
    if (isPriorityLane(L)) {
      LaneBusy[L] = 0;
      LaneFree[L] = E;
      requestDispatch(L);
    } else if (TaskId Next = G.nextOnLane(T);
               Next != NoId && --StartWait[Next] == 0) {
      becomeReady(Next);
    }

    for (uint64_t I = Out.orderBegin(T), IE = Out.syncBegin(T); I != IE; ++I) {
      TaskId S = Out.Adj[I];
      PredEndMax[S] = std::max(PredEndMax[S], E);
      if (--StartWait[S] == 0)
        becomeReady(S);
    }
    for (uint64_t I = Out.syncBegin(T), IE = Out.end(T); I != IE; ++I) {
      TaskId S = Out.Adj[I];
      EndMax[S] = std::max(EndMax[S], E);
      if (--EndWait[S] == 0)
        Finished.push_back(S);
    }
  }
}

llvm::Error EventReplay::run() {
  init();
  for (TaskId T = 0, N = G.numTaskSlots(); T != N; ++T)
    if (G.isLive(T) && StartWait[T] == 0)
      becomeReady(T);

  while (!Events.empty()) {
    std::pop_heap(Events.begin(), Events.end());
    Event Ev = Events.back();
    Events.pop_back();
    Now = Ev.Time;
    if (Ev.Kind == EventKind::Dispatch) {
      dispatch(Ev.Id);
      continue;
    }
    EndMax[Ev.Id] = std::max(EndMax[Ev.Id], Ev.Time);
    if (--EndWait[Ev.Id] == 0)
      finish(Ev.Id);
  }
  return diagnoseDeadlock(G, Out, Start, End);
}

llvm::Error sim::replayEvents(const Graph &G, const SchedulingPolicy *Policy,
                              int64_t T0, std::vector<int64_t> &Start,
                              std::vector<int64_t> &End) {
  return EventReplay(G, Policy, T0, Start, End).run();
}
