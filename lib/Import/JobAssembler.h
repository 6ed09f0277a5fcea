//===- JobAssembler.h - A job's graph, one rank at a time -------*- C++ -*-===//
//
// What a job's import and a split job's reading (SplitJob.h) share once the
// ranks' graphs exist: each is appended in rank order (MergeRanks.h), or,
// where it is the same as a rank appended before it, stored as that rank's
// copy (FoldRanks.h), and then the collectives are matched across them
// (MatchCollectives.h). Both paths going through this one class is what
// makes a split job read back as the very graph a single import writes.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_IMPORT_JOBASSEMBLER_H
#define DAYDREAM_LIB_IMPORT_JOBASSEMBLER_H

#include "MergeRanks.h"

#include "daydream/Import/ImportJob.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>

namespace dd::import {

class JobAssembler {
public:
  /// Builds into \p Job. \p ToStore is how many ranks will be added whole
  /// or folded (not as promised copies): the first rank's size, times that,
  /// is reserved at once, since arrays grown by doubling touch twice their
  /// memory. \p Fold: store a rank identical to an earlier one as its copy.
  JobAssembler(Graph &Job, size_t ToStore, bool Fold)
      : Job(Job), ToStore(ToStore), Fold(Fold) {}

  /// Appends rank \p R, named \p Name in messages. \p Hash is its
  /// rankContentHash() when folding (computed by the caller, possibly on
  /// another thread), else unused. Returns whether it was stored as a copy.
  bool addRank(RankGraph &&R, llvm::StringRef Name, uint64_t Hash);

  /// Adds \p R as a copy of the earlier rank \p SameAs, a generator's
  /// promise (ImportJob.h's RankTrace::SameAs), its lanes set by
  /// \p CopyLane where given. Fails if no rank \p SameAs was stored whole
  /// before it.
  llvm::Error addPromisedCopy(RankGraph &&R, llvm::StringRef Name,
                              int32_t SameAs, const CopyLaneFn &CopyLane);

  /// Matches the collectives across the ranks added.
  llvm::Error finish(CollectiveStats &Stats,
                     std::vector<std::string> &Warnings);

  size_t copies() const { return Copies; }
  const JobDevices &devices() const { return Devices; }

private:
  Graph &Job;
  size_t ToStore;
  bool Fold;
  size_t Copies = 0;
  bool Reserved = false;
  std::map<int32_t, std::string> Names;
  /// The ranks stored whole, by rank and by content hash.
  std::map<int32_t, RankSpan> Whole;
  std::multimap<uint64_t, int32_t> ByHash;
  JobDevices Devices;
};

} // namespace dd::import

#endif // DAYDREAM_LIB_IMPORT_JOBASSEMBLER_H
