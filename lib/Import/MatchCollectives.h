//===- MatchCollectives.h - One barrier per collective across ranks -*- C++
//-*-===//
//
// An NCCL kernel on one rank spins until every rank of its communicator has
// launched the same collective, then moves the data: its recorded duration is
// mostly waiting for the slowest rank, and only the last rank to arrive shows
// the transfer itself. A per-rank graph cannot say that (the wait is frozen
// into the kernel's duration, so a what-if that speeds one rank up changes
// nothing on the others); the job's graph can.
//
// Collectives are matched per process group (communicator), by order of
// issue (the launching call's start) on each member rank, and must agree in
// kind (all_reduce, all_gather, ... from the kernel name or the op around
// it) at every position. A kernel's group is what its trace recorded (the
// notes `group` and `group-ranks` the lowering keeps from Kineto's "Process
// Group Name"/"Process Group ID" and "Process Group Ranks" args); a kernel
// without them belongs to the world, all the job's ranks, which is all that
// traces before 2024 say. Each matched collective becomes:
//
//   a_r  a zero-duration marker ("arrive") on rank r's stream right before
//        its kernel t_r, with t_r's start edges and gap: the moment rank r
//        reaches the collective;
//   B    one barrier task of kind collective on its group's lane,
//        "collectives world" or "collectives pg NAME [0,2,4,6]" (kind
//        comm-channel, rank -1), with comm edges a_r -> B for every member:
//        it starts when the last member arrives and lasts the transfer time,
//        the shortest recorded duration among the t_r (the last arrival's,
//        which waited for no one); its notes say `collective` (kind),
//        `ranks` (group size, which the network model reads), `algorithm`
//        (ring or tree where the kernel name tells) and, for a named group,
//        `group` (its name) and `group-ranks` ("0,2,4,6"), its attributes the
//        message bytes where recorded;
//   t_r  the kernel itself, now of duration 0 with a sync edge B -> t_r: it
//        ends when the collective does, on every member.
//
// Replayed as recorded, every t_r ends at the last arrival plus the transfer,
// as the trace shows; a pass that delays one rank delays all of them.
//
// Everything the traces say of a group is checked, and a doubt is an error
// that names the group, the collective's index and kind and the ranks, not a
// guess: members listed differently by two ranks (or two kernels), a rank
// issuing on a group it is not a member of, members missing from the job, a
// malformed members list, members that issued different numbers or kinds of
// collectives on the group. Different recorded message sizes are a counted
// warning (the largest is kept), and so is a member's recorded "Group size"
// (the note `group-size`) other than the number of ranks matched. A group of
// one rank waits for no one: its kernels stay as recorded.
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
/// messages. Fails, naming the group, ranks and inputs, on any of the
/// doubts above.
llvm::Error matchCollectives(Graph &Job,
                             const std::map<int32_t, std::string> &RankNames,
                             CollectiveStats &Stats,
                             std::vector<std::string> &Warnings);

} // namespace dd::import

#endif // DAYDREAM_LIB_IMPORT_MATCHCOLLECTIVES_H
