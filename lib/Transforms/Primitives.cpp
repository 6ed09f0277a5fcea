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

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Optional.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cassert>
#include <cmath>

using namespace dd;

void dd::scaleDurations(Graph &G, llvm::ArrayRef<TaskId> Tasks, double Factor) {
  for (TaskId T : Tasks) {
    Task &Tk = G.task(T);
    Tk.DurationNs =
        std::max<int64_t>(0, std::llround(double(Tk.DurationNs) * Factor));
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

/// The live edges that enter or leave the removed tasks, grouped by removed
/// task (numbered 0..R-1 by Index): built in one pass over the edges, in
/// memory proportional to the removed tasks and their edges.
struct RemovedAdjacency {
  std::vector<uint32_t> InBegin, OutBegin;
  std::vector<Link> In, Out;

  RemovedAdjacency(const Graph &G, const std::vector<uint32_t> &Index,
                   size_t R) {
    InBegin.assign(R + 1, 0);
    OutBegin.assign(R + 1, 0);
    for (const Edge &E : G.edgeSlots())
      if (G.isLive(E)) {
        if (Index[E.Dst] != NoId)
          ++InBegin[Index[E.Dst] + 1];
        if (Index[E.Src] != NoId)
          ++OutBegin[Index[E.Src] + 1];
      }
    for (size_t I = 1; I <= R; ++I) {
      InBegin[I] += InBegin[I - 1];
      OutBegin[I] += OutBegin[I - 1];
    }
    In.resize(InBegin[R], Link{NoId, llvm::None});
    Out.resize(OutBegin[R], Link{NoId, llvm::None});
    std::vector<uint32_t> InFill(InBegin.begin(), InBegin.end() - 1);
    std::vector<uint32_t> OutFill(OutBegin.begin(), OutBegin.end() - 1);
    for (const Edge &E : G.edgeSlots())
      if (G.isLive(E)) {
        if (Index[E.Dst] != NoId)
          In[InFill[Index[E.Dst]]++] = Link{E.Src, E.Kind};
        if (Index[E.Src] != NoId)
          Out[OutFill[Index[E.Src]]++] = Link{E.Dst, E.Kind};
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
                                 const std::vector<uint32_t> &Index,
                                 const RemovedAdjacency &Adj) {
  size_t R = Removed.size();
  std::vector<uint32_t> Pending(R, 0);
  for (size_t I = 0; I != R; ++I) {
    for (uint32_t J = Adj.InBegin[I]; J != Adj.InBegin[I + 1]; ++J)
      Pending[I] += Index[Adj.In[J].Task] != NoId;
    TaskId Prev = G.prevOnLane(Removed[I]);
    Pending[I] += Prev != NoId && Index[Prev] != NoId;
  }
  std::vector<TaskId> Order;
  Order.reserve(R);
  for (size_t I = 0; I != R; ++I)
    if (Pending[I] == 0)
      Order.push_back(Removed[I]);
  auto Release = [&](TaskId S) {
    if (S != NoId && Index[S] != NoId && --Pending[Index[S]] == 0)
      Order.push_back(S);
  };
  for (size_t Head = 0; Head != Order.size(); ++Head) {
    uint32_t I = Index[Order[Head]];
    for (uint32_t J = Adj.OutBegin[I]; J != Adj.OutBegin[I + 1]; ++J)
      Release(Adj.Out[J].Task);
    Release(G.nextOnLane(Order[Head]));
  }
  if (Order.size() != R) {
    std::vector<char> Done(R, 0);
    for (TaskId T : Order)
      Done[Index[T]] = 1;
    for (size_t I = 0; I != R; ++I)
      if (!Done[I])
        Order.push_back(Removed[I]);
  }
  return Order;
}

} // namespace

void dd::removeTasks(Graph &G, llvm::ArrayRef<TaskId> Tasks) {
  std::vector<uint32_t> Index(G.numTaskSlots(), NoId);
  std::vector<TaskId> Removed;
  for (TaskId T : Tasks)
    if (G.isLive(T) && Index[T] == NoId) {
      Index[T] = 0;
      Removed.push_back(T);
    }
  if (Removed.empty())
    return;
  // Id order, so the result does not depend on the order of Tasks.
  llvm::sort(Removed);
  for (size_t I = 0; I != Removed.size(); ++I)
    Index[Removed[I]] = uint32_t(I);
  RemovedAdjacency Adj(G, Index, Removed.size());
  std::vector<TaskId> Order = removalOrder(G, Removed, Index, Adj);
  // Surviving predecessors handed on to removed successors.
  std::vector<llvm::SmallVector<Link, 2>> HandedOn(Removed.size());

  llvm::SmallVector<Link, 8> Preds, Succs;
  for (TaskId T : Order) {
    uint32_t I = Index[T];
    Preds.clear();
    Succs.clear();
    for (uint32_t J = Adj.InBegin[I]; J != Adj.InBegin[I + 1]; ++J)
      if (G.isLive(Adj.In[J].Task))
        Preds.push_back(Adj.In[J]);
    Preds.append(HandedOn[I].begin(), HandedOn[I].end());
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
        if (Index[S.Task] != NoId)
          HandedOn[Index[S.Task]].push_back(Link{P.Task, Kind});
        else
          G.addEdge(P.Task, S.Task, *Kind);
      }
    if (LaneNext != NoId)
      G.task(LaneNext).GapNs += G.task(T).GapNs;
    G.removeTask(T);
  }
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
  std::vector<TaskId> Into(G.numTaskSlots(), NoId);
  for (const MergeGroup &Gr : Groups) {
    assert(!Gr.Tasks.empty() && "an empty merge group");
    TaskId Survivor = Gr.Tasks.front();
    G.task(Survivor).DurationNs = Gr.DurationNs;
    for (TaskId X : llvm::ArrayRef<TaskId>(Gr.Tasks).drop_front())
      if (X != Survivor)
        Into[X] = Survivor;
  }
  auto Resolve = [&Into](TaskId T) { return Into[T] == NoId ? T : Into[T]; };
  std::vector<Edge> Edges(G.edgeSlots().begin(), G.edgeSlots().end());
  // Members on another lane than their survivor keep their lane order.
  for (TaskId X = 0; X != Into.size(); ++X) {
    TaskId Survivor = Into[X];
    if (Survivor == NoId || G.task(X).Lane == G.task(Survivor).Lane)
      continue;
    if (TaskId P = G.prevOnLane(X); P != NoId && Resolve(P) != Survivor)
      Edges.push_back(Edge{P, Survivor, EdgeKind::ProgramOrder});
    if (TaskId S = G.nextOnLane(X); S != NoId && Resolve(S) != Survivor)
      Edges.push_back(Edge{Survivor, S, EdgeKind::ProgramOrder});
  }
  G.clearEdges();
  for (Edge E : Edges) {
    if (!G.isLive(E))
      continue;
    E.Src = Resolve(E.Src);
    E.Dst = Resolve(E.Dst);
    if (E.Src != E.Dst)
      G.addEdge(E.Src, E.Dst, E.Kind);
  }
  for (TaskId X = 0; X != Into.size(); ++X)
    if (Into[X] != NoId && G.isLive(X))
      G.removeTask(X);
}
