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
        // Lane predecessor and lane successor become lane neighbours.
        llvm::Optional<EdgeKind> Kind = S.Kind ? S.Kind : P.Kind;
        if (!Kind && !Removing[S.Task])
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
