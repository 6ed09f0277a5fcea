//===- ImportJob.h - Several ranks' traces to one graph -------*- C++ -*-===//
//
// A data-parallel (or any multi-GPU) job is recorded as one trace per rank.
// importJob() reads them all, checks that they are the ranks of one job,
// lowers each with the job's common time origin, merges them into one graph
// whose lanes carry their rank, and matches each collective across the ranks
// (MatchCollectives.h) within its process group: what one rank's NCCL
// kernel waits for is the other members reaching the same collective, and
// only one graph can say that.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IMPORT_IMPORTJOB_H
#define DAYDREAM_IMPORT_IMPORTJOB_H

#include "daydream/Import/Importer.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <functional>

namespace dd::import {

/// What matching the collectives found.
struct CollectiveStats {
  uint64_t Matched = 0;        ///< collectives, each one barrier task
  uint64_t Members = 0;        ///< NCCL kernels joined to a barrier
  uint64_t SizeMismatches = 0; ///< matched collectives whose ranks recorded
                               ///< different message sizes
  uint64_t Groups = 0; ///< process groups the traces named (0: the world
                       ///< only, as in traces without group args)
  uint64_t GroupSizeMismatches = 0; ///< matched collectives a member's
                                    ///< "Group size" says are of another
                                    ///< number of ranks
};

/// The members of a process group as Kineto writes them in a collective's
/// "Process Group Ranks" arg: "[0, 1, 2]", sorted on return. Errors on
/// anything else (no brackets, an empty list, a negative or non-numeric
/// rank, a rank listed twice), quoting the text.
llvm::Expected<std::vector<int32_t>> parseGroupRanks(llvm::StringRef Text);

struct JobImportResult {
  /// The job's graph: every rank's lanes (Lane::Rank set), every rank's
  /// iterations (Iteration::Rank set) and one barrier per collective.
  Graph G;
  /// One per rank, in rank order, with its own statistics (their graphs
  /// are moved into G and left empty).
  std::vector<ImportResult> Ranks;
  /// The rank of each entry of Ranks.
  std::vector<int32_t> RankIds;
  /// Ranks stored as copies of another (IR/RankCopies.h).
  size_t RankCopies = 0;
  /// Ranks whose GPUs took another index in the job, since an earlier rank
  /// numbered its own alike (lib/Import/JobDevices.h), and the first of
  /// them ("rank R's device D is the job's device N").
  size_t DevicesRenumbered = 0;
  std::string FirstRenumbered;
  CollectiveStats Collectives;
  /// Warnings about the job as a whole (each front-end's are in Ranks).
  std::vector<std::string> Warnings;
};

/// Imports the traces \p Paths, one per rank, as one job. A trace's rank
/// comes from its distributedInfo; if no trace has one, the order of the
/// paths gives the ranks. Errors, each naming the inputs: a trace with a
/// rank beside one without, two traces of one rank, different world sizes
/// (ranks of different jobs), ranks missing from the world, and collectives
/// that do not match across ranks (MatchCollectives.h).
llvm::Expected<JobImportResult> importJob(llvm::ArrayRef<std::string> Paths,
                                          const ImportOptions &Opts,
                                          ProgressFn Progress = nullptr);

/// Sets a promised copy's lane as its own trace would have it.
using CopyLaneFn = std::function<void(Lane &)>;

/// One rank's trace as read (readTrace()), or as made by a generator:
/// \p R needs only its Name (for messages); the rank comes from
/// Model.Meta.Ranks as for a file.
struct RankTrace {
  ImportResult R;
  TraceModel Model;
  /// -1, or a generator's promise that this rank's trace is rank SameAs's
  /// with only its rank changed: Model then needs only its metadata, and the
  /// rank is stored as a copy (IR/RankCopies.h) without being lowered.
  int32_t SameAs = -1;
  /// For a promised copy: what its lanes have other than SameAs's, as its
  /// trace would record them (the generator's GPU and thread ids), set on
  /// each of them before the job numbers its devices (JobDevices.h).
  CopyLaneFn CopyLane;
  /// For a trace that records no rank, read among others in batches
  /// (importRanksInBatches()): the rank and world its place among all the
  /// inputs gives it, as a single import would; -1 where not given.
  int32_t OrderRank = -1;
  int32_t OrderWorld = 0;
};

/// A rank as the checks that ranks make one job see it.
struct RankOfJob {
  int32_t Rank = 0;
  int32_t World = 0;    ///< 0 if not recorded
  llvm::StringRef Name; ///< the input it came from, for messages
};

/// Checks that \p Ranks, sorted by rank, are ranks of one job: no rank
/// twice, one world, none outside it, and with \p Whole none missing from
/// it (a world of 0, not recorded, is not checked against). \p Of says what
/// each rank was given as ("trace", "collective table") where ranks are
/// missing. importJob(), dd-import -split and -link all check this way.
llvm::Error checkRanksOfJob(llvm::ArrayRef<RankOfJob> Ranks, bool Whole,
                            llvm::StringRef Of);

/// The first half of importJob(): reads the traces \p Paths, a thread each
/// up to Opts.ReadThreads. Fails on the first unreadable input in the order
/// given, and on a file given twice.
llvm::Expected<std::vector<RankTrace>>
readJobTraces(llvm::ArrayRef<std::string> Paths, const ImportOptions &Opts,
              ProgressFn Progress = nullptr);

/// A rank as lowerJobRanks() hands it on.
struct LoweredRank {
  /// Its import, with its lowered graph (empty for a promised copy), which
  /// the callee may move from.
  ImportResult &R;
  /// Its trace's metadata: what a promised copy has instead of a graph.
  const Metadata &Meta;
  int32_t Rank;
  int32_t WorldSize;          ///< 0 if not recorded
  int32_t SameAs;             ///< -1, or the rank it is a promised copy of
  const CopyLaneFn &CopyLane; ///< a promised copy's (RankTrace::CopyLane)
  uint64_t Hash;              ///< rankContentHash() of R.G, when asked for
  size_t ToLower;             ///< the job's ranks that are not promised copies
  /// The time its lanes' first gaps count from: the earliest start among
  /// the traces lowered together (LoweringOptions::OriginNs).
  int64_t OriginNs;
};
using EachRankFn = llvm::function_ref<llvm::Error(LoweredRank &)>;

/// Checks the ranks of \p Traces make one job (see importJob()), lowers
/// them with the job's common origin, up to \p Threads at once (0: one per
/// core), and hands each to \p Each in rank order, freeing its graph after.
/// \p HashForFolding: compute each rank's content hash on its thread.
/// \p Part: the traces are some ranks of a job (imported apart from the
/// others), which must record their ranks; none may be missing otherwise.
llvm::Error lowerJobRanks(std::vector<RankTrace> &&Traces,
                          const LoweringOptions &Opts, unsigned Threads,
                          bool HashForFolding, EachRankFn Each,
                          bool Part = false);

/// Reads and lowers the traces \p Paths, some or all ranks of a job, a
/// batch of Opts.ReadThreads at a time (0: one per core), and hands each
/// rank to \p Each as it is lowered, so that one batch of traces is all
/// that is held at once. Each batch is lowered as a part of the job
/// (lowerJobRanks() with Part) from its own earliest start, which
/// LoweredRank::OriginNs gives. With \p RanksByOrder, a trace without a
/// recorded rank is the rank its place among \p Paths makes it (they are
/// the whole job); else it is an error. Checks only what one batch shows;
/// the caller checks the ranks it was handed make a job.
llvm::Error importRanksInBatches(llvm::ArrayRef<std::string> Paths,
                                 const ImportOptions &Opts, bool RanksByOrder,
                                 EachRankFn Each,
                                 ProgressFn Progress = nullptr);

/// The second half of importJob(): checks the ranks, lowers each with the
/// job's common origin (up to \p Threads at once, 0: one per core), merges
/// them in rank order (a rank the same as an earlier one, as a copy of it,
/// with \p FoldIdenticalRanks) and matches their collectives.
llvm::Expected<JobImportResult> lowerJob(std::vector<RankTrace> &&Traces,
                                         const LoweringOptions &Opts,
                                         bool FoldIdenticalRanks = true,
                                         unsigned Threads = 0);

} // namespace dd::import

#endif // DAYDREAM_IMPORT_IMPORTJOB_H
