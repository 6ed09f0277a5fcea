//===- SplitJobWriter.h - dd-import -split: a job as a file per rank -*- C++
//-*-===//
//
// Lowers a job's ranks a batch at a time, writes each rank's graph to its
// own file as soon as it is lowered, keeps only its collective table, links
// the tables and writes the job file (Import/SplitJob.h). No file appears
// under its final name until every rank is written and the collectives
// matched: a failure leaves the old files as they were.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_TOOLS_SPLITJOBWRITER_H
#define DAYDREAM_LIB_TOOLS_SPLITJOBWRITER_H

#include "daydream/IR/Graph.h"
#include "daydream/Import/ImportJob.h"
#include "daydream/Import/JobFile.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace dd {

class OutputFile;

/// An error of writing a split job: \p Msg, which names the file.
llvm::Error splitJobError(const llvm::Twine &Msg);

/// Refuses a job file's name no job file can have: stdout, where \p Why
/// says what needs a name, or one with a line break (its rank files are
/// named on lines of their own).
llvm::Error checkJobPath(llvm::StringRef JobPath, llvm::StringRef Why);

/// A rank's files, written.
struct RankFiles {
  import::JobFile::Rank Entry; ///< its job-file line
  Graph Table;                 ///< its collective table
};

/// Writes \p G as rank \p Rank of the \p World ranks of the split job
/// \p JobPath: its file beside the job file (binary, or text with \p Text)
/// and its collective table, each to a temporary file added to \p Outputs,
/// which the caller commits once the whole job is written. \p OriginNs:
/// what the job file records of the rank's clock.
llvm::Expected<RankFiles>
writeRankFiles(const Graph &G, llvm::StringRef JobPath, int32_t Rank,
               int32_t World, int64_t OriginNs, bool Text,
               std::vector<std::unique_ptr<OutputFile>> &Outputs);

struct SplitJobSummary {
  /// One per rank, in rank order, without its graph.
  std::vector<import::ImportResult> Ranks;
  std::vector<int32_t> RankIds;
  std::vector<std::string> Files; ///< each rank's file, as written
  uint64_t Tasks = 0;             ///< all ranks' tasks, before matching
  uint64_t Bytes = 0;             ///< all ranks' files
  size_t Groups = 0;              ///< process groups, the world included
  import::CollectiveStats Collectives;
  std::vector<std::string> Warnings;
};

/// Imports the traces \p Paths with \p Opts as the split job \p JobPath,
/// each rank's graph in binary or, with \p Text, in text form. The ranks
/// are read and lowered a batch of Opts.ReadThreads at a time
/// (import::importRanksInBatches()) and each is written as soon as it is
/// lowered, so the import holds one batch of traces, never the job. With
/// \p NoLink, \p Paths are some ranks of the job, imported apart from the
/// others: each rank's collective table is written beside its graph
/// (rankTablePath()) instead of the job file, which linkSplitJob() makes
/// from all ranks' tables.
llvm::Expected<SplitJobSummary>
writeSplitJob(llvm::ArrayRef<std::string> Paths,
              const import::ImportOptions &Opts, llvm::StringRef JobPath,
              bool Text, bool NoLink, import::ProgressFn Progress = nullptr);

/// The link step: the job file \p JobPath from every rank's collective
/// table \p Tables (import::linkRankTables()).
llvm::Expected<SplitJobSummary> linkSplitJob(llvm::ArrayRef<std::string> Tables,
                                             llvm::StringRef JobPath);

} // namespace dd

#endif // DAYDREAM_LIB_TOOLS_SPLITJOBWRITER_H
