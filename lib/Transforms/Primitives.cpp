//===- Primitives.cpp - Graph transformation primitives -------------------===//
//
// removeTasks() walks the removed tasks in a topological order of their
// own, so a chain of removed tasks hands its surviving predecessors on from
// one to the next instead of searching the graph for each removal; its cost
// is one pass over the edges plus the removed tasks' own edges.
//
//===----------------------------------------------------------------------===//

#include "daydream/Transforms/Primitives.h"
#include "daydream/IR/Graph.h"
#include "daydream/IR/TaskFieldBounds.h"
#include "daydream/IR/TaskSet.h"

#include "llvm/ADT/Optional.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cassert>
#include <cmath>

using namespace dd;

void dd::scaleDurations(Graph &G, llvm::ArrayRef<TaskId> Tasks, double Factor) {
  for (TaskId T : Tasks) {
    Task &Tk = G.task(T);
    Tk.DurationNs = roundNs(double(Tk.DurationNs) * Factor);
  }
}

void dd::setDurations(Graph &G, llvm::ArrayRef<TaskId> Tasks,
                      int64_t DurationNs) {
  for (TaskId T : Tasks)
    G.task(T).DurationNs = DurationNs;
}

namespace {

/// A neighbour of a removed task and the edge kind that links them, or no
/// kind when they are only neighbours on a lane.
struct Link {
  TaskId Task;
  llvm::Optional<EdgeKind> Kind;
};

/// Asks the cache for the task a few places after \p I in \p Tasks: loops
/// over tasks scattered through a large graph (a launch every few hundred
/// bytes of tasks) otherwise wait on memory for each one.
void prefetchTaskAhead(const Graph &G, llvm::ArrayRef<TaskId> Tasks, size_t I) {
  constexpr size_t Ahead = 8;
  if (I + Ahead < Tasks.size())
    __builtin_prefetch(&G.task(Tasks[I + Ahead]));
}

/// The live edges that enter or leave the removed tasks, grouped by removed
/// task, each group in edge order: one pass over the edges, then work and
/// memory proportional to the removed tasks and their edges.
struct RemovedAdjacency {
  std::vector<uint32_t> InBegin, OutBegin;
  std::vector<Link> In, Out;

  RemovedAdjacency(const Graph &G, const TaskSet &Set) {
    std::vector<Edge> Touching;
    Touching.reserve(2 * Set.size());
    for (const Edge &E : G.edgeSlots())
      if ((Set.contains(E.Src) || Set.contains(E.Dst)) && G.isLive(E))
        Touching.push_back(E);
    size_t R = Set.size();
    InBegin.assign(R + 1, 0);
    OutBegin.assign(R + 1, 0);
    for (const Edge &E : Touching) {
      if (uint32_t I = Set.index(E.Dst); I != NoId)
        ++InBegin[I + 1];
      if (uint32_t I = Set.index(E.Src); I != NoId)
        ++OutBegin[I + 1];
    }
    for (size_t I = 1; I <= R; ++I) {
      InBegin[I] += InBegin[I - 1];
      OutBegin[I] += OutBegin[I - 1];
    }
    In.resize(InBegin[R], Link{NoId, llvm::None});
    Out.resize(OutBegin[R], Link{NoId, llvm::None});
    std::vector<uint32_t> InFill(InBegin.begin(), InBegin.end() - 1);
    std::vector<uint32_t> OutFill(OutBegin.begin(), OutBegin.end() - 1);
    for (const Edge &E : Touching) {
      if (uint32_t I = Set.index(E.Dst); I != NoId)
        In[InFill[I]++] = Link{E.Src, E.Kind};
      if (uint32_t I = Set.index(E.Src); I != NoId)
        Out[OutFill[I]++] = Link{E.Dst, E.Kind};
    }
  }
};

/// The removed tasks in an order where each comes after the removed tasks
/// it depends on (by edge or by lane), so that a chain of removed tasks
/// hands its surviving predecessors on from one to the next: Kahn's
/// algorithm on the removed tasks alone, in O(R + their edges). Inputs are
/// verified and acyclic; if a pass broke that, the tasks left on a cycle
/// follow in id order and -verify-each reports the graph.
std::vector<TaskId> removalOrder(const Graph &G,
                                 const std::vector<TaskId> &Removed,
                                 const TaskSet &Set,
                                 const RemovedAdjacency &Adj) {
  size_t R = Removed.size();
  std::vector<uint32_t> Pending(R, 0);
  for (size_t I = 0; I != R; ++I) {
    for (uint32_t J = Adj.InBegin[I]; J != Adj.InBegin[I + 1]; ++J)
      Pending[I] += Set.contains(Adj.In[J].Task);
    TaskId Prev = G.prevOnLane(Removed[I]);
    Pending[I] += Prev != NoId && Set.contains(Prev);
  }
  std::vector<TaskId> Order;
  Order.reserve(R);
  for (size_t I = 0; I != R; ++I)
    if (Pending[I] == 0)
      Order.push_back(Removed[I]);
  auto Release = [&](TaskId S) {
    if (S == NoId)
      return;
    if (uint32_t I = Set.index(S); I != NoId && --Pending[I] == 0)
      Order.push_back(S);
  };
  for (size_t Head = 0; Head != Order.size(); ++Head) {
    uint32_t I = Set.index(Order[Head]);
    for (uint32_t J = Adj.OutBegin[I]; J != Adj.OutBegin[I + 1]; ++J)
      Release(Adj.Out[J].Task);
    Release(G.nextOnLane(Order[Head]));
  }
  if (Order.size() != R) {
    std::vector<char> Done(R, 0);
    for (TaskId T : Order)
      Done[Set.index(T)] = 1;
    for (size_t I = 0; I != R; ++I)
      if (!Done[I])
        Order.push_back(Removed[I]);
  }
  return Order;
}

/// Surviving predecessors handed on to removed successors, per removed
/// task in the order handed on: lists threaded through one array, since
/// most removed tasks get none.
class HandedOnLists {
public:
  explicit HandedOnLists(size_t R) : Head(R, NoId), Tail(R, NoId) {}

