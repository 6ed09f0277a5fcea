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
// On a graph the sweep engine accepts (isSweepable(), every graph read from
// a file), descending slot order is that backward order and each task's
// outgoing edges sit together in the source-sorted edge array, so the slack
// pulls from successors instead, and the same sweep notes, for every task,
// the predecessor the walk back will want (its decider). No adjacency is
// built: one array of a task id instead of three plus one of an edge.
//
//===----------------------------------------------------------------------===//

#include "Replay.h"

#include "Support/FreshMemory.h"
#include "daydream/IR/CanonicalOrder.h"
#include "daydream/IR/Graph.h"
#include "daydream/Sim/CriticalPath.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

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
      : G(G), R(R), C(C) {}

  llvm::Expected<CriticalPath> run();

private:
  /// Whether \p A is what a task waited for rather than \p B (NoId: none
  /// yet): the later end, and on a tie the lower tieKey().
  bool later(TaskId A, TaskId B) const {
    return B == NoId || R.End[A] > R.End[B] ||
           (R.End[A] == R.End[B] &&
            tieKey(G.task(A).Lane, A) < tieKey(G.task(B).Lane, B));
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
  void sweepBackward(std::vector<int64_t> &Slack,
                     std::vector<TaskId> &Decider) const;
  std::vector<CriticalStep>
  walkBackDecided(llvm::ArrayRef<TaskId> Decider) const;
  /// The predecessor the walk back takes from \p T, given its decider.
  TaskId stepBack(TaskId T, TaskId Decider) const {
    if (blocked(T)) {
      assert(Decider != NoId && R.End[Decider] == R.End[T] &&
             "end not explained");
      return Decider;
    }
    TaskId L = G.prevOnLane(T);
    return L != NoId && (Decider == NoId || later(L, Decider)) ? L : Decider;
  }

public:
  /// summarizeCriticalPath() on a graph the sweeps accept; None otherwise.
  llvm::Optional<CriticalPathSummary> summarizeSwept() const;
  /// run() on a graph the sweeps accept, which reads no order; None
  /// otherwise.
  llvm::Optional<CriticalPath> runSwept() const;

private:
  /// Whether \p T ended past its duration, held by a Sync predecessor.
  bool blocked(TaskId T) const {
    return R.End[T] > R.Start[T] + G.task(T).DurationNs;
  }
  /// The task a walk back starts from: the one that ends last.
  template <typename RangeT> TaskId lastToEnd(const RangeT &Tasks) const {
    TaskId T = NoId;
    for (TaskId U : Tasks)
      if (later(U, T))
        T = U;
    return T;
  }

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
  TaskId T = lastToEnd(C.Order);
  while (T != NoId) {
    const Task &Tk = G.task(T);
    CriticalStep S;
    S.Task = T;
    TaskId P = NoId;
    if (blocked(T)) {
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

void CriticalPathFinder::sweepBackward(std::vector<int64_t> &Slack,
                                       std::vector<TaskId> &Decider) const {
  // Visited in descending ids, a task's successors (lane successor, edge
  // destinations: all higher ids) already hold their slack, from which
  // their latest start is recovered; the task's latest end is the tightest
  // bound they put on it, exactly the minimum computeSlack() pushes.
  const size_t N = G.numTaskSlots();
  Slack.clear();
  assignFresh(Slack, N, int64_t(0));
  assignFresh(Decider, N, NoId);
  const int64_t RunEnd = R.OriginNs + R.MakespanNs;
  const Task *Tasks = G.taskSlots().data();
  const Edge *const First = G.edgeSlots().data();
  const Edge *Cur = First + G.edgeSlots().size();
  auto LatestStart = [&](TaskId S) { return Slack[S] + R.Start[S]; };
  for (TaskId T = N; T-- != 0;) {
    int64_t LatestEnd = RunEnd;
    if (TaskId Nx = G.nextOnLane(T); Nx != NoId)
      LatestEnd = std::min(LatestEnd, LatestStart(Nx) - Tasks[Nx].GapNs);
    for (; Cur != First && Cur[-1].Src == T; --Cur) {
      const TaskId D = Cur[-1].Dst;
      const bool Sync = Cur[-1].Kind == EdgeKind::Sync;
      LatestEnd =
          std::min(LatestEnd, Sync ? LatestStart(D) + Tasks[D].DurationNs
                                   : LatestStart(D) - Tasks[D].GapNs);
      // A blocked task was ended by a Sync predecessor, any other started
      // after a start predecessor (or its lane predecessor, added by the
      // walk): T can decide D only through an edge of the matching kind.
      if (Sync == blocked(D) && later(T, Decider[D]))
        Decider[D] = T;
    }
    Slack[T] = LatestEnd - Tasks[T].DurationNs - R.Start[T];
  }
}

std::vector<CriticalStep>
CriticalPathFinder::walkBackDecided(llvm::ArrayRef<TaskId> Decider) const {
  // walkBack() with each task's latest-ending predecessor of the deciding
  // kind already known; later() is a strict total order, so taking the
  // later of the lane predecessor and that one picks what walkBack() picks.
  // The walk keeps task ids only; the steps, a path being up to half of the
  // graph, are then written once at their final size, first to last.
  std::vector<TaskId> Back;
  const TaskId N = G.numTaskSlots();
  for (TaskId T = lastToEnd(llvm::seq(TaskId(0), N)); T != NoId;
       T = stepBack(T, Decider[T]))
    Back.push_back(T);
  std::vector<CriticalStep> Steps(Back.size());
  TaskId P = NoId;
  for (size_t I = 0; I != Steps.size(); ++I) {
    const TaskId T = Back[Back.size() - 1 - I];
    CriticalStep &S = Steps[I];
    S.Task = T;
    if (blocked(T)) {
      S.Blocked = true;
    } else {
      S.WorkNs = G.task(T).DurationNs;
      S.GapNs = R.Start[T] - (P == NoId ? R.OriginNs : R.End[P]);
    }
    P = T;
  }
  return Steps;
}

llvm::Optional<CriticalPathSummary> CriticalPathFinder::summarizeSwept() const {
  if (anyPriorityLane() || !isSweepable(G))
    return llvm::None;
  // The deciders alone, from one pass over the edges: sweepBackward()'s
  // choice without the slack it computes on the way.
  const size_t N = G.numTaskSlots();
  std::vector<TaskId> Decider;
  assignFresh(Decider, N, NoId);
  for (const Edge &E : G.edgeSlots())
    if ((E.Kind == EdgeKind::Sync) == blocked(E.Dst) &&
        later(E.Src, Decider[E.Dst]))
      Decider[E.Dst] = E.Src;
  // Walking back, each step's gap is measured from the end of the one
  // before it, which is where the walk goes next.
  std::vector<LaneKind> LaneKinds;
  for (const Lane &L : G.lanes())
    LaneKinds.push_back(L.Kind);
  CriticalPathSummary Sum;
  for (TaskId T = lastToEnd(llvm::seq(TaskId(0), TaskId(N))); T != NoId;) {
    const TaskId P = stepBack(T, Decider[T]);
    CriticalStep S;
    if (blocked(T)) {
      S.Blocked = true;
    } else {
      S.WorkNs = G.task(T).DurationNs;
      S.GapNs = R.Start[T] - (P == NoId ? R.OriginNs : R.End[P]);
    }
    addStep(Sum.Time, S, G.task(T), LaneKinds[G.task(T).Lane]);
    ++Sum.NumSteps;
    T = P;
  }
  return Sum;
}

llvm::Optional<CriticalPath> CriticalPathFinder::runSwept() const {
  if (anyPriorityLane() || !isSweepable(G))
    return llvm::None;
  CriticalPath P;
  std::vector<TaskId> Decider;
  sweepBackward(P.SlackNs, Decider);
  P.Steps = walkBackDecided(Decider);
  return P;
}

llvm::Expected<CriticalPath> CriticalPathFinder::run() {
  if (R.Start.size() != G.numTaskSlots() || R.End.size() != G.numTaskSlots() ||
      C.Order.size() != G.numTasks())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "critical path: the simulation or order is not of this graph");
  if (llvm::Optional<CriticalPath> Swept = runSwept())
    return std::move(*Swept);
  CriticalPath P;
  In = buildAdjacency(G, Direction::Incoming);
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

llvm::Expected<CriticalPath> dd::findCriticalPath(const Graph &G,
                                                  const SimResult &R,
                                                  const CanonicalOrder *C) {
  if (C)
    return findCriticalPath(G, R, *C);
  if (R.Start.size() != G.numTaskSlots() || R.End.size() != G.numTaskSlots())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "critical path: the simulation is not of this graph");
  // The swept path reads no order; an empty one stands in.
  CanonicalOrder None;
  if (auto P = CriticalPathFinder(G, R, None).runSwept())
    return std::move(*P);
  llvm::Expected<CanonicalOrder> O = computeCanonicalOrder(G);
  if (!O)
    return O.takeError();
  return findCriticalPath(G, R, *O);
}

CriticalPathBreakdown dd::breakDown(const Graph &G, const CriticalPath &P) {
  CriticalPathBreakdown B;
  for (const CriticalStep &S : P.Steps) {
    const Task &Tk = G.task(S.Task);
    addStep(B, S, Tk, G.lane(Tk.Lane).Kind);
  }
  return B;
}

llvm::Expected<CriticalPathSummary>
dd::summarizeCriticalPath(const Graph &G, const SimResult &R,
                          const CanonicalOrder *C) {
  if (R.Start.size() != G.numTaskSlots() || R.End.size() != G.numTaskSlots())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "critical path: the simulation is not of this graph");
  // The swept summary reads no order; an empty one stands in.
  CanonicalOrder None;
  if (auto Sum = CriticalPathFinder(G, R, C ? *C : None).summarizeSwept())
    return *Sum;
  llvm::Optional<CanonicalOrder> Own;
  if (!C) {
    llvm::Expected<CanonicalOrder> O = computeCanonicalOrder(G);
    if (!O)
      return O.takeError();
    Own = std::move(*O);
    C = &*Own;
  }
  llvm::Expected<CriticalPath> P = findCriticalPath(G, R, *C);
  if (!P)
    return P.takeError();
  return CriticalPathSummary{breakDown(G, *P), P->Steps.size()};
}
