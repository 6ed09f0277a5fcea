//===- CriticalPath.cpp - Critical path and slack of a simulated run ------===//
//
// Reads the simulated times back against the model of Simulator.h (see
// CriticalPath.h for the rules). The walk back uses the same incoming
// adjacency as the linear engine, so it costs the path's edges only; the
// slack is one backward pass that pushes each task's latest start to its
// predecessors. Both need each task's lane predecessor in the run, which on
// a ByPriority lane is not the list order, and the backward pass then needs
// an order that respects it: Kahn's algorithm from the sinks provides one.
//
//===----------------------------------------------------------------------===//

#include "Replay.h"

#include "daydream/IR/CanonicalOrder.h"
#include "daydream/IR/Graph.h"
#include "daydream/Sim/CriticalPath.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cassert>
#include <tuple>

using namespace dd;
using namespace dd::sim;

namespace {

class CriticalPathFinder {
public:
  CriticalPathFinder(const Graph &G, const SimResult &R,
                     const CanonicalOrder &C)
      : G(G), R(R), C(C), In(buildAdjacency(G, Direction::Incoming)) {}

  llvm::Expected<CriticalPath> run();

private:
  /// Whether \p A is what a task waited for rather than \p B (NoId: none
  /// yet): the later end, and on a tie the lower id.
  bool later(TaskId A, TaskId B) const {
    return B == NoId || R.End[A] > R.End[B] || (R.End[A] == R.End[B] && A < B);
  }
  bool anyPriorityLane() const {
    return llvm::any_of(G.lanes(), [](const Lane &L) {
      return L.Order == LaneOrder::ByPriority;
    });
  }
  /// The task that ran before \p T on its lane, NoId for the first.
  TaskId lanePrev(TaskId T) const {
    return RunPrev.empty() ? G.prevOnLane(T) : RunPrev[T];
  }
  void findRunOrder();
  llvm::Error orderFromSinks(std::vector<TaskId> &Backward) const;
  template <typename RangeT>
  void computeSlack(const RangeT &Backward, std::vector<int64_t> &Slack) const;
  std::vector<CriticalStep> walkBack() const;

  const Graph &G;
  const SimResult &R;
  const CanonicalOrder &C;
  SplitAdjacency In;
  /// lanePrev() of every task when some lane is ByPriority; empty when list
  /// order is the run order everywhere.
  std::vector<TaskId> RunPrev;
};

} // namespace

void CriticalPathFinder::findRunOrder() {
  RunPrev.assign(G.numTaskSlots(), NoId);
  std::vector<TaskId> Run;
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    Run.clear();
    for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T))
      Run.push_back(T);
    if (G.lane(L).Order == LaneOrder::ByPriority) {
      // The run order. Tasks that start together are zero-length ones ending
      // where the next begins; only the first of them can have a gap, and
      // the canonical order orders the rest as their edges require.
      auto Key = [&](TaskId T) {
        return std::make_tuple(R.Start[T], R.End[T], -G.task(T).GapNs,
                               C.NewId[T]);
      };
      llvm::sort(Run, [&](TaskId A, TaskId B) { return Key(A) < Key(B); });
    }
    for (size_t I = 1; I < Run.size(); ++I)
      RunPrev[Run[I]] = Run[I - 1];
  }
}

llvm::Error
CriticalPathFinder::orderFromSinks(std::vector<TaskId> &Backward) const {
  // Kahn's algorithm on the reversed graph: a task is ready once every task
  // that waits for it (through an edge or as its lane successor) is placed.
  std::vector<uint32_t> Waiting(G.numTaskSlots(), 0);
  for (TaskId T : C.Order) {
    for (uint64_t I = In.orderBegin(T), E = In.end(T); I != E; ++I)
      ++Waiting[In.Adj[I]];
    if (RunPrev[T] != NoId)
      ++Waiting[RunPrev[T]];
  }
  Backward.clear();
  Backward.reserve(C.Order.size());
  for (TaskId T : C.Order)
    if (Waiting[T] == 0)
      Backward.push_back(T);
  auto Release = [&](TaskId P) {
    if (--Waiting[P] == 0)
      Backward.push_back(P);
  };
  for (size_t Next = 0; Next != Backward.size(); ++Next) {
    TaskId T = Backward[Next];
    for (uint64_t I = In.orderBegin(T), E = In.end(T); I != E; ++I)
      Release(In.Adj[I]);
    if (RunPrev[T] != NoId)
      Release(RunPrev[T]);
  }
  if (Backward.size() == C.Order.size())
    return llvm::Error::success();
  // A simulated run respects its own order, so this means R is not a
  // simulation of G.
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "critical path: the simulated lane order contradicts the edges");
}

