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
// A graph whose slot order is already such an order (every graph read from a
// file) takes the sweep engine instead: the same formulas, but each task
// pushes its end to its successors, which the source-sorted edge array lists
// next to each other. It needs no incoming adjacency, whose construction
// (three arrays and two scattered passes over the edges) cost more than the
// replay itself. It also checks as it goes that the graph is laid out so,
// and credits each task to its lane and iteration while the task is in the
// cache (Summary.cpp): a separate pass for either read the whole task or
// edge array once more, which cost as much as the replay.
//
//===----------------------------------------------------------------------===//

#include "Replay.h"
#include "Sweep.h"

#include "Support/FreshMemory.h"
#include "daydream/IR/Graph.h"

#include "llvm/ADT/Optional.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <limits>

using namespace dd;
using namespace dd::sim;

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
    if (T >= N || !G.isLive(T))
      return badOrderEntry(G, T);
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

bool sim::isSweepable(const Graph &G) {
  const size_t N = G.numTaskSlots();
  if (G.numTasks() != N)
    return false;
  for (TaskId T = 0; !G.lanesFollowSlotOrder() && T != N; ++T) {
    TaskId P = G.prevOnLane(T);
    if (P != NoId && P >= T)
      return false;
  }
  TaskId LastSrc = 0;
  for (const Edge &E : G.edgeSlots()) {
    if (E.Src < LastSrc || E.Dst <= E.Src)
      return false;
    LastSrc = E.Src;
  }
  return true;
}

namespace {
/// Every task's start and end in two arrays (SimResult's).
struct FullStore {
  static constexpr bool EdgesChecked = false;
  int64_t *S;
  int64_t *E;
  int64_t startBound(TaskId T) const { return S[T]; }
  int64_t endBound(TaskId T) const { return E[T]; }
  void push(TaskId, const Edge &Ed, int64_t En) {
    int64_t &Bound = Ed.Kind == EdgeKind::Sync ? E[Ed.Dst] : S[Ed.Dst];
    Bound = std::max(Bound, En);
  }
  /// Where the graph's lanes follow slot order, a task's lane predecessor
  /// is its lane's last task visited, and its links need not be built.
  bool laneFree(const Graph &G, TaskId T, LaneId L, int64_t &St) const {
    const TaskId P = SlotOrderLanes ? LaneLast[L] : G.prevOnLane(T);
    if (P != NoId) {
      if (P >= T) // a lane out of slot order
        return false;
      St = std::max(St, E[P]);
    }
    return true;
  }
  void visit(TaskId T, const Task &Tk, int64_t St, int64_t En) {
    S[T] = St;
    E[T] = En;
    LaneLast[Tk.Lane] = T;
  }
  /// Per lane: its last task visited.
  TaskId *LaneLast;
  bool SlotOrderLanes;
};
} // namespace

bool sim::replaySweep(const Graph &G, SimResult &R, bool LanesAndIterations) {
  const size_t N = G.numTaskSlots();
  if (G.numTasks() != N)
    return false;
  // Times are computed from 0 and shifted by the origin at the end: every
  // formula is a max of sums, so shifting every time by T0 commutes with it,
  // and the origin is then found in the same sweep over the tasks. Until a
  // task is visited, Start holds the latest end among its start predecessors
  // so far (0, the origin, if none) and End the latest among its Sync
  // predecessors.
  // Sixteen bytes a task of fresh memory, prefaulted (FreshMemory.h).
  assignFresh(R.Start, N, int64_t(0));
  assignFresh(R.End, N, Unset);
  llvm::Optional<SummaryBuilder> Summary;
  int64_t T0 = std::numeric_limits<int64_t>::max();
  int64_t MaxEnd = 0; // times run from 0 here
  std::vector<TaskId> LaneLast(G.numLanes(), NoId);
  FullStore Store{R.Start.data(), R.End.data(), LaneLast.data(),
                  G.lanesFollowSlotOrder()};
  if (LanesAndIterations) {
    Summary.emplace(G, R);
    if (!sweepTasks<true>(G, Store, &*Summary, T0, MaxEnd))
      return false;
  } else if (!sweepTasks<false>(G, Store, nullptr, T0, MaxEnd)) {
    return false;
  }
  R.OriginNs = N == 0 ? 0 : T0;
  int64_t *S = R.Start.data();
  int64_t *E = R.End.data();
  if (N != 0)
    for (size_t T = 0; T != N; ++T) {
      S[T] += T0;
      E[T] += T0;
    }
  if (Summary)
    Summary->finish(R.OriginNs);
  else
    R.MakespanNs = MaxEnd;
  return true;
}
