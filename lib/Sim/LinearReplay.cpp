//===- LinearReplay.cpp - One-pass replay of all-InOrder graphs -----------===//
//
// When every lane runs in list order, a task's start and end depend only on
// its lane predecessor and its edge predecessors, so visiting tasks in a
// topological order (edges and lane order together) computes every time
// exactly once: O(V+E), no heap, no allocation inside the loop. This is the
// simulator's hot path; it reads flat arrays only.
//
// The order may come from the caller, so the loop also proves it is
// topological as it goes: every time it reads must already be computed. That
// costs one well-predicted compare per edge and turns a stale order into an
// error instead of silently wrong times.
//
//===----------------------------------------------------------------------===//

#include "Replay.h"

#include "daydream/IR/Graph.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>

using namespace dd;
using namespace dd::sim;

static llvm::Error notTopological(const Graph &G, TaskId T,
                                  const llvm::Twine &Why) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "simulation order is not a topological order of the live tasks: " +
          llvm::Twine(describeTask(G, T)) + " " + Why);
}

static llvm::Error predecessorAfter(const Graph &G, TaskId T, TaskId P) {
  return notTopological(G, T,
                        "comes before its predecessor " + describeTask(G, P));
}

llvm::Error sim::replayLinear(const Graph &G, llvm::ArrayRef<TaskId> Order,
                              int64_t T0, std::vector<int64_t> &Start,
                              std::vector<int64_t> &End) {
  const size_t N = G.numTaskSlots();
  if (Order.size() != G.numTasks())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "simulation order lists %zu tasks but the graph has %zu live tasks",
        Order.size(), G.numTasks());

  SplitAdjacency In = buildAdjacency(G, Direction::Incoming);
  Start.assign(N, Unset);
  End.assign(N, Unset);

  const Task *Tasks = G.taskSlots().data();
  const uint64_t *Off = In.Off.data();
  const uint32_t *NumOrder = In.NumOrder.data();
  const TaskId *Adj = In.Adj.data();
  int64_t *S = Start.data();
  int64_t *E = End.data();

  for (TaskId T : Order) {
    // With Order.size() == numTasks(), rejecting dead and repeated entries
    // also guarantees that every live task is visited.
    if (T >= N)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "simulation order lists task %u, but "
                                     "the graph has only %zu task slots",
                                     T, N);
    if (!G.isLive(T))
      return notTopological(G, T, "is dead");
    if (E[T] != Unset)
      return notTopological(G, T, "is listed twice");

    const Task &Tk = Tasks[T];
    int64_t Free = T0;
    if (TaskId P = G.prevOnLane(T); P != NoId) {
      Free = E[P];
      if (Free == Unset)
        return predecessorAfter(G, T, P);
    }

    // The gap counts from when the task is ready: after the lane falls free
    // and after every start predecessor has ended.
    int64_t St = Free;
    uint64_t I = Off[T];
    const uint64_t Mid = I + NumOrder[T], Last = Off[T + 1];
    for (; I != Mid; ++I) {
      int64_t PredEnd = E[Adj[I]];
      if (PredEnd == Unset)
        return predecessorAfter(G, T, Adj[I]);
      St = std::max(St, PredEnd);
    }
    St += Tk.GapNs;

    int64_t En = St + Tk.DurationNs;
    for (; I != Last; ++I) {
      int64_t PredEnd = E[Adj[I]];
      if (PredEnd == Unset)
        return predecessorAfter(G, T, Adj[I]);
      En = std::max(En, PredEnd);
    }

    S[T] = St;
    E[T] = En;
  }
  return llvm::Error::success();
}