  void add(uint32_t I, const Link &L) {
    uint32_t N = uint32_t(Nodes.size());
    Nodes.push_back(Node{L, NoId});
    if (Tail[I] == NoId)
      Head[I] = N;
    else
      Nodes[Tail[I]].Next = N;
    Tail[I] = N;
  }
  template <typename Vec> void appendTo(uint32_t I, Vec &Out) const {
    for (uint32_t N = Head[I]; N != NoId; N = Nodes[N].Next)
      Out.push_back(Nodes[N].L);
  }

private:
  struct Node {
    Link L;
    uint32_t Next;
  };
  std::vector<uint32_t> Head, Tail;
  std::vector<Node> Nodes;
};

} // namespace

void dd::removeTasks(Graph &G, llvm::ArrayRef<TaskId> Tasks) {
  TaskSet Set(G.numTaskSlots());
  for (TaskId T : Tasks)
    if (G.isLive(T))
      Set.insert(T);
  if (Set.size() == 0)
    return;
  // Id order, so the result does not depend on the order of Tasks.
  std::vector<TaskId> Removed = Set.freeze();
  RemovedAdjacency Adj(G, Set);
  std::vector<TaskId> Order = removalOrder(G, Removed, Set, Adj);
  HandedOnLists HandedOn(Removed.size());

  llvm::SmallVector<Link, 8> Preds, Succs;
  for (size_t K = 0; K != Order.size(); ++K) {
    prefetchTaskAhead(G, Order, K);
    TaskId T = Order[K];
    uint32_t I = Set.index(T);
    Preds.clear();
    Succs.clear();
    for (uint32_t J = Adj.InBegin[I]; J != Adj.InBegin[I + 1]; ++J)
      if (G.isLive(Adj.In[J].Task))
        Preds.push_back(Adj.In[J]);
    HandedOn.appendTo(I, Preds);
    if (G.prevOnLane(T) != NoId)
      Preds.push_back(Link{G.prevOnLane(T), llvm::None});
    for (uint32_t J = Adj.OutBegin[I]; J != Adj.OutBegin[I + 1]; ++J)
      if (G.isLive(Adj.Out[J].Task))
        Succs.push_back(Adj.Out[J]);
    TaskId LaneNext = G.nextOnLane(T);
    if (LaneNext != NoId)
      Succs.push_back(Link{LaneNext, llvm::None});

    for (const Link &P : Preds)
      for (const Link &S : Succs) {
        if (P.Task == S.Task)
          continue;
        // Lane predecessor and lane successor become lane neighbours, also
        // when the successor goes too: once T is unlinked, the successor's
        // lane predecessor is P, so handing P on would only add work (and
        // make a run of removed tasks quadratic).
        llvm::Optional<EdgeKind> Kind = S.Kind ? S.Kind : P.Kind;
        if (!Kind)
          continue;
        if (uint32_t SI = Set.index(S.Task); SI != NoId)
          HandedOn.add(SI, Link{P.Task, Kind});
        else
          G.addEdge(P.Task, S.Task, *Kind);
      }
    if (LaneNext != NoId)
      G.task(LaneNext).GapNs += G.task(T).GapNs;
    G.removeTask(T);
  }
}

