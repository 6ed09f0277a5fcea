//===- CollectiveReach.h - What a rank's collectives wait for -*- C++ -*-===//
//
// A rank's collectives on different streams depend on each other through
// the rest of its graph: a data-parallel all-reduce on a stream of its own
// waits, through an event or the CPU, for backward kernels that a
// tensor-parallel all-reduce on the compute stream held back. A rank's
// collective table (SplitJob.h) keeps its collectives and their launching
// calls, not the kernels between them, and would lose that. The edges
// found here keep it: one into a collective from the last collective of
// another stream whose end reaches its start, where the collective before
// it on its own stream was not reached by that one already.
//
// With them a process's share of a job (JobShare.h) holds every
// dependency between the job's barriers that the whole job holds, which
// is what lets every share agree on one order of its barriers
// (docs/Distributed.md, "Why the shares cannot deadlock").
//
// One pass over the rank's tasks in topological order, carrying for each
// stream with collectives the last of them that reaches the task: O(tasks
// x streams with collectives), and nothing at all where the rank issues
// its collectives on one stream (the stream's order says everything).
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_IMPORT_COLLECTIVEREACH_H
#define DAYDREAM_LIB_IMPORT_COLLECTIVEREACH_H

#include "daydream/IR/Graph.h"

#include "llvm/ADT/ArrayRef.h"

#include <vector>

namespace dd::import {

/// For the collective kernels \p Kernels of the rank graph \p G (each on a
/// GPU stream): edges (earlier kernel, later kernel, CrossStream) between
/// kernels of different streams where the first's end reaches the
/// second's start, as described above, in no particular order. Empty where
/// the kernels are on fewer than two streams or \p G has a cycle.
std::vector<Edge> crossStreamReach(const Graph &G,
                                   llvm::ArrayRef<TaskId> Kernels);

} // namespace dd::import

#endif // DAYDREAM_LIB_IMPORT_COLLECTIVEREACH_H
