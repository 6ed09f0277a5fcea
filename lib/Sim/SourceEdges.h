//===- SourceEdges.h - Live edges grouped by source -------------*- C++ -*-===//
//
// Private to lib/Sim. The event-driven engine finishes tasks in time order,
// not slot order, and then walks each finished task's outgoing edges, so it
// needs them grouped by source. A graph as a file holds it (every task live,
// edge array sorted by source) already has them grouped: then this only
// records where each task's stretch begins, one pass that reads sources, and
// the engine walks the graph's own array. Any other graph gets a grouped
// copy. Either way the edges of one source keep their edge-array order,
// which the engine relies on to visit them exactly as it always has.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_SIM_SOURCEEDGES_H
#define DAYDREAM_LIB_SIM_SOURCEEDGES_H

#include "daydream/IR/Types.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace dd {

class Graph;

namespace sim {

/// The live edges of a graph: those leaving task T are
/// edges()[Begin[T], Begin[T+1]), in edge-array order. They are the graph's
/// own array (keep the graph unchanged while using this) or Copy. 32-bit
/// offsets: at ten million tasks every byte a task is 10 MB of
/// fresh pages to fault in, and no graph that fits in memory has 2^32 edges.
struct SourceEdges {
  /// The graph's edge array when it is already grouped, else empty.
  llvm::ArrayRef<Edge> InPlace;
  std::vector<Edge> Copy;
  std::vector<uint32_t> Begin;

  llvm::ArrayRef<Edge> edges() const {
    return Copy.empty() ? InPlace : llvm::ArrayRef<Edge>(Copy);
  }
};

/// O(V+E). Builds no copy when every task is live and the edge array is
/// sorted by source. Fails only on a graph with 2^32 edges or more.
llvm::Expected<SourceEdges> groupEdgesBySource(const Graph &G);

} // namespace sim
} // namespace dd

#endif // DAYDREAM_LIB_SIM_SOURCEEDGES_H
