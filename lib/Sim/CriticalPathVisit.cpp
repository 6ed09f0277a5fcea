//===- CriticalPathVisit.cpp - Critical path and slack, handed over -------===//
//
// visitCriticalPath() finds what findCriticalPath() finds, but hands the
// steps and the slack to a visitor instead of keeping them: on a graph of a
// few million tasks the path's steps and the slack array are hundreds of
// megabytes of fresh memory, which on a virtual machine costs more than the
// sweeps that fill them.
//
// On a graph laid out as a file holds it (every task live, each lane's list
// and every edge going to higher ids, edges sorted by source: the layout
// CriticalPath.cpp's swept path takes), with every lane InOrder, it takes
// two sweeps over slot order. Forward, it notes each task's step back (its
// decider, unless it was blocked: the later-ending of its lane predecessor
// and its latest-ending start predecessor through an edge), the Sync edges,
// for the few tasks that were, and the task that ends last, checking the
// layout on the way. Lane predecessors and successors are each lane's last
// task seen, forward and backward, so the graph's lane links are not read
// (nor built, for a graph as read). Whether an edge's destination was blocked
// is not asked there: it would read three records of a task far ahead for
// every edge. Backward, it computes the slack as CriticalPath.cpp's backward
// sweep does and walks the path back at the same time: every step goes to
// a lower id, so the walk's next task is always still ahead of the sweep.
// Once the sweep has passed a task nothing reads its end again (the walk
// reads ends of lower ids only), so the task's slot in SimResult::End takes
// the time by which what makes it ready must end (its latest start less its
// gap), the one figure its predecessors need from it: no array of its own,
// and no read of the successor's task record, except through the rare Sync
// edge. Any other graph goes through findCriticalPath().
//
//===----------------------------------------------------------------------===//

#include "Support/FreshMemory.h"
#include "daydream/IR/Graph.h"
#include "daydream/Sim/CriticalPath.h"
#include "daydream/Sim/Simulator.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cassert>

using namespace dd;

CriticalPathVisitor::~CriticalPathVisitor() = default;

namespace {

class SweptVisit {
public:
  SweptVisit(const Graph &G, SimResult &R) : G(G), R(R) {}

  /// The forward sweep: deciders and the last task to end. False, with
  /// nothing handed over yet, if the graph is not laid out for the sweeps.
  bool decide();
  /// The backward sweep: slack and the walk back, handed to \p V.
  void sweep(CriticalPathVisitor &V);

private:
  /// Whether \p A is what a task waited for rather than \p B (NoId: none
  /// yet): the later end, and on a tie the lower tieKey().
  bool later(TaskId A, TaskId B) const {
    return B == NoId || R.End[A] > R.End[B] ||
           (R.End[A] == R.End[B] &&
            tieKey(G.task(A).Lane, A) < tieKey(G.task(B).Lane, B));
  }
  /// Whether \p T ended past its duration, held by a Sync predecessor.
  bool blocked(TaskId T) const {
    return R.End[T] > R.Start[T] + G.task(T).DurationNs;
  }
  /// The step of the path at \p T, handed to \p V; returns the step before.
  /// Steps come in descending ids.
  TaskId step(TaskId T, CriticalPathVisitor &V);

  const Graph &G;
  SimResult &R;
  /// Each task's step back on the path unless it is held: the later-ending
  /// of its lane predecessor and its latest-ending start predecessor
  /// through an edge.
  std::vector<TaskId> Decider;
  /// Every Sync edge as (destination, source), by descending destination
  /// once sorted, and the first not yet passed by the walk.
  std::vector<std::pair<TaskId, TaskId>> Syncs;
  size_t NextSync = 0;
  TaskId Last = NoId;
};

} // namespace

bool SweptVisit::decide() {
  const size_t N = G.numTaskSlots();
  if (G.numTasks() != N || llvm::any_of(G.lanes(), [](const Lane &L) {
        return L.Order == LaneOrder::ByPriority;
      }))
    return false;
  assignFresh(Decider, N, NoId);
  const Edge *Cur = G.edgeSlots().data();
  const Edge *const End = Cur + G.edgeSlots().size();
  // Each lane's list must be its tasks in slot order (known without looking
  // where the graph's lanes follow it, whose links then need not be built):
  // a task's lane predecessor is its lane's last task visited.
  const bool SlotOrder = G.lanesFollowSlotOrder();
  const Task *Tasks = G.taskSlots().data();
  std::vector<TaskId> LaneLast(G.numLanes(), NoId);
  for (TaskId T = 0; T != N; ++T) {
    const TaskId P = LaneLast[Tasks[T].Lane];
    if (!SlotOrder && G.prevOnLane(T) != P)
      return false;
    LaneLast[Tasks[T].Lane] = T;
    // Every push into T came from a lower id, so its decider is final: the
    // step back from T (unless held) is the later of it and P. later() is
    // a strict total order, so that is the latest-ending of them all.
    if (P != NoId && (Decider[T] == NoId || later(P, Decider[T])))
      Decider[T] = P;
    if (later(T, Last))
      Last = T;
    for (; Cur != End && Cur->Src == T; ++Cur) {
      const TaskId D = Cur->Dst;
      if (D <= T)
        return false;
      if (Cur->Kind == EdgeKind::Sync)
        Syncs.emplace_back(D, T);
      else if (later(T, Decider[D]))
        Decider[D] = T;
    }
  }
  // Edges left over were out of source order.
  if (Cur != End)
    return false;
  llvm::sort(Syncs, [](const std::pair<TaskId, TaskId> &A,
                       const std::pair<TaskId, TaskId> &B) {
    return A.first > B.first;
  });
  return true;
}

