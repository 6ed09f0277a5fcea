//===- RankCopies.h - Ranks stored once for many identical ranks -*- C++
//-*-===//
//
// A data-parallel job of thousands of ranks runs one program thousands of
// times, and simulators of such jobs (ASTRA-sim, SimAI) keep one rank of
// each group of identical ranks. So can a graph: a rank whose metadata says
// `CopyOf = R` (text form `rank 5 world=8 copy-of=0`) keeps its own lanes
// (their names, devices and native ids) and its own iterations, but its
// lanes hold no tasks: its tasks, with their edges (inside the rank and to
// the job's own tasks, the collectives' barriers), attributes, notes and
// memory events, are R's, task for task, lane for lane (the k-th lane of
// the copy in lane-id order is the k-th lane of R). Such a job takes the
// memory of its distinct ranks only, however many ranks it has.
//
// The rules, checked by the verifier: R is a rank of the graph and not a
// copy itself; the copy's lanes match R's in number, kind and order, and
// are empty; it has as many iterations as R, starting and measured as R's
// (its tasks fall into them as R's do into R's); and R has no edge to
// another rank's task (where the copy's edge would go is not defined).
//
// dd-sim simulates a stored copy as it simulates a rank found identical
// (Sim/Symmetry.h): once, its representative standing for it. A pass that
// is not written for copies gets the graph with every copy expanded
// (PassManager.h).
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IR_RANKCOPIES_H
#define DAYDREAM_IR_RANKCOPIES_H

#include "daydream/IR/Types.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <vector>

namespace dd {

class Graph;

/// One rank of a job: its lanes in id order and its iterations in graph
/// order.
struct RankLayout {
  int32_t Rank = 0;
  int32_t CopyOf = -1;
  std::vector<LaneId> Lanes;
  std::vector<uint32_t> Iterations;
};

/// The ranks the metadata lists, by rank id; lanes and iterations of ranks
/// it does not list are left out.
std::map<int32_t, RankLayout> rankLayouts(const Graph &G);

/// Whether any rank of \p G is stored as a copy.
bool hasRankCopies(const Graph &G);

/// What expanding every copy of \p G would add: each copy's share of its
/// representative's tasks and of the edges touching them.
struct CopiedWork {
  size_t Tasks = 0;
  size_t Edges = 0;
};
CopiedWork countCopiedWork(const Graph &G);

/// Checks the rules above; an error names the rank and what is wrong.
llvm::Error checkRankCopies(const Graph &G);

/// Gives every copy tasks of its own, as if it had been stored whole:
/// tasks, edges, notes and memory events cloned from its representative
/// (attributes shared). Afterwards no rank is a copy. Linear in the size of
/// the graph it makes. Fails, changing nothing, if that graph would have
/// more tasks or edges than ids can number (2^32 - 1), or would not fit in
/// this machine's memory.
llvm::Error expandRankCopies(Graph &G);

} // namespace dd

#endif // DAYDREAM_IR_RANKCOPIES_H
