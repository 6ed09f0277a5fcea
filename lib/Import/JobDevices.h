//===- JobDevices.h - One index per GPU across a job's ranks ----*- C++ -*-===//
//
// Each rank's trace numbers the GPUs its process sees from 0, so two ranks'
// "device 0" are two GPUs wherever the ranks run on several nodes, or each
// process sees only its own GPU (CUDA_VISIBLE_DEVICES, Slurm's GPU
// binding). They cannot be one GPU: NCCL refuses two ranks of one
// communicator on one device ("Duplicate GPU detected"). Keyed by the
// recorded index alone, the job would add two GPUs' kernels into one
// device's utilization and two GPUs' allocations into one device's memory
// (and match one GPU's frees against the other's addresses).
//
// So a job numbers its GPUs itself, rank by rank in the order they are
// appended: a rank's device keeps its recorded index where no earlier rank
// has a device of that index, and otherwise takes the lowest index no rank
// has yet. A job whose ranks number their GPUs apart (one node, every
// process seeing all of them and using its own) keeps its numbers; one of
// two 8-GPU nodes numbers the second node's GPUs 8 to 15. A new index is
// also one no rank declares: a trace declares every GPU its process can
// see, and those of an index no lane uses may be other GPUs of the node.
// Only lanes and declarations decide, which a rank's collective table
// (SplitJob.h) carries as its file does (not its memory events), so that
// every share of a split job numbers the devices alike (JobShare.h).
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_IMPORT_JOBDEVICES_H
#define DAYDREAM_LIB_IMPORT_JOBDEVICES_H

#include "daydream/IR/Graph.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <set>
#include <string>
#include <utility>

namespace dd::import {

/// A rank's devices: (recorded index, the job's index), by recorded index.
class RankDevices {
public:
  /// The job's index of the rank's device \p Recorded (-1, the host, and
  /// an index none of its lanes has stay as they are).
  int32_t operator()(int32_t Recorded) const;
  /// Those whose index changed.
  llvm::SmallVector<std::pair<int32_t, int32_t>, 2> renumbered() const;

private:
  friend class JobDevices;
  llvm::SmallVector<std::pair<int32_t, int32_t>, 2> Map;
};

/// The devices of the ranks appended to a job so far.
class JobDevices {
public:
  /// Numbers the devices of the next rank appended, \p Rank, whose lanes
  /// are \p Lanes and whose declared devices are \p Declared, as recorded.
  RankDevices number(int32_t Rank, llvm::ArrayRef<Lane> Lanes,
                     llvm::ArrayRef<Device> Declared);

  /// How many ranks' devices took a new index, and the first, as "rank R's
  /// device D is the job's device N" (for the import's summary).
  size_t renumbered() const { return Renumbered; }
  const std::string &firstRenumbered() const { return First; }

private:
  /// The indices of the lanes of the ranks so far.
  std::set<int32_t> Used;
  /// The indices the ranks so far declared (a trace declares every GPU
  /// its process could see, used or not): a device given a new index
  /// takes none of them, nor one its own rank declares.
  std::set<int32_t> Named;
  /// No index below it is in Used or Named (both only grow), so that
  /// numbering many ranks is linear.
  int32_t LowestFree = 0;
  size_t Renumbered = 0;
  std::string First;
};

} // namespace dd::import

#endif // DAYDREAM_LIB_IMPORT_JOBDEVICES_H
