//===- CanonicalOrder.h - The order in which graphs are written -*- C++ -*-===//
//
// Both forms of the IR list tasks in one canonical order: a topological order
// of the live tasks (edges and lane order together), chosen as the smallest
// task id first among the ready ones. A graph read from a file is already in
// that order, so writing it back keeps every id, which is what makes
// binary -> text -> binary reproduce the same bytes. Because the file order is
// topological, the simulator replays a freshly read graph in one linear pass.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IR_CANONICALORDER_H
#define DAYDREAM_IR_CANONICALORDER_H

#include "daydream/IR/Types.h"

#include "llvm/Support/Error.h"

#include <vector>

namespace dd {

class Graph;

struct CanonicalOrder {
  /// Live task ids in canonical order.
  std::vector<TaskId> Order;
  /// Old id -> position in Order (NoId for dead tasks).
  std::vector<TaskId> NewId;
  /// True when Order is the identity over the slots (no renumbering needed).
  bool IsIdentity = false;
};

/// Whether slot order already is the canonical order (every graph read from
/// a file): every task live, every lane link and edge going to a higher id.
/// O(V+E) reads, no allocation.
bool isInCanonicalOrder(const Graph &G);

/// Computes the canonical order. Fails if edges and lane order form a cycle;
/// the message names the tasks on one cycle.
llvm::Expected<CanonicalOrder> computeCanonicalOrder(const Graph &G);

/// Returns the tasks on one dependency cycle, in dependency order and
/// starting at the smallest id, or an empty vector if \p G is acyclic.
std::vector<TaskId> findCycle(const Graph &G);

/// Returns the live edges of \p G renumbered through \p C, deduplicated and
/// sorted by (source, destination, kind): the order both forms write them in.
std::vector<Edge> canonicalEdges(const Graph &G, const CanonicalOrder &C);

/// Returns the memory events of \p G stably sorted by time: the order both
/// forms write them in, so that it does not depend on the order importers or
/// passes added them in, yet events at one time keep their relative order.
/// The task an event names is renumbered through \p C (NoId if it died:
/// the event then moves by the recorded rule).
std::vector<MemoryEvent> canonicalMemoryEvents(const Graph &G,
                                               const CanonicalOrder &C);

} // namespace dd

#endif // DAYDREAM_IR_CANONICALORDER_H