/// The task after each run on its lane (NoId: the run ends the lane). A
/// graph whose lane links are still pending (lanesFollowSlotOrder()) is
/// swept once in slot order instead of building them: eight bytes a task
/// of fresh memory cost more than the sweep.
static void findTasksAfter(const Graph &G, llvm::ArrayRef<LaneRun> Runs,
                           std::vector<TaskId> &After) {
  After.assign(Runs.size(), NoId);
  if (!G.lanesFollowSlotOrder()) {
    for (size_t I = 0; I != Runs.size(); ++I)
      After[I] = G.nextOnLane(Runs[I].Tasks.back());
    return;
  }
  // Each run's last task, and which run it ends.
  TaskSet Ends(G.numTaskSlots());
  for (const LaneRun &R : Runs)
    Ends.insert(R.Tasks.back());
  Ends.numberMembers();
  std::vector<uint32_t> EndOf(Ends.size(), NoId);
  for (size_t I = 0; I != Runs.size(); ++I)
    EndOf[Ends.index(Runs[I].Tasks.back())] = uint32_t(I);
  // The next task visited on a lane after a run's last is the one after it.
  std::vector<uint32_t> Waiting(G.numLanes(), NoId);
  for (TaskId T : G.liveTasks()) {
    uint32_t &W = Waiting[G.task(T).Lane];
    if (W != NoId) {
      After[W] = T;
      W = NoId;
    }
    if (uint32_t E = Ends.index(T); E != NoId)
      W = EndOf[E];
  }
}

void dd::collapseRuns(Graph &G, llvm::ArrayRef<LaneRun> Runs) {
  TaskSet Members(G.numTaskSlots());
  for (const LaneRun &R : Runs) {
    llvm::ArrayRef<TaskId> Run = R.Tasks;
    assert(!Run.empty() && "an empty run");
    G.task(Run.front()).DurationNs = R.DurationNs;
    for (size_t K = 1; K != Run.size(); ++K) {
      assert((G.lanesFollowSlotOrder() ? Run[K] > Run[K - 1]
                                       : G.prevOnLane(Run[K]) == Run[K - 1]) &&
             "a run with a hole");
      Members.insert(Run[K]);
    }
  }
  if (Members.size() == 0)
    return;
  Members.numberMembers();
  // Each member's run, and each run's head and the task after it.
  std::vector<uint32_t> RunOf(Members.size());
  std::vector<TaskId> Head(Runs.size()), After;
  for (size_t I = 0; I != Runs.size(); ++I) {
    llvm::ArrayRef<TaskId> Run = Runs[I].Tasks;
    Head[I] = Run.front();
    for (TaskId X : Run.drop_front())
      RunOf[Members.index(X)] = uint32_t(I);
  }
  findTasksAfter(G, Runs, After);
  for (Edge &E : G.edgeSlotsMut()) {
    if (!(Members.contains(E.Src) || Members.contains(E.Dst)) || !G.isLive(E))
      continue;
    uint32_t S = Members.index(E.Src), D = Members.index(E.Dst);
    if (S != NoId && D != NoId && RunOf[S] == RunOf[D])
      continue; // inside a run: it goes with the run
    TaskId Src = S == NoId ? E.Src : Head[RunOf[S]];
    TaskId Dst = D == NoId ? E.Dst : After[RunOf[D]];
    if (Dst == NoId || Src == Dst)
      continue; // left on a member, it goes too
    E.Src = Src;
    E.Dst = Dst;
  }
  for (const LaneRun &R : Runs)
    G.removeRunAfter(R.Tasks.front(), R.Tasks.drop_front());
}

LaneId dd::findOrAddLane(Graph &G, LaneKind Kind, llvm::StringRef Name,
                         int32_t Device, LaneOrder Order) {
  for (LaneId L = 0; L != G.numLanes(); ++L)
    if (G.lane(L).Kind == Kind && G.lane(L).Name != NoId &&
        G.str(G.lane(L).Name) == Name)
      return L;
  Lane New;
  New.Name = G.intern(Name);
  New.Kind = Kind;
  New.Device = Device;
  New.Order = Order;
  // Native ids tell lanes of one kind apart in reports; a new lane takes
  // the next free one.
  for (const Lane &L : G.lanes())
    if (L.Kind == Kind)
      New.NativeId = std::max(New.NativeId, L.NativeId + 1);
  return G.addLane(New);
}

