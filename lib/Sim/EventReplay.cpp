//===- EventReplay.cpp - Event-driven replay for ByPriority lanes ---------===//
//
// A ByPriority lane chooses its next task only when it falls idle, among the
// tasks ready at that moment, so its order is known only as time advances.
// This engine therefore replays in time order, popping events from a queue
// (EventQueue.h) where a task's own duration running out sorts before an idle
// lane picking its next task at the same instant (all simultaneous ends are
// seen before any pick), and push order breaks the remaining ties. InOrder
// lanes take the same formulas as the linear engine, so on graphs without
// ByPriority lanes the two agree exactly.
//
// Per task the engine counts what it still waits for: start predecessors
// (plus the lane predecessor on an InOrder lane) before it may start, and end
// predecessors plus its own duration before it may end. Until a task starts,
// its Start slot holds the latest end among its start predecessors so far,
// and until it ends, its End slot the latest among its end predecessors and
// its own duration: the output arrays double as the running maxima, which
// saves two arrays of eight bytes a task and the page faults that come with
// them. Every graph read from a file has its edges grouped by source already
// (SourceEdges.h), so the engine walks the graph's own edge array.
//
// The order in which the engine does things is part of its result: pushes
// number the events, and among picks at one instant the sequence decides
// which lane picks first, which matters when a picked task takes no time.
// So successors are visited in the order the engine always used (start
// successors, then Sync ones, each last edge first) and must stay so.
//
//===----------------------------------------------------------------------===//

#include "EventQueue.h"
#include "Replay.h"
#include "SourceEdges.h"

#include "daydream/IR/Graph.h"
#include "daydream/Sim/SchedulingPolicy.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <utility>

using namespace dd;
using namespace dd::sim;

namespace {

/// (priority, task): the smallest pair on a lane runs first.
using ReadyEntry = std::pair<int64_t, TaskId>;

/// What a task still waits for; one slot so that both counts share a line.
struct Waits {
  uint32_t Start = 0;
  uint32_t End = 1; // Its own duration.
};

class EventReplay {
public:
  EventReplay(const Graph &G, const SchedulingPolicy *Policy, int64_t T0,
              std::vector<int64_t> &Start, std::vector<int64_t> &End)
      : G(G), Tasks(G.taskSlots().data()), Policy(Policy), T0(T0), Now(T0),
        Start(Start), End(End) {}

  llvm::Error run();

private:
  llvm::Error init();
  void becomeReady(TaskId T);
  void startInOrder(TaskId T, int64_t Free) {
    startTask(T, std::max(Free, Start[T]) + Tasks[T].GapNs);
  }
  void startTask(TaskId T, int64_t At) {
    Start[T] = At;
    Events.push(At + Tasks[T].DurationNs, EventKind::DurationDone, T);
  }
  void requestDispatch(LaneId L);
  void dispatch(LaneId L);
  void finish(TaskId T);
  void finishOne(TaskId T);
  llvm::Error explainUnfinished();

  const Graph &G;
  const Task *const Tasks;
  const SchedulingPolicy *Policy;
  const int64_t T0;
  int64_t Now;
  std::vector<int64_t> &Start, &End;

  SourceEdges Out;
  const Edge *Edges = nullptr; // Out.edges(), read once per finished task.
  std::vector<Waits> Wait;
  size_t NumEnded = 0;

  std::vector<uint8_t> IsPriority;
  std::vector<int64_t> LaneFree;
  std::vector<uint8_t> LaneBusy, DispatchPending;
  std::vector<std::vector<ReadyEntry>> Ready;

  EventQueue Events;
  /// Tasks whose last end condition was met, awaiting their finish; a list
  /// rather than recursion because chains of Sync edges can be long.
  std::vector<TaskId> Finished;
};

} // namespace

llvm::Error EventReplay::init() {
  const size_t N = G.numTaskSlots();
  llvm::Expected<SourceEdges> Grouped = groupEdgesBySource(G);
  if (!Grouped)
    return Grouped.takeError();
  Out = std::move(*Grouped);
  Edges = Out.edges().data();
  Start.assign(N, Unset);
  End.assign(N, Unset);
  Wait.assign(N, Waits());
  for (const Edge &E : Out.edges()) {
    Waits &W = Wait[E.Dst];
    if (E.Kind == EdgeKind::Sync)
      ++W.End;
    else
      ++W.Start;
  }

  const size_t NumLanes = G.numLanes();
  IsPriority.resize(NumLanes);
  bool AnyPriorityLane = false;
  for (LaneId L = 0; L != NumLanes; ++L) {
    IsPriority[L] = G.lane(L).Order == LaneOrder::ByPriority;
    AnyPriorityLane |= IsPriority[L];
  }
  (void)AnyPriorityLane;
  assert((!AnyPriorityLane || Policy) && "ByPriority lane without a policy");
  LaneFree.assign(NumLanes, T0);
  LaneBusy.assign(NumLanes, 0);
  DispatchPending.assign(NumLanes, 0);
  Ready.resize(NumLanes);
  Events.reserve(NumLanes + 16);
  Finished.reserve(64);
  return llvm::Error::success();
}

