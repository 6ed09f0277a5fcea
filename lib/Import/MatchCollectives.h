//===- MatchCollectives.h - One barrier per collective across ranks -*- C++ -*-===//
//
// An NCCL kernel on one rank spins until every rank of its communicator has
// launched the same collective, then moves the data: its recorded duration is
// mostly waiting for the slowest rank, and only the last rank to arrive shows
// the transfer itself. A per-rank graph cannot say that (the wait is frozen
// into the kernel's duration, so a what-if that speeds one rank up changes
// nothing on the others); the job's graph can.
//
// Collectives are matched by order of issue (the launching call's start) on
// each rank, and must agree in kind (all_reduce, all_gather, ... from the
// kernel name or the op around it) at every position. Each matched collective becomes:
//
//   a_r  a zero-duration marker ("arrive") on rank r's stream right before
//        its kernel t_r, with t_r's start edges and gap: the moment rank r
//        reaches the collective;
//   B    one barrier task of kind collective on the job's lane
//        "collectives world" (kind comm-channel, rank -1) with comm edges
//        a_r -> B for every rank: it starts when the last rank arrives and
//        lasts the transfer time, the shortest recorded duration among the
//        t_r (the last arrival's, which waited for no one); its notes say
//        `collective` (kind), `ranks` (group size) and `algorithm` (ring or
//        tree where the kernel name tells), its attributes the message
//        bytes where recorded;
//   t_r  the kernel itself, now of duration 0 with a sync edge B -> t_r: it
//        ends when the collective does, on every rank.
//
// Replayed as recorded, every t_r ends at the last arrival plus the transfer,
// as the trace shows; a pass that delays one rank delays all of them.
//
// Process groups other than the whole world are not told apart: old traces
// do not say which communicator a kernel used. A job with several groups
// fails the kind check at the first position where they interleave
// differently, with an error that names the ranks, rather than being
// matched wrongly.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_IMPORT_MATCHCOLLECTIVES_H
#define DAYDREAM_LIB_IMPORT_MATCHCOLLECTIVES_H

#include "daydream/IR/Graph.h"
#include "daydream/Import/ImportJob.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>

namespace dd::import {

/// A collective kernel's kind and algorithm as notes spell them
/// (CollectiveNames.h): from its name, and where that says only send/recv
/// (NCCL's all-to-all), from the PyTorch op around it (its layers). The
/// algorithm is empty where the name does not tell.
struct CollectiveName {
  llvm::StringRef Kind;
  llvm::StringRef Algorithm;
};
CollectiveName classifyCollective(const Graph &G, TaskId Kernel);

/// Matches the collective kernels of \p Job's ranks and joins each into a
/// barrier as described above. \p RankNames names each rank's input for
/// messages. Fails, naming ranks and inputs, when the ranks issued different
/// numbers or kinds of collectives.
llvm::Error matchCollectives(Graph &Job,
                             const std::map<int32_t, std::string> &RankNames,
                             CollectiveStats &Stats,
                             std::vector<std::string> &Warnings);

} // namespace dd::import

#endif // DAYDREAM_LIB_IMPORT_MATCHCOLLECTIVES_H
