//===- Collectives.h - A graph's collectives, for the model -----*- C++ -*-===//
//
// Where a graph keeps its collectives. A multi-rank job's graph (dd-import
// of several ranks' traces) has one barrier task per matched collective: a
// task of kind collective on a comm-channel lane of rank -1 ("collectives
// world"), with notes `collective` (all_reduce, ...), `ranks` (the group
// size) and `algorithm` (where the kernel name told), its bytes attribute
// the message size where recorded; comm edges come into it from each
// member rank's zero-duration "arrive" marker, and sync edges go out of it
// to each member's NCCL kernel, which then ends when the barrier ends. Its
// duration is the transfer time. A single rank's trace has no barriers,
// only that rank's NCCL kernels, whose recorded durations include waiting
// for the other ranks.
//
// This header finds both, tells a collective's kind and algorithm from an
// NCCL kernel name, and re-times a collective by the model. NCCL runs
// all-to-all (and gather and scatter) as grouped sends and receives, so a
// kind of send_recv or other, from a note or a kernel name, gives way to
// what the PyTorch op around the task says: its layer or an enclosing one
// named like "nccl:all_to_all" or "c10d::alltoall_base_". A pass that
// changes how many ranks a barrier models records it in a note
// `modelled-ranks`, which then counts instead of `ranks`; of several notes
// with one key the last counts.
//
// A process group's members (the barrier's `group-ranks` note, "0,2,4,6",
// else its lane's name, "collectives pg 3 [0,2,4,6]"; a kernel's
// `group-ranks` note, "[0, 2, 4, 6]") say which nodes the group occupies,
// which the model times it by: a data-parallel group across
// tensor-parallel ones is strided over nodes, not packed into them.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_COMM_COLLECTIVES_H
#define DAYDREAM_COMM_COLLECTIVES_H

#include "daydream/Comm/NetworkModel.h"
#include "daydream/IR/Types.h"

#include "llvm/ADT/Optional.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <vector>

namespace dd {

class Graph;

namespace comm {

/// The note keys.
constexpr llvm::StringLiteral CollectiveNote = "collective";
constexpr llvm::StringLiteral RanksNote = "ranks";
constexpr llvm::StringLiteral AlgorithmNote = "algorithm";
constexpr llvm::StringLiteral ModelledRanksNote = "modelled-ranks";
constexpr llvm::StringLiteral GroupRanksNote = "group-ranks";

/// A process group's members: its ranks, ascending, and the distance
/// between neighbours where they are evenly spaced.
struct GroupMembers {
  std::vector<int32_t> Ranks;
  int64_t Stride = 0; ///< 0: unevenly spaced (or one rank)
};

/// "0,2,4,6" or "[0, 2, 4, 6]"; None if anything else (the importer
/// reports malformed lists; here they only mean "unknown").
llvm::Optional<GroupMembers> parseGroupMembers(llvm::StringRef Text);

struct CollectiveInfo {
  /// The barrier, or, in a graph without barriers, the recorded kernel.
  TaskId Task = NoId;
  bool IsBarrier = false;
  CollectiveKind Kind = CollectiveKind::Other;
  /// As the notes or the kernel name say; Default if they do not.
  Algorithm Alg = Algorithm::Default;
  /// Message bytes (the task's bytes attribute), 0 if not recorded.
  uint64_t Bytes = 0;
  /// Group size: the `modelled-ranks` note, else `ranks`, else (barriers)
  /// the number of arrivals or (kernels) the fallback given to
  /// findCollectiveKernels(); 0 if unknown.
  int64_t Ranks = 0;
  /// Barriers: each member rank's arrive marker and NCCL kernel, in the
  /// order of the graph's edges.
  std::vector<TaskId> Arrivals;
  std::vector<TaskId> Members;
  /// The group's member ranks where the graph records them (shared by the
  /// collectives of one group); null if not.
  std::shared_ptr<const GroupMembers> Group;
};

/// Where \p C's group sits with \p Ranks ranks on nodes of
/// \p GpusPerNode: its recorded members where there are \p Ranks of them;
/// as many evenly spaced ones from its first where \p Ranks is another
/// size (a group 8 apart stays 8 apart on more ranks); consecutive ranks
/// where the members are unknown or uneven.
Placement groupPlacement(const CollectiveInfo &C, int64_t Ranks,
                         int64_t GpusPerNode);

/// The barrier tasks of \p G, in id order: live tasks of kind collective on
/// a comm-channel lane of rank -1 that have a `collective` note.
std::vector<CollectiveInfo> findCollectives(const Graph &G);

/// Recorded communication kernels of \p G that no barrier joins: live GPU
/// tasks on GPU streams of kind collective, or kernels whose name says NCCL
/// or RCCL, without an incoming sync edge from a barrier. Their group size
/// comes from their notes, else \p DefaultRanks. In id order.
std::vector<CollectiveInfo> findCollectiveKernels(const Graph &G,
                                                  int64_t DefaultRanks);

/// The job's world size as the metadata records it (the largest
/// Rank.world_size), 0 if it does not.
int64_t recordedWorldSize(const Graph &G);

/// GPUs per node as the metadata shows it: where it lists every rank of the
/// world with its host and the ranks sit on several hosts, the most ranks
/// on one host; 0 otherwise (one host says nothing about its size).
int64_t recordedGpusPerNode(const Graph &G);

/// The name of the graph's first named device, "" if none.
llvm::StringRef graphGpuName(const Graph &G);

/// \p RecordedNs of a collective recorded on \p Old with \p OldRanks ranks,
/// times model(\p New, \p NewRanks) / model(\p Old, \p OldRanks): the
/// recorded time where nothing changes, and the model's change elsewhere.
/// A collective without \p Bytes gets the size that makes the model on
/// \p Old take its recorded time (none, if the latency alone exceeds it).
/// Where the model gives \p Old no time (one rank), the model's new time.
double retimeNs(double RecordedNs, CollectiveKind K, Algorithm A,
                uint64_t Bytes, int64_t OldRanks, const Topology &Old,
                int64_t NewRanks, const Topology &New);

/// The same with each group's placement given (groupPlacement()).
double retimeNs(double RecordedNs, CollectiveKind K, Algorithm A,
                uint64_t Bytes, const Placement &OldP, const Topology &Old,
                const Placement &NewP, const Topology &New);

} // namespace comm
} // namespace dd

#endif // DAYDREAM_COMM_COLLECTIVES_H
