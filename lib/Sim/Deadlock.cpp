//===- Deadlock.cpp - Why an event-driven replay got stuck ----------------===//
//
// The event-driven engine stops when no event is left; a live task without an
// end time then means the replay deadlocked. Only the error path runs this,
// so it favours a precise message over speed. Two causes exist. A cycle
// through edges and InOrder lane order is one; ByPriority list order is no
// constraint, so a cycle through it is not, which is why this file checks for
// cycles itself before asking computeCanonicalOrder (which counts every lane's
// order) to name one. The other is a task that started on a lane and then
// waits through a Sync edge for a task that can never run, typically one
// queued behind it on the same ByPriority lane.
//
//===----------------------------------------------------------------------===//

#include "Replay.h"

#include "daydream/IR/CanonicalOrder.h"
#include "daydream/IR/Graph.h"

#include <string>

using namespace dd;
using namespace dd::sim;

/// Kahn's algorithm over edges and the order of InOrder lanes only.
static bool hasDependencyCycle(const Graph &G, const SplitAdjacency &Out) {
  const size_t N = G.numTaskSlots();
  auto InOrderNext = [&](TaskId T) {
    return G.lane(G.task(T).Lane).Order == LaneOrder::InOrder ? G.nextOnLane(T)
                                                              : NoId;
  };
  std::vector<uint32_t> InDeg(N, 0);
  for (TaskId T = 0; T != N; ++T) {
    if (!G.isLive(T))
      continue;
    for (uint64_t I = Out.orderBegin(T), E = Out.end(T); I != E; ++I)
      ++InDeg[Out.Adj[I]];
    if (TaskId Next = InOrderNext(T); Next != NoId)
      ++InDeg[Next];
  }
  std::vector<TaskId> Ready;
  for (TaskId T = 0; T != N; ++T)
    if (G.isLive(T) && InDeg[T] == 0)
      Ready.push_back(T);
  size_t Done = 0;
  while (!Ready.empty()) {
    TaskId T = Ready.back();
    Ready.pop_back();
    ++Done;
    for (uint64_t I = Out.orderBegin(T), E = Out.end(T); I != E; ++I)
      if (--InDeg[Out.Adj[I]] == 0)
        Ready.push_back(Out.Adj[I]);
    if (TaskId Next = InOrderNext(T); Next != NoId && --InDeg[Next] == 0)
      Ready.push_back(Next);
  }
  return Done != G.numTasks();
}

/// The first task that started but never ended, preferring one on a
/// ByPriority lane (holders elsewhere only wait on such a one); NoId if none.
static TaskId findHolder(const Graph &G, llvm::ArrayRef<int64_t> Start,
                         llvm::ArrayRef<int64_t> End) {
  TaskId Holder = NoId;
  for (TaskId T = 0, N = G.numTaskSlots(); T != N; ++T) {
    if (!G.isLive(T) || Start[T] == Unset || End[T] != Unset)
      continue;
    if (G.lane(G.task(T).Lane).Order == LaneOrder::ByPriority)
      return T;
    if (Holder == NoId)
      Holder = T;
  }
  return Holder;
}

static llvm::Error holderError(const Graph &G, TaskId Holder,
                               llvm::ArrayRef<int64_t> End) {
  TaskId Awaited = NoId;
  for (const Edge &E : G.edgeSlots())
    if (E.Dst == Holder && E.Kind == EdgeKind::Sync && G.isLive(E) &&
        End[E.Src] == Unset)
      Awaited = E.Src;
  LaneId L = G.task(Holder).Lane;
  StrId LaneName = G.lane(L).Name;
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "simulation deadlocked: " + describeTask(G, Holder) + " holds lane " +
          (LaneName == NoId ? "#" + std::to_string(L)
                            : "'" + G.str(LaneName).str() + "'") +
          " while it waits through a Sync edge for " +
          (Awaited == NoId ? std::string("a task") : describeTask(G, Awaited)) +
          ", which never ends");
}

llvm::Error sim::diagnoseDeadlock(const Graph &G, const SplitAdjacency &Out,
                                  llvm::ArrayRef<int64_t> Start,
                                  llvm::ArrayRef<int64_t> End) {
  TaskId Stuck = NoId;
  for (TaskId T = 0, N = G.numTaskSlots(); T != N && Stuck == NoId; ++T)
    if (G.isLive(T) && End[T] == Unset)
      Stuck = T;
  if (Stuck == NoId)
    return llvm::Error::success();

  if (hasDependencyCycle(G, Out)) {
    // The canonical order's constraints include ours, so it fails too.
    llvm::Expected<CanonicalOrder> C = computeCanonicalOrder(G);
    if (!C)
      return C.takeError();
  }
  if (TaskId Holder = findHolder(G, Start, End); Holder != NoId)
    return holderError(G, Holder, End);
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "simulation deadlocked: " + describeTask(G, Stuck) +
          " could never start");
}
