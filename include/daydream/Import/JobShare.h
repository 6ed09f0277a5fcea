//===- JobShare.h - The ranks of a split job one process simulates -*- C++
//-*-===//
//
// `mpirun -np P dd-sim job.ddjob` need not have every process read the
// whole job (docs/Distributed.md). The ranks go to the processes in
// contiguous blocks of about equal bytes of rank files (processOfRanks()),
// and each process reads its share (readJobShare()): its own ranks' files
// whole, and every other rank as its collective table (SplitJob.h), the
// few records a collective that rank issued. Matching the collectives
// across all of them gives each barrier exactly as the whole job's graph
// has it (members, transfer time, notes), since matching reads nothing
// else; and the tables carry their ranks' lanes and iterations, so the
// share numbers lanes and iterations as the whole job does and its sums
// add up with the other processes'. A rank standing in as its table is
// never simulated here: its process sends the times its barriers need.
// The tables also say which collectives wait for which across streams
// (CollectiveReach.h), so that every share's order takes the barriers in
// one sequence, which keeps the processes from waiting on each other
// (docs/Distributed.md, "Why the shares cannot deadlock").
//
// A table is read from beside the job file (rankTablePath()), where
// `dd-import -split` writes it, or else from beside the rank's file, where
// `-split -no-link` wrote it, if it is that rank file's (the same size and
// xxHash64); otherwise it is cut from the rank's file, which is then read
// whole once.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IMPORT_JOBSHARE_H
#define DAYDREAM_IMPORT_JOBSHARE_H

#include "daydream/IR/Graph.h"
#include "daydream/IR/IRReader.h"
#include "daydream/Import/JobFile.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace dd::import {

/// For \p Processes processes sharing the job \p J: the process of each
/// rank, indexed by rank. Contiguous blocks in rank order, each rank going
/// to the block its file's middle byte falls in.
std::vector<uint32_t> processOfRanks(const JobFile &J, unsigned Processes);

/// The share of the split job \p J (job file \p Path) of a process that
/// simulates the ranks \p Whole (ascending): those ranks' files whole,
/// every other rank as its collective table, the collectives matched, and
/// the result handed over as a graph read from a file for \p Use. Errors
/// are readSplitJob()'s, for the ranks read whole.
llvm::Expected<Graph> readJobShare(llvm::StringRef Path, const JobFile &J,
                                   llvm::ArrayRef<int32_t> Whole,
                                   GraphUse Use = GraphUse::Copy);

} // namespace dd::import

#endif // DAYDREAM_IMPORT_JOBSHARE_H
