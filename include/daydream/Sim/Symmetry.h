//===- Symmetry.h - Simulate one rank of each group of identical ranks -*- C++
//-*-===//
//
// Large data-parallel jobs are mostly alike rank by rank, and simulators of
// thousands of GPUs (ASTRA-sim, SimAI) simulate one rank for each group of
// identical ones. So does dd-sim: two ranks are identical when their lanes,
// their tasks (kind, duration, gap, recorded start, flags) in lane order,
// their iterations and their edges, to each other and to the job's own
// tasks (the collectives' barriers), are the same. Identical ranks reach
// every barrier at the same moment and so have the same simulated times;
// only the first of each group needs simulating, and its results stand for
// the others. The reduction is exact: nothing is approximated, and a job
// whose ranks all differ (any recorded job: real ranks never match to the
// nanosecond) is simulated whole.
//
// A rank the graph stores as a copy of another (IR/RankCopies.h) is such a
// rank already, found without comparing: a job of any number of identical
// ranks is then simulated in the memory of one.
//
// It is not for graphs with a by-priority lane, whose scheduling policy may
// look at task ids or notes that this comparison does not: dd-sim expands
// their stored copies instead.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SIM_SYMMETRY_H
#define DAYDREAM_SIM_SYMMETRY_H

#include "daydream/IR/Types.h"

#include <cstddef>
#include <map>
#include <utility>
#include <vector>

namespace dd {

class Graph;
struct SimResult;

struct SymmetryReduction {
  /// Ranks of the job, and groups of identical ranks among them.
  size_t Ranks = 0;
  size_t Classes = 0;
  /// Of the left-out ranks, those the graph stored as copies.
  size_t StoredCopies = 0;
  /// Each removed rank's lanes and iterations, with the representative's
  /// lane and iteration whose results they take, in the order to copy them
  /// in: a stored copy's representative may itself be a removed rank, and
  /// comes first.
  std::vector<std::pair<LaneId, LaneId>> LaneCopies;
  std::vector<std::pair<uint32_t, uint32_t>> IterationCopies;
  /// What the left-out ranks held.
  size_t RemovedTasks = 0;
  size_t RemovedEdges = 0;

  /// Whether any rank was left out.
  bool used() const { return Classes < Ranks; }
};

/// Removes from \p G the tasks of every rank that is identical to an
/// earlier one, and says which results stand for theirs (and for the ranks
/// stored as copies). Does nothing to a graph with a by-priority lane, whose
/// stored copies the caller must expand.
SymmetryReduction reduceBySymmetry(Graph &G);

/// Per rank of \p G, a hash of its tasks' times in lane order and of its
/// lanes' kinds: two ranks that reduceBySymmetry() may find identical hash
/// alike (it compares in full only ranks that do). A rank's hash reads
/// nothing of the other ranks, so the process that holds a rank of a split
/// job computes it alone (Import/JobShare.h).
std::map<int32_t, uint64_t> rankFilterHashes(const Graph &G);

/// Gives the left-out ranks' lanes and iterations in \p R (a simulation of
/// the reduced graph) their representatives' results.
void expandResults(const SymmetryReduction &S, SimResult &R);

} // namespace dd

#endif // DAYDREAM_SIM_SYMMETRY_H
