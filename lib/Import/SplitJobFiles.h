//===- SplitJobFiles.h - A split job's files, one at a time ------*- C++
//-*-===//
//
// Private to lib/Import. What reading a split job whole (SplitJob.cpp) and
// reading a process's share of it (JobShare.cpp) both do with its files:
// find a rank's file, read and check it against the job file, read a
// rank's collective table, move a rank's first gaps to the job's clock,
// match the collectives, check them against the job file's groups, and
// hand the result over as a graph read from a file.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_IMPORT_SPLITJOBFILES_H
#define DAYDREAM_LIB_IMPORT_SPLITJOBFILES_H

#include "JobAssembler.h"

#include "daydream/IR/Graph.h"
#include "daydream/IR/IRReader.h"
#include "daydream/Import/ImportJob.h"
#include "daydream/Import/JobFile.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <string>

namespace dd::import {

/// An error of reading a split job's files: \p Msg, which names the file.
llvm::Error jobError(const llvm::Twine &Msg);

/// Where rank \p R's file is: as the job file \p JobPath names it,
/// relative to its folder.
std::string rankPathOf(llvm::StringRef JobPath, const JobFile::Rank &R);

/// A rank's table file (SplitJob.h): its job-file lines, then its table.
struct ReadTable {
  JobFile::Rank Entry;
  int32_t World = 0;
  std::string Path;
  Graph Table;
};
llvm::Expected<ReadTable> readRankTableFile(llvm::StringRef Path);

/// A rank lowered apart counted its lanes' first gaps from its own first
/// event, \p OriginNs; the job counts them from its earliest, \p JobNs, as
/// a single import of every rank does (Lowering.h: OriginNs). A CPU
/// thread's first task that waited for nothing has the gap from the origin
/// to its start, and only it: the gap of one that waited counts from what
/// it waited for. So moving the origin lengthens exactly those gaps. (A
/// GPU stream's first kernel without a launch keeps a gap only up to the
/// GPU's latency, which a rank's file does not record; it is left as is.)
void countFromJobOrigin(Graph &G, int64_t OriginNs, int64_t JobNs);

/// The earliest time origin among the job file's ranks: the job's, from
/// which every rank's first gaps count (countFromJobOrigin()).
int64_t jobOriginNs(const JobFile &J);

/// Matches the collectives across the ranks \p A assembled into \p Job,
/// checks what it matched against the groups the job file \p J (at
/// \p Path) records, and hands \p Job over as a tool reads a file: written
/// to an unnamed temporary file and read back from it for \p Use. A tool
/// then sees the very graph (its numbering, its edges' order, its records
/// mapped from a file) that a single import's file gives it, and the job's
/// records live in the page cache, not in the process's memory. \p Trim,
/// if given, may remove tasks from the matched job before it is handed
/// over.
llvm::Expected<Graph>
finishJob(llvm::StringRef Path, const JobFile &J, JobAssembler &A, Graph &&Job,
          GraphUse Use, llvm::function_ref<void(Graph &)> Trim = nullptr);

} // namespace dd::import

#endif // DAYDREAM_LIB_IMPORT_SPLITJOBFILES_H
