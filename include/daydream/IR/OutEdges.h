//===- OutEdges.h - Each task's successors, in compressed form -*- C++ -*-===//
//
// The live edges of a graph grouped by source: a task's successors are
// Dst[Begin[T]] to Dst[Begin[T + 1]], in edge-slot order. For a pass over
// the tasks in some topological order that pushes along each task's edges
// (the canonical order's Kahn, CollectiveReach.cpp), where the graph's own
// edge array is not sorted by source.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IR_OUTEDGES_H
#define DAYDREAM_IR_OUTEDGES_H

#include "daydream/IR/Graph.h"

#include <cstdint>
#include <vector>

namespace dd {

struct OutEdges {
  std::vector<uint32_t> Begin; ///< NumSlots + 1 offsets
  std::vector<TaskId> Dst;

  explicit OutEdges(const Graph &G) : Begin(G.numTaskSlots() + 1, 0) {
    for (const Edge &E : G.edgeSlots())
      if (G.isLive(E))
        ++Begin[E.Src + 1];
    for (size_t I = 1; I < Begin.size(); ++I)
      Begin[I] += Begin[I - 1];
    Dst.resize(Begin.back());
    std::vector<uint32_t> Fill(Begin.begin(), Begin.end() - 1);
    for (const Edge &E : G.edgeSlots())
      if (G.isLive(E))
        Dst[Fill[E.Src]++] = E.Dst;
  }
};

} // namespace dd

#endif // DAYDREAM_IR_OUTEDGES_H
