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

/// Moves one rank's graph into \p Job, and frees it. Metadata comes from the
/// first rank added (producer, format), devices by index from each, plus
/// one RankInfo per rank. Ranks are added one at a time, as each is
/// lowered, so that only one rank's graph exists beside the job's.
void appendRankGraph(Graph &Job, RankGraph &&Rank);

} // namespace dd::import

#endif // DAYDREAM_LIB_IMPORT_MERGERANKS_H
