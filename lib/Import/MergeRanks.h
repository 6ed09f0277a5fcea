//===- MergeRanks.h - Several graphs into one, lanes tagged by rank -*- C++ -*-===//
//
// The mechanical half of a multi-rank import: one rank's graph after another
// is appended to the job's graph, with strings re-interned, lanes, layers and
// attribute slots renumbered, and every lane and iteration tagged with its
// rank. Nothing here knows about collectives (MatchCollectives.h).
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_IMPORT_MERGERANKS_H
#define DAYDREAM_LIB_IMPORT_MERGERANKS_H

#include "daydream/IR/Graph.h"

#include <vector>

namespace dd::import {

struct RankGraph {
  int32_t Rank = 0;
  int32_t WorldSize = 0; ///< 0 if not known
  Graph G;
};

/// Moves the ranks' graphs into one. Metadata comes from the first (producer,
/// format, devices by index), plus one RankInfo per rank.
Graph mergeRankGraphs(std::vector<RankGraph> &&Ranks);

} // namespace dd::import

#endif // DAYDREAM_LIB_IMPORT_MERGERANKS_H
