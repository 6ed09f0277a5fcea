//===- SplitJob.h - A job kept as one .ddir per rank ------------*- C++ -*-===//
//
// A job's graph grows with its ranks; one file for all of them must be
// written, read and held whole by one process. A split job is one .ddir
// per rank plus a job file (JobFile.h). It is made in two steps that need
// nothing but their own inputs, so that on a cluster each can be its own
// task:
//
//   import  each rank's trace is lowered to its graph, and its collective
//           table (collectiveTable()) is taken from it: the rank's
//           collective kernels with what matching reads of them, a few
//           records per collective;
//   link    the tables, never the ranks' tasks, are matched across ranks
//           (linkCollectives()), with every check and warning a single
//           import makes (MatchCollectives.h), and the job file records
//           the ranks' files and the matching.
//
// Reading a split job (readSplitJob()) checks each rank's file against the
// job file, appends the ranks in rank order, folds identical ones and
// matches the collectives the way a single import does (JobAssembler.h):
// the graph is the one `dd-import` of the same traces into one file makes,
// byte for byte once written, and a tool is handed it as it would be read
// from that file.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IMPORT_SPLITJOB_H
#define DAYDREAM_IMPORT_SPLITJOB_H

#include "daydream/IR/Graph.h"
#include "daydream/IR/IRReader.h"
#include "daydream/Import/ImportJob.h"
#include "daydream/Import/JobFile.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace dd::import {

/// Rank \p Rank's collective kernels (on its GPU streams), each with its
/// name, times, layers, message bytes and group notes, and the CPU call
/// that launched it: all that matching reads, in the order the rank's
/// lanes hold them, on copies of the rank's lanes, with the rank's
/// iterations (which a process's share of a job reports, JobShare.h) and
/// which collectives wait for which across streams (CollectiveReach.h:
/// a share orders its barriers by them).
Graph collectiveTable(const Graph &Rank);

/// A rank's collective table, with the rank it is.
struct RankTable {
  int32_t Rank = 0;
  int32_t WorldSize = 0;
  std::string Name; ///< the rank's input, for messages
  Graph Table;
};

/// Matches the collectives of \p Tables (one per rank, in rank order) as
/// importJob() matches a job's: the same errors, naming the same ranks and
/// inputs, the same warnings and statistics. Returns the process groups of
/// two or more ranks that it matched collectives in, the world first.
llvm::Expected<std::vector<JobFile::Group>>
linkCollectives(std::vector<RankTable> &&Tables, CollectiveStats &Stats,
                std::vector<std::string> &Warnings);

/// "job.rank3.ddcoll" for rank 3 of the job file \p JobPath: its collective
/// table, beside its graph, when the ranks are imported apart.
std::string rankTablePath(llvm::StringRef JobPath, int32_t Rank);

/// Writes rank \p Entry's collective table \p Table as its table file: the
/// job file's lines for it (a first line "ddcoll 1", `world`, its `rank`
/// line, whose file is relative to the table file's folder), then the
/// table as a graph, binary (after a line "ddir-binary", 8-byte aligned)
/// or, with \p Text, in .ddir text form.
llvm::Error writeRankTableFile(int32_t World, const JobFile::Rank &Entry,
                               const Graph &Table, bool Text,
                               llvm::raw_ostream &OS);

/// The link step of ranks imported apart: reads the table files \p Paths,
/// one per rank of a job, checks that they are the whole job and that each
/// rank's file is where and of the size its table says, and matches the
/// collectives (linkCollectives()). Returns the job file to write as
/// \p JobPath (rank files named relative to its folder). Errors name the
/// table files: two of one rank, ranks of different worlds, ranks missing.
llvm::Expected<JobFile> linkRankTables(llvm::ArrayRef<std::string> Paths,
                                       llvm::StringRef JobPath,
                                       CollectiveStats &Stats,
                                       std::vector<std::string> &Warnings);

/// The xxHash64 the job file records of a rank's file.
uint64_t rankFileHash(llvm::StringRef Bytes);

/// The job file \p Path, read and parsed (JobFile.h); errors name it.
llvm::Expected<JobFile> readJobFile(llvm::StringRef Path);

/// Reads the split job whose job file is \p Path into one graph. Errors
/// name the job file and, where it is at fault, the rank's file: a file
/// missing, of another size or content than when linked, not the rank or
/// world the job file says, or not a valid graph; and collectives that no
/// longer match the recorded groups.
llvm::Expected<Graph> readSplitJob(llvm::StringRef Path,
                                   GraphUse Use = GraphUse::Copy);

/// "job.rank3.ddir" for rank 3 of the job file \p JobPath ("job.ddjob";
/// a name without that extension has ".rank3.ddir" appended).
std::string rankFilePath(llvm::StringRef JobPath, int32_t Rank);

/// Rank \p R's file of the split job \p J (job file \p JobPath), checked
/// against what the job file says of it: its size and xxHash64, and that
/// it is that rank of that world; read for \p Use. Its lanes' first gaps
/// count from its own origin, as its file has them (reading the job whole
/// counts them from the job's).
llvm::Expected<Graph> readRankFile(llvm::StringRef JobPath, const JobFile &J,
                                   const JobFile::Rank &R,
                                   GraphUse Use = GraphUse::ReadInPlace);

} // namespace dd::import

#endif // DAYDREAM_IMPORT_SPLITJOB_H