void EventReplay::becomeReady(TaskId T) {
  const Task &Tk = Tasks[T];
  if (IsPriority[Tk.Lane]) {
    // Asked once per task, as the policy's contract says, but only when the
    // task is ready, so no array of priorities for every task is needed.
    std::vector<ReadyEntry> &Heap = Ready[Tk.Lane];
    Heap.push_back({Policy->priority(G, T), T});
    std::push_heap(Heap.begin(), Heap.end(), std::greater<ReadyEntry>());
    requestDispatch(Tk.Lane);
    return;
  }
  // InOrder: every input of the start formula is known now. The gap counts
  // from the later of the lane falling free and the last start predecessor's
  // end (Start[T] holds it, Unset without one).
  TaskId P = G.prevOnLane(T);
  startInOrder(T, P == NoId ? T0 : End[P]);
}

void EventReplay::requestDispatch(LaneId L) {
  if (LaneBusy[L] || DispatchPending[L] || Ready[L].empty())
    return;
  DispatchPending[L] = 1;
  Events.push(Now, EventKind::Dispatch, L);
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
  assert(Now >= LaneFree[L] && Now >= Start[T] && "picked too early");
  startTask(T, Now + Tasks[T].GapNs);
}

/// Passes on the end of \p T, which End[T] already holds.
void EventReplay::finishOne(TaskId T) {
  const int64_t E = End[T];
  ++NumEnded;
  LaneId L = Tasks[T].Lane;
  if (IsPriority[L]) {
    LaneBusy[L] = 0;
    LaneFree[L] = E;
    requestDispatch(L);
  } else if (TaskId Next = G.nextOnLane(T);
             Next != NoId && --Wait[Next].Start == 0) {
    startInOrder(Next, E); // becomeReady(Next), knowing its lane's free time.
  }

  const Edge *const First = Edges + Out.Begin[T];
  const Edge *const Last = Edges + Out.Begin[T + 1];
  bool AnySync = false;
  for (const Edge *I = Last; I != First;) {
    --I;
    if (I->Kind == EdgeKind::Sync) {
      AnySync = true;
      continue;
    }
    TaskId S = I->Dst;
    Start[S] = std::max(Start[S], E);
    if (--Wait[S].Start == 0)
      becomeReady(S);
  }
  if (!AnySync)
    return;
  for (const Edge *I = Last; I != First;) {
    --I;
    if (I->Kind != EdgeKind::Sync)
      continue;
    TaskId S = I->Dst;
    End[S] = std::max(End[S], E);
    if (--Wait[S].End == 0)
      Finished.push_back(S);
  }
}

void EventReplay::finish(TaskId T) {
  finishOne(T);
  while (!Finished.empty()) {
    T = Finished.back();
    Finished.pop_back();
    finishOne(T);
  }
}

llvm::Error EventReplay::run() {
  if (llvm::Error Err = init())
    return Err;
  // An InOrder task also waits for its lane predecessor. Counting that for
  // every task with a predecessor and taking it back on the few ByPriority
  // lanes first (unsigned, so a count may wrap below zero in between) spares
  // the scan below a read of every task's lane, which at 48 bytes a task is
  // most of the memory it would touch. Nothing ends during the scan, so
  // counting a task's predecessor when the scan reaches it is the same as
  // counting it beforehand.
  for (LaneId L = 0; L != G.numLanes(); ++L)
    if (IsPriority[L])
      for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T))
        if (T != G.laneHead(L))
          --Wait[T].Start;
  const bool AllLive = G.numTasks() == G.numTaskSlots();
  for (TaskId T = 0, N = G.numTaskSlots(); T != N; ++T) {
    if (!AllLive && !G.isLive(T))
      continue;
    if (G.prevOnLane(T) != NoId)
      ++Wait[T].Start;
    if (Wait[T].Start == 0)
      becomeReady(T);
  }

  while (!Events.empty()) {
    Event Ev = Events.pop();
    Now = Ev.Time;
    if (Ev.kind() == EventKind::Dispatch) {
      dispatch(Ev.Id);
      continue;
    }
    End[Ev.Id] = std::max(End[Ev.Id], Ev.Time);
    if (--Wait[Ev.Id].End == 0)
      finish(Ev.Id);
  }
  if (NumEnded == G.numTasks())
    return llvm::Error::success();
  return explainUnfinished();
}

/// The error path: turns the running maxima of tasks that never started or
/// never ended back into Unset, which is what diagnoseDeadlock() reads.
llvm::Error EventReplay::explainUnfinished() {
  // A task on a ByPriority lane whose wait for its predecessors is over but
  // that is still queued never started either.
  for (const std::vector<ReadyEntry> &Heap : Ready)
    for (const ReadyEntry &R : Heap)
      Start[R.second] = Unset;
  for (TaskId T = 0, N = G.numTaskSlots(); T != N; ++T) {
    if (!G.isLive(T))
      continue;
    if (Wait[T].Start != 0)
      Start[T] = Unset;
    if (Wait[T].End != 0)
      End[T] = Unset;
  }
  return diagnoseDeadlock(G, buildAdjacency(G, Direction::Outgoing), Start,
                          End);
}

llvm::Error sim::replayEvents(const Graph &G, const SchedulingPolicy *Policy,
                              int64_t T0, std::vector<int64_t> &Start,
                              std::vector<int64_t> &End) {
  return EventReplay(G, Policy, T0, Start, End).run();
}
