//===- FoldRanks.h - Store a rank identical to an earlier one as a copy -*- C++
//-*-===//
//
// A job whose ranks are the same program with the same draws (a generator's
// -identical-ranks, a replayed benchmark) need not hold every rank: a rank
// whose lowered graph would append exactly what an earlier rank appended
// is stored as a copy of it (IR/RankCopies.h), with its own lanes and
// iterations, so the job's graph takes the memory of its distinct ranks.
// "Exactly" is every field of every task (names, times, correlation ids,
// layers, attributes), edge, note, layer and memory event, relative to the
// rank's own numbering, and its lanes' kinds and orders; only what a copy
// keeps of its own (its lanes' names, devices and native ids, its
// iterations' names and its memory events' device numbers) may differ.
// Recorded ranks never match to the nanosecond, so a recorded job is
// stored whole.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_IMPORT_FOLDRANKS_H
#define DAYDREAM_LIB_IMPORT_FOLDRANKS_H

#include "MergeRanks.h"

#include <cstdint>
#include <limits>

namespace dd::import {

/// A hash of \p Rank's lanes and tasks in lane order: ranks that are the
/// same have the same hash. Linear, no allocation. With \p MaxPerLane, of
/// each lane's first tasks only: as good a filter before sameAsAppended()
/// wherever ranks differ early (recorded ranks differ from their first
/// task), for a fraction of the time.
uint64_t rankContentHash(const Graph &Rank, size_t MaxPerLane = SIZE_MAX);

/// Whether \p Rank, a rank's graph not yet appended, is the same as the
/// rank \p Appended holds in \p Job, in the sense above.
bool sameAsAppended(const Graph &Job, const RankSpan &Appended,
                    const Graph &Rank);

} // namespace dd::import

#endif // DAYDREAM_LIB_IMPORT_FOLDRANKS_H
