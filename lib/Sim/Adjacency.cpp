//===- Adjacency.cpp - Flat adjacency for the simulator's engines ---------===//
//
// Builds the split compressed-sparse-row adjacency both engines walk (see
// Replay.h) with two passes over the edge array and no per-task allocation,
// and names tasks, and words a bad order, in the engines' error messages.
//
//===----------------------------------------------------------------------===//

#include "Replay.h"

#include "daydream/IR/Graph.h"

#include "llvm/ADT/Twine.h"

using namespace dd;
using namespace dd::sim;

SplitAdjacency sim::buildAdjacency(const Graph &G, Direction D) {
  const size_t N = G.numTaskSlots();
  const bool ByDst = D == Direction::Incoming;
  llvm::ArrayRef<Edge> Edges = G.edgeSlots();
  // A freshly read graph has no dead tasks; skip two bit lookups per edge.
  const bool AllLive = G.numTasks() == N;

  // Count finish-to-start neighbours into NumOrder and Sync ones into Aux.
  SplitAdjacency A;
  A.NumOrder.assign(N, 0);
  std::vector<uint32_t> Aux(N, 0);
  for (const Edge &E : Edges) {
    if (!AllLive && !G.isLive(E))
      continue;
    TaskId Key = ByDst ? E.Dst : E.Src;
    if (E.Kind == EdgeKind::Sync)
      ++Aux[Key];
    else
      ++A.NumOrder[Key];
  }

  A.Off.resize(N + 1);
  A.Off[0] = 0;
  for (size_t T = 0; T != N; ++T) {
    A.Off[T + 1] = A.Off[T] + A.NumOrder[T] + Aux[T];
    Aux[T] += A.NumOrder[T];
  }
  A.Adj.resize(A.Off[N]);

  // Both arrays now serve as cursors that fill their section from its end:
  // NumOrder[T] counts down to 0 over [Off[T], Off[T] + NumOrder[T]), and
  // Aux[T], the total degree, counts down over the Sync section to exactly
  // the finish-to-start count, which is what NumOrder must hold afterwards.
  // One fill pass and no third array.
  for (const Edge &E : Edges) {
    if (!AllLive && !G.isLive(E))
      continue;
    TaskId Key = ByDst ? E.Dst : E.Src;
    TaskId Other = ByDst ? E.Src : E.Dst;
    uint32_t &Cursor = E.Kind == EdgeKind::Sync ? Aux[Key] : A.NumOrder[Key];
    A.Adj[A.Off[Key] + --Cursor] = Other;
  }
  A.NumOrder.swap(Aux);
  return A;
}

std::string sim::describeTask(const Graph &G, TaskId T) {
  // The spelling of computeCanonicalOrder's cycle messages and the text form.
  StrId Name = G.task(T).Name;
  if (Name == NoId)
    return ("%" + llvm::Twine(T)).str();
  return ("%" + llvm::Twine(T) + " '" + G.str(Name) + "'").str();
}

llvm::Error sim::notTopological(const Graph &G, TaskId T,
                                const llvm::Twine &Why) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "simulation order is not a topological order of the live tasks: " +
          llvm::Twine(describeTask(G, T)) + " " + Why);
}

llvm::Error sim::predecessorAfter(const Graph &G, TaskId T, TaskId P) {
  return notTopological(G, T,
                        "comes before its predecessor " + describeTask(G, P));
}

llvm::Error sim::badOrderEntry(const Graph &G, TaskId T) {
  if (T >= G.numTaskSlots())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "simulation order lists task %u, but "
                                   "the graph has only %zu task slots",
                                   T, G.numTaskSlots());
  return notTopological(G, T, "is dead");
}
