//===- Primitives.h - Graph transformation primitives -----------*- C++ -*-===//
//
// The small set of rewrites that passes are built from (Daydream, section 4):
// scale or set task durations, and remove tasks while keeping the ordering
// constraints that passed through them. Selection is in TaskSelector.h.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TRANSFORMS_PRIMITIVES_H
#define DAYDREAM_TRANSFORMS_PRIMITIVES_H

#include "daydream/IR/Types.h"

#include "llvm/ADT/ArrayRef.h"

namespace dd {

class Graph;

/// Multiplies the duration of each task by \p Factor (rounded to the nearest
/// nanosecond, at least 0).
void scaleDurations(Graph &G, llvm::ArrayRef<TaskId> Tasks, double Factor);

/// Sets the duration of each task to \p DurationNs.
void setDurations(Graph &G, llvm::ArrayRef<TaskId> Tasks, int64_t DurationNs);

/// Removes \p Tasks, keeping every ordering constraint that ran through them:
/// each surviving predecessor of a removed task (its edges' sources and its
/// lane predecessor) is ordered before each surviving successor (its edges'
/// destinations and its lane successor), through chains of removed tasks too.
/// A bypass edge takes the kind of the edge that entered the successor, or,
/// when the successor only followed on the lane, the kind of the edge that
/// left the predecessor; predecessor and successor already adjacent on one
/// lane need no edge. A removed task's gap moves to its lane successor, since
/// the untraced time before it still elapses. Cost: linear in the graph plus
/// the number of bypass edges.
void removeTasks(Graph &G, llvm::ArrayRef<TaskId> Tasks);

} // namespace dd

#endif // DAYDREAM_TRANSFORMS_PRIMITIVES_H