template <typename RangeT>
void CriticalPathFinder::computeSlack(const RangeT &Backward,
                                      std::vector<int64_t> &Slack) const {
  // Slack holds each task's latest end until the task is visited, then its
  // slack: every task that could tighten the latest end comes earlier in
  // Backward, and none visited later reads it.
  Slack.assign(G.numTaskSlots(), -1);
  const int64_t RunEnd = R.OriginNs + R.MakespanNs;
  for (TaskId T : C.Order)
    Slack[T] = RunEnd;
  auto Tighten = [&](TaskId P, int64_t LatestEnd) {
    Slack[P] = std::min(Slack[P], LatestEnd);
  };
  for (TaskId T : Backward) {
    const Task &Tk = G.task(T);
    const int64_t LatestEnd = Slack[T];
    const int64_t LatestStart = LatestEnd - Tk.DurationNs;
    Slack[T] = LatestStart - R.Start[T];
    // What makes T ready must end its gap before T's latest start; what T
    // synchronizes with must end by T's latest end.
    const int64_t ReadyBy = LatestStart - Tk.GapNs;
    if (TaskId P = lanePrev(T); P != NoId)
      Tighten(P, ReadyBy);
    for (uint64_t I = In.orderBegin(T), E = In.syncBegin(T); I != E; ++I)
      Tighten(In.Adj[I], ReadyBy);
    for (uint64_t I = In.syncBegin(T), E = In.end(T); I != E; ++I)
      Tighten(In.Adj[I], LatestEnd);
  }
}

std::vector<CriticalStep> CriticalPathFinder::walkBack() const {
  std::vector<CriticalStep> Steps;
  TaskId T = NoId;
  for (TaskId U : C.Order)
    if (later(U, T))
      T = U;
  while (T != NoId) {
    const Task &Tk = G.task(T);
    CriticalStep S;
    S.Task = T;
    TaskId P = NoId;
    if (R.End[T] > R.Start[T] + Tk.DurationNs) {
      // Only a Sync predecessor ends a task past its duration.
      for (uint64_t I = In.syncBegin(T), E = In.end(T); I != E; ++I)
        if (later(In.Adj[I], P))
          P = In.Adj[I];
      assert(P != NoId && R.End[P] == R.End[T] && "end not explained");
      S.Blocked = true;
    } else {
      P = lanePrev(T);
      for (uint64_t I = In.orderBegin(T), E = In.syncBegin(T); I != E; ++I)
        if (later(In.Adj[I], P))
          P = In.Adj[I];
      S.WorkNs = Tk.DurationNs;
      // Equal to the task's gap; measured so that the steps add up exactly.
      S.GapNs = R.Start[T] - (P == NoId ? R.OriginNs : R.End[P]);
    }
    Steps.push_back(S);
    T = P;
  }
  std::reverse(Steps.begin(), Steps.end());
  return Steps;
}

llvm::Expected<CriticalPath> CriticalPathFinder::run() {
  if (R.Start.size() != G.numTaskSlots() || R.End.size() != G.numTaskSlots() ||
      C.Order.size() != G.numTasks())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "critical path: the simulation or order is not of this graph");
  CriticalPath P;
  if (anyPriorityLane()) {
    findRunOrder();
    std::vector<TaskId> Backward;
    if (llvm::Error E = orderFromSinks(Backward))
      return std::move(E);
    computeSlack(Backward, P.SlackNs);
  } else {
    // List order is the run order, so the canonical order is topological
    // over everything the backward pass follows.
    computeSlack(llvm::reverse(C.Order), P.SlackNs);
  }
  P.Steps = walkBack();
  return std::move(P);
}

llvm::Expected<CriticalPath> dd::findCriticalPath(const Graph &G,
                                                  const SimResult &R,
                                                  const CanonicalOrder &C) {
  return CriticalPathFinder(G, R, C).run();
}

CriticalPathBreakdown dd::breakDown(const Graph &G, const CriticalPath &P) {
  CriticalPathBreakdown B;
  for (const CriticalStep &S : P.Steps) {
    const Task &Tk = G.task(S.Task);
    B.GapNs += S.GapNs;
    B.ByTaskKind[unsigned(Tk.Kind)] += S.WorkNs;
    B.ByPhase[unsigned(Tk.Phase)] += S.GapNs + S.WorkNs;
    B.ByLaneKind[unsigned(G.lane(Tk.Lane).Kind)] += S.WorkNs;
  }
  return B;
}
