//===- SourceEdges.cpp - Live edges grouped by source ---------------------===//
//
// See SourceEdges.h. The in-place case is the one that matters for speed: it
// writes one offset per task and reads each edge's source once, where a full
// adjacency would read every edge twice and scatter a copy of it.
//
//===----------------------------------------------------------------------===//

#include "SourceEdges.h"

#include "daydream/IR/Graph.h"

#include <limits>

using namespace dd;
using namespace dd::sim;

/// Fills Begin from an array sorted by source; false at the first edge out
/// of order.
static bool beginsOfSorted(llvm::ArrayRef<Edge> Edges, size_t N,
                           std::vector<uint32_t> &Begin) {
  Begin.resize(N + 1);
  uint32_t *B = Begin.data();
  size_t Next = 0; // The first task whose Begin is not written yet.
  for (uint32_t I = 0, E = Edges.size(); I != E; ++I) {
    TaskId Src = Edges[I].Src;
    if (Src + size_t(1) < Next || Src >= N)
      return false;
    for (; Next <= Src; ++Next)
      B[Next] = I;
  }
  for (; Next <= N; ++Next)
    B[Next] = Edges.size();
  return true;
}

llvm::Expected<SourceEdges> sim::groupEdgesBySource(const Graph &G) {
  const size_t N = G.numTaskSlots();
  llvm::ArrayRef<Edge> All = G.edgeSlots();
  if (All.size() > std::numeric_limits<uint32_t>::max())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the event-driven simulator takes at most 2^32 - 1 edges; the graph "
        "has %zu",
        All.size());
  SourceEdges S;
  if (G.numTasks() == N && beginsOfSorted(All, N, S.Begin)) {
    S.InPlace = All;
    return std::move(S);
  }

  // A stable counting sort of the live edges by source.
  std::vector<uint32_t> &B = S.Begin;
  B.assign(N + 1, 0);
  for (const Edge &E : All)
    if (G.isLive(E))
      ++B[E.Src + 1];
  for (size_t T = 0; T != N; ++T)
    B[T + 1] += B[T];
  S.Copy.resize(B[N]);
  std::vector<uint32_t> Cursor(B.begin(), B.end() - 1);
  for (const Edge &E : All)
    if (G.isLive(E))
      S.Copy[Cursor[E.Src]++] = E;
  return std::move(S);
}
