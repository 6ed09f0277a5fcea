//===- JobFile.h - The file that makes several .ddir files one job -*- C++
//-*-===//
//
// A job split over files (dd-import -split) is one graph per rank, each an
// ordinary .ddir file, and this small text file that lists them:
//
//   ddjob 1
//   world 2
//   rank 0 bytes 81234 xxh64 5e0c4d0a4be1f2a3 origin-ns 1000 file
//   job.rank0.ddir rank 1 bytes 81170 xxh64 9d2f60a1c0e7b845 origin-ns 1000
//   file job.rank1.ddir group ranks 0,1 collectives 274 group ranks 0
//   collectives 3 name 7
//
// Each rank's file is named relative to the job file's folder; its size and
// xxHash64 are those it had when the job was linked, so that a file changed
// or replaced since is refused instead of being simulated with a job it is
// not part of. The `group` lines record the matching: the process groups
// the link step found (the world first, unnamed) and how many collectives
// each matched, which reading the job checks again. Lines starting with
// ';' are comments. See docs/SplitJobs.md.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IMPORT_JOBFILE_H
#define DAYDREAM_IMPORT_JOBFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dd::import {

struct JobFile {
  static constexpr unsigned Version = 1;

  struct Rank {
    int32_t Rank = 0;
    uint64_t Bytes = 0;
    uint64_t Hash = 0; ///< xxHash64 of the file's bytes
    /// The time its lanes' first gaps count from (the earliest start of
    /// the traces it was lowered with): ranks imported apart each have
    /// their own, and reading the job makes the job's earliest theirs.
    int64_t OriginNs = 0;
    std::string File; ///< relative to the job file's folder, or absolute
  };
  struct Group {
    std::string Name;             ///< empty for the world
    std::vector<int32_t> Members; ///< sorted
    uint64_t Collectives = 0;
  };

  int32_t World = 0;
  std::vector<Rank> Ranks; ///< one per rank of the world, in rank order
  std::vector<Group> Groups;
};

/// Parses a job file's text. \p Name is the file's, for errors, which say
/// "<Name>:<line>: <what>". Refuses anything but a whole job: a version
/// other than JobFile::Version, a missing `world`, a rank outside it or
/// listed twice, a rank missing, a malformed line.
llvm::Expected<JobFile> parseJobFile(llvm::StringRef Name,
                                     llvm::StringRef Text);

/// The same lines after a first line "\p Header 1", for files that describe
/// some ranks of a job (a rank's collective table, SplitJob.h): ranks may be
/// missing.
llvm::Expected<JobFile> parseJobFilePart(llvm::StringRef Name,
                                         llvm::StringRef Header,
                                         llvm::StringRef Text);

/// Writes \p R as a `rank` line.
void printRankLine(const JobFile::Rank &R, llvm::raw_ostream &OS);

/// Writes \p J in the form parseJobFile() reads.
void printJobFile(const JobFile &J, llvm::raw_ostream &OS);

} // namespace dd::import

#endif // DAYDREAM_IMPORT_JOBFILE_H
