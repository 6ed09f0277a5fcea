//===- Verifier.h - Semantic checks of a trace graph ------------*- C++ -*-===//
//
// Every tool verifies every input before a pass sees it (after the
// FlatBuffers verifier, for binary files), and `dd-opt -verify-each` verifies
// after every pass. The checks: every id in range (lanes, names, layers,
// attributes, edge ends), enum values known, no self-edges, durations and
// gaps not negative, lane lists consistent with each task's lane, ranks
// stored as copies as RankCopies.h requires, and no cycle through edges and
// lane order together.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IR_VERIFIER_H
#define DAYDREAM_IR_VERIFIER_H

#include "daydream/IR/Types.h"

#include "llvm/Support/Error.h"

namespace dd {

class Graph;

/// Returns an error describing the first problem found (without a file name;
/// callers prefix it), or success.
llvm::Error verifyGraph(const Graph &G);

/// verifyGraph() for a graph as the binary reader builds it: each task
/// checked against TaskFieldBounds as it was linked at its lane's end, in
/// slot order (Graph::adoptTasks() or appendTasks() with the graph's bounds,
/// on a graph without tasks), and nothing changed since. Such a graph's
/// tasks need no second look: their lane lists are consistent and go forward
/// by construction, and their fields were checked. That second look over
/// the tasks was about a tenth of dd-sim's whole run on five million tasks.
/// Everything else is checked.
llvm::Error verifyAsRead(const Graph &G);

/// The error verifyGraph() gives for task \p T, \p Tk, of \p G, whose fields
/// are not all within TaskFieldBounds: the first one that is not.
llvm::Error describeBadTask(const Graph &G, TaskId T, const Task &Tk);

} // namespace dd

#endif // DAYDREAM_IR_VERIFIER_H