TaskId dd::insertTask(Graph &G, const Task &T, LaneId Lane, TaskId After,
                      llvm::ArrayRef<TaskId> Preds,
                      llvm::ArrayRef<TaskId> Succs, EdgeKind Kind) {
  TaskId Id;
  if (After == NoId) {
    Task Copy = T;
    Copy.Lane = Lane;
    Id = G.addTask(Copy);
  } else {
    assert(G.task(After).Lane == Lane && "anchor is on another lane");
    Id = G.insertTaskAfter(After, T);
  }
  for (TaskId P : Preds)
    G.addEdge(P, Id, Kind);
  for (TaskId S : Succs)
    G.addEdge(Id, S, Kind);
  return Id;
}

void dd::moveTask(Graph &G, TaskId T, LaneId Lane, TaskId After) {
  G.moveTask(T, Lane, After);
}

void dd::mergeTasks(Graph &G, llvm::ArrayRef<MergeGroup> Groups) {
  MergeGroupList List;
  for (const MergeGroup &Gr : Groups)
    List.add(Gr.Tasks, Gr.DurationNs);
  mergeTasks(G, List);
}

void dd::mergeTasks(Graph &G, const MergeGroupList &Groups) {
  // The merged-away members as a TaskSet, each with its survivor by its
  // number there: the sweep over the edges then tests bits in cache.
  TaskSet Members(G.numTaskSlots());
  // Members on another lane than their survivor (rare); found here while
  // the group's tasks are in cache.
  std::vector<TaskId> OffLane;
  llvm::ArrayRef<TaskId> All = Groups.allTasks();
  for (size_t I = 0; I != Groups.size(); ++I) {
    llvm::ArrayRef<TaskId> Tasks = Groups.tasks(I);
    assert(!Tasks.empty() && "an empty merge group");
    prefetchTaskAhead(G, All, Tasks.data() - All.data());
    Task &Survivor = G.task(Tasks.front());
    Survivor.DurationNs = Groups.durationNs(I);
    for (TaskId X : Tasks.drop_front())
      if (X != Tasks.front()) {
        Members.insert(X);
        if (G.task(X).Lane != Survivor.Lane)
          OffLane.push_back(X);
      }
  }
  std::vector<TaskId> Merged = Members.freeze();
  std::vector<TaskId> Into(Merged.size(), NoId);
  for (size_t I = 0; I != Groups.size(); ++I)
    for (TaskId X : Groups.tasks(I).drop_front())
      if (X != Groups.tasks(I).front())
        Into[Members.index(X)] = Groups.tasks(I).front();
  auto Resolve = [&](TaskId T) {
    uint32_t I = Members.index(T);
    return I == NoId ? T : Into[I];
  };
  // Members on another lane than their survivor keep their lane order.
  llvm::sort(OffLane);
  OffLane.erase(std::unique(OffLane.begin(), OffLane.end()), OffLane.end());
  for (TaskId X : OffLane) {
    TaskId Survivor = Into[Members.index(X)];
    if (G.task(X).Lane == G.task(Survivor).Lane)
      continue;
    if (TaskId P = G.prevOnLane(X); P != NoId && Resolve(P) != Survivor)
      G.addEdge(P, Survivor, EdgeKind::ProgramOrder);
    if (TaskId S = G.nextOnLane(X); S != NoId && Resolve(S) != Survivor)
      G.addEdge(Survivor, S, EdgeKind::ProgramOrder);
  }
  // Redirected in place. An edge inside a group is left as it is: one of
  // its ends is a member about to be removed, which kills it.
  for (Edge &E : G.edgeSlotsMut()) {
    if (!(Members.contains(E.Src) || Members.contains(E.Dst)) || !G.isLive(E))
      continue;
    TaskId Src = Resolve(E.Src), Dst = Resolve(E.Dst);
    if (Src != Dst) {
      E.Src = Src;
      E.Dst = Dst;
    }
  }
  for (size_t K = 0; K != Merged.size(); ++K) {
    prefetchTaskAhead(G, Merged, K);
    G.removeTask(Merged[K]);
  }
}