TaskId SweptVisit::step(TaskId T, CriticalPathVisitor &V) {
  CriticalStep S;
  S.Task = T;
  TaskId P = NoId;
  while (NextSync != Syncs.size() && Syncs[NextSync].first > T)
    ++NextSync;
  if (blocked(T)) {
    // Only a Sync predecessor ends a task past its duration.
    for (; NextSync != Syncs.size() && Syncs[NextSync].first == T; ++NextSync)
      if (later(Syncs[NextSync].second, P))
        P = Syncs[NextSync].second;
    assert(P != NoId && R.End[P] == R.End[T] && "end not explained");
    S.Blocked = true;
  } else {
    P = Decider[T];
    S.WorkNs = G.task(T).DurationNs;
    // Equal to the task's gap; measured so that the steps add up exactly.
    S.GapNs = R.Start[T] - (P == NoId ? R.OriginNs : R.End[P]);
  }
  V.step(S);
  return P;
}

void SweptVisit::sweep(CriticalPathVisitor &V) {
  // Visited in descending ids, a task's successors (lane successor, edge
  // destinations: all higher ids) hold in End already their latest start
  // less their gap: when their start predecessors must end.
  const size_t N = G.numTaskSlots();
  const Task *Tasks = G.taskSlots().data();
  const Edge *const First = G.edgeSlots().data();
  const Edge *Cur = First + G.edgeSlots().size();
  const int64_t RunEnd = R.OriginNs + R.MakespanNs;
  int64_t *ReadyBy = R.End.data();
  // Slack goes out in aligned runs, so the visitor is called once a run.
  constexpr TaskId RunSize = 4096;
  int64_t Slack[RunSize];
  TaskId Walk = Last;
  // Per lane: its lowest task visited so far, the lane successor of the
  // next one (decide() found each lane's list in slot order).
  std::vector<TaskId> LaneNext(G.numLanes(), NoId);
  for (TaskId T = N; T-- != 0;) {
    const Task &Tk = Tasks[T];
    int64_t LatestEnd = RunEnd;
    TaskId &Nx = LaneNext[Tk.Lane];
    if (Nx != NoId)
      LatestEnd = std::min(LatestEnd, ReadyBy[Nx]);
    Nx = T;
    for (; Cur != First && Cur[-1].Src == T; --Cur) {
      const TaskId D = Cur[-1].Dst;
      // What D synchronizes with must end by D's latest end.
      LatestEnd = std::min(LatestEnd, Cur[-1].Kind == EdgeKind::Sync
                                          ? ReadyBy[D] + Tasks[D].GapNs +
                                                Tasks[D].DurationNs
                                          : ReadyBy[D]);
    }
    if (T == Walk)
      Walk = step(T, V); // reads T's end: before it is overwritten
    const int64_t LatestStart = LatestEnd - Tk.DurationNs;
    Slack[T % RunSize] = LatestStart - R.Start[T];
    ReadyBy[T] = LatestStart - Tk.GapNs;
    if (T % RunSize == 0)
      V.slack(T, llvm::makeArrayRef(Slack, std::min<size_t>(RunSize, N - T)));
  }
  assert(Walk == NoId && "walk back left the graph");
}

llvm::Error dd::visitCriticalPath(const Graph &G, SimResult &R,
                                  const CanonicalOrder *C,
                                  CriticalPathVisitor &V) {
  if (R.Start.size() != G.numTaskSlots() || R.End.size() != G.numTaskSlots())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "critical path: the simulation is not of this graph");
  SweptVisit Swept(G, R);
  if (Swept.decide()) {
    Swept.sweep(V);
  } else {
    llvm::Expected<CriticalPath> P = findCriticalPath(G, R, C);
    if (!P)
      return P.takeError();
    for (const CriticalStep &S : llvm::reverse(P->Steps))
      V.step(S);
    V.slack(0, P->SlackNs);
  }
  // Its end times are latest starts now, or were handed over: free them.
  std::vector<int64_t>().swap(R.End);
  return llvm::Error::success();
}
