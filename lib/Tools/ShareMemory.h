//===- ShareMemory.h - The memory replay of a job read in shares -*- C++
//-*-===//
//
// `mpirun -np P dd-sim job.ddjob` reads a split job in shares (SimShares.h)
// and keeps no task's times, but the memory replay moves each memory event
// with its task (MemoryBreakdown.h). In a job every device the replay
// follows is one rank's: a GPU (the job numbers them one index each,
// JobDevices.h) or a rank's host memory, and a free pairs only with its
// own rank's blocks. So each process replays its own ranks' events alone,
// from the times of their tasks, which an observer of the walk keeps
// (ShareMemoryTimes), and process 0 gathers the devices' peaks
// (gatherShareMemory()): the breakdown one process would compute, device
// for device. The shares stand for such a job only where each event's
// device is its rank's (memoryIsRankLocal()).
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_TOOLS_SHAREMEMORY_H
#define DAYDREAM_LIB_TOOLS_SHAREMEMORY_H

#include "daydream/Analysis/MemoryBreakdown.h"
#include "daydream/IR/Graph.h"
#include "daydream/Sim/ProcessGroup.h"
#include "daydream/Sim/Simulator.h"

#include "llvm/ADT/Optional.h"

#include <cstdint>
#include <vector>

namespace dd {

/// Whether every memory event of \p G is on a device of its own rank: its
/// rank known (memoryEventRank()), and a GPU event's device one of that
/// rank's lanes'. Then
/// each device's events are one rank's, and one process's in shares.
bool memoryIsRankLocal(const Graph &G);

/// Keeps the times of the tasks \p G's memory events move with, as the
/// walk over this process's share sees them, and passes everything on to
/// \p Inner (the headline's observer, or none).
class ShareMemoryTimes final : public TaskTimeObserver {
public:
  ShareMemoryTimes(const Graph &G, TaskTimeObserver *Inner);

  void ran(TaskId First, llvm::ArrayRef<int64_t> Start,
           llvm::ArrayRef<int64_t> End) override;
  void finish(int64_t OriginNs) override;
  bool complete() const override;
  void pack(std::vector<int64_t> &Out) override;
  bool merge(llvm::ArrayRef<int64_t> Packed) override;
  bool mergesUp() const override;
  void packUp(std::vector<int64_t> &Out) override;
  bool mergeUp(llvm::ArrayRef<int64_t> Packed) override;
  void laneOwners(llvm::ArrayRef<uint32_t> Owner, unsigned Me) override;

  /// The times kept, made absolute by the walk's origin \p OriginNs, as a
  /// partial result (no iterations); the observer keeps none after.
  SimResult takeTimes(int64_t OriginNs);
  /// The events' facts, found once for the tasks to keep and the replay.
  const MemoryEventFacts &facts() const { return Facts; }
  TaskTimeObserver *inner() const { return Inner; }

private:
  TaskTimeObserver *Inner;
  MemoryEventFacts Facts;
  /// The tasks whose times are kept, ascending; the next to look for.
  std::vector<TaskId> Wanted;
  size_t Next = 0;
  std::vector<int64_t> Start, End;
};

/// After the walk over the shares, every process: process 0 sends the
/// walk's origin (\p Result's, where it has one) to every other, each
/// replays its share's events from the times \p Times kept, and process 0
/// gathers every device's peak into its breakdown, the peaks' iterations
/// found in \p Result. Returns the breakdown on process 0, None elsewhere.
llvm::Optional<MemoryBreakdown> gatherShareMemory(const Graph &Share,
                                                  ShareMemoryTimes &Times,
                                                  const SimResult *Result,
                                                  ProcessGroup &PG);

} // namespace dd

#endif // DAYDREAM_LIB_TOOLS_SHAREMEMORY_H
