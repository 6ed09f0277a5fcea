//===- SimShares.h - dd-sim's processes each reading their ranks -*- C++
//-*-===//
//
// `mpirun -np P dd-sim job.ddjob`, where only the report is asked for,
// has each process read its share of the split job (Import/JobShare.h)
// rather than the whole job, and simulate it (DistributedReplay.h:
// simulateShares()). The report is then the one process's, byte for byte,
// only where the shares together stand for the job as one process would
// simulate it:
//
//  - every memory event is on a device of its own rank (its lane known,
//    a GPU event's device one of its rank's lanes'), so that each process
//    replays its own ranks' devices (ShareMemory.h);
//  - no two ranks hash alike (rankFilterHashes()): one process would
//    compare them in full and may simulate one of each kind of identical
//    rank, and the report says so;
//  - every share numbers the job's lanes and iterations alike (a table
//    written by an older import lacks its rank's iterations), and holds
//    the same barriers, with as many edges in and out (which the messages
//    name) and the same times (a table edited after it was written would
//    give the barriers other transfer times on the processes that read it
//    than on its rank's own);
//  - every share takes the barriers in the same order, without which the
//    processes could wait for each other forever (docs/Distributed.md,
//    "Why the shares cannot deadlock"): tables written before they said
//    which collectives wait for which across streams (CollectiveReach.h)
//    may not, and then process 0 says so.
//
// Each process checks its own ranks and sends process 0 what it found;
// all then agree, and where any check fails every process reads the whole
// job instead, as without shares.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_TOOLS_SIMSHARES_H
#define DAYDREAM_LIB_TOOLS_SIMSHARES_H

#include "daydream/IR/Graph.h"
#include "daydream/Sim/DistributedReplay.h"
#include "daydream/Sim/ProcessGroup.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace dd {

/// A process's share of a split job, and the process of each rank.
struct JobShareRead {
  Graph G;
  std::vector<uint32_t> ProcessOfRank;
  ShareReadTime Took;
};

/// Reads this process's share of the split job whose job file is \p Path.
llvm::Expected<JobShareRead> readShareOfJob(llvm::StringRef Path,
                                            const ProcessGroup &PG);

/// What the processes found of their shares together.
struct SharesVerdict {
  /// The shares stand for the job (above): the same on every process.
  bool Stand = false;
  /// On process 0: they would, but for the barriers' order.
  bool OrdersDiffer = false;
  /// Some share has memory events (the same on every process).
  bool Memory = false;
};

/// Whether the shares stand for the job (above); every process calls it.
/// \p Symmetry: whether one process would look for identical ranks
/// (dd-sim -symmetry).
SharesVerdict sharesStandForJob(const JobShareRead &S, ProcessGroup &PG,
                                bool Symmetry);

} // namespace dd

#endif // DAYDREAM_LIB_TOOLS_SIMSHARES_H
