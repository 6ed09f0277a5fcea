//===- MergeRanks.h - Several graphs into one, lanes tagged by rank -*- C++
//-*-===//
//
// The mechanical half of a multi-rank import: one rank's graph after another
// is appended to the job's graph, with strings re-interned, lanes, layers and
// attribute slots renumbered, and every lane and iteration tagged with its
// rank. Nothing here knows about collectives (MatchCollectives.h).
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_IMPORT_MERGERANKS_H
#define DAYDREAM_LIB_IMPORT_MERGERANKS_H

#include "JobDevices.h"

#include "daydream/IR/Graph.h"

#include <functional>
#include <vector>

namespace dd::import {

struct RankGraph {
  int32_t Rank = 0;
  int32_t WorldSize = 0; ///< 0 if not known
  Graph G;
};

/// Where an appended rank lies in the job's graph: each kind of piece of a
/// rank is appended in one block, [Begin, End).
struct RankSpan {
  struct Range {
    size_t Begin = 0, End = 0;
    size_t size() const { return End - Begin; }
  };
  int32_t Rank = 0;
  Range Lanes, Layers, Iterations, Tasks, Attrs, Edges, Notes, Events;
};

/// Moves one rank's graph into \p Job, and frees it, its devices numbered
/// by \p Devices (JobDevices.h). Metadata comes from the first rank added
/// (producer, format), devices by the job's index from each, plus one
/// RankInfo per rank. Ranks are added one at a time, as each is lowered,
/// so that only one rank's graph exists beside the job's.
RankSpan appendRankGraph(Graph &Job, RankGraph &&Rank, JobDevices &Devices);

/// Adds \p Rank to \p Job as a copy of the rank appended at \p Of
/// (RankCopies.h): its own lanes and iterations, as its graph has them, or
/// where it has none (a generator's promise of a copy), lanes and
/// iterations like \p Of's, set by \p CopyLane where given; its devices;
/// no tasks. Frees its graph.
void appendRankCopy(Graph &Job, RankGraph &&Rank, const RankSpan &Of,
                    JobDevices &Devices,
                    const std::function<void(Lane &)> &CopyLane = nullptr);

} // namespace dd::import

#endif // DAYDREAM_LIB_IMPORT_MERGERANKS_H
