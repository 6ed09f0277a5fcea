//===- Primitives.cpp - Graph transformation primitives -------------------===//
//
// removeTasks() walks the removed tasks in topological order, so a chain of
// removed tasks hands its surviving predecessors on from one to the next
// instead of searching the graph for each removal.
//
//===----------------------------------------------------------------------===//

#include "daydream/Transforms/Primitives.h"
#include "daydream/IR/CanonicalOrder.h"
#include "daydream/IR/Graph.h"

#include "llvm/ADT/DenseMap.h"
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

/// Live edges grouped by source and by destination.
struct Adjacency {
  std::vector<uint32_t> InBegin, OutBegin;
  std::vector<Link> In, Out;

  explicit Adjacency(const Graph &G) {
    size_t N = G.numTaskSlots();
    InBegin.assign(N + 1, 0);
    OutBegin.assign(N + 1, 0);
    for (const Edge &E : G.edgeSlots())
      if (G.isLive(E)) {
        ++InBegin[E.Dst + 1];
        ++OutBegin[E.Src + 1];
      }
    for (size_t I = 1; I <= N; ++I) {
      InBegin[I] += InBegin[I - 1];
      OutBegin[I] += OutBegin[I - 1];
    }
    In.resize(InBegin[N], Link{NoId, llvm::None});
    Out.resize(OutBegin[N], Link{NoId, llvm::None});
    std::vector<uint32_t> InFill(InBegin.begin(), InBegin.end() - 1);
    std::vector<uint32_t> OutFill(OutBegin.begin(), OutBegin.end() - 1);
    for (const Edge &E : G.edgeSlots())
      if (G.isLive(E)) {
        In[InFill[E.Dst]++] = Link{E.Src, E.Kind};
        Out[OutFill[E.Src]++] = Link{E.Dst, E.Kind};
      }
  }
};

} // namespace

void dd::removeTasks(Graph &G, llvm::ArrayRef<TaskId> Tasks) {
  std::vector<char> Removing(G.numTaskSlots(), 0);
  size_t Count = 0;
  for (TaskId T : Tasks)
    if (G.isLive(T) && !Removing[T]) {
      Removing[T] = 1;
      ++Count;
    }
  if (Count == 0)
    return;
  // Inputs are verified and acyclic; an order that fails means a pass broke
  // the graph, which -verify-each reports. Fall back to id order then.
  std::vector<TaskId> Order;
  if (auto C = computeCanonicalOrder(G)) {
    Order = std::move(C->Order);
  } else {
    llvm::consumeError(C.takeError());
    for (TaskId T = 0; T != G.numTaskSlots(); ++T)
      if (G.isLive(T))
        Order.push_back(T);
  }
  Adjacency Adj(G);
  // Surviving predecessors handed on to removed successors.
  llvm::DenseMap<TaskId, llvm::SmallVector<Link, 4>> HandedOn;

  llvm::SmallVector<Link, 8> Preds, Succs;
  for (TaskId T : Order) {
    if (!Removing[T])
      continue;
    Preds.clear();
    Succs.clear();
    for (uint32_t I = Adj.InBegin[T]; I != Adj.InBegin[T + 1]; ++I)
      if (G.isLive(Adj.In[I].Task))
        Preds.push_back(Adj.In[I]);
    auto It = HandedOn.find(T);
    if (It != HandedOn.end())
      Preds.append(It->second.begin(), It->second.end());
    if (G.prevOnLane(T) != NoId)
      Preds.push_back(Link{G.prevOnLane(T), llvm::None});
    for (uint32_t I = Adj.OutBegin[T]; I != Adj.OutBegin[T + 1]; ++I)
      if (G.isLive(Adj.Out[I].Task))
        Succs.push_back(Adj.Out[I]);
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
        if (Removing[S.Task])
          HandedOn[S.Task].push_back(Link{P.Task, Kind});
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
