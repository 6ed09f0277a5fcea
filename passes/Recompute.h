//===- Recompute.h - Run a forward segment again in backward ----*- C++ -*-===//
//
// What activation-checkpointing is made of: the forward segments of the
// selected layers, the place in backward where each is needed again (the
// mirror rule), and the copy of a segment's CPU and GPU work, with its
// memory, put there. The rules are stated in ActivationCheckpointing.cpp
// and docs/passes/activation-checkpointing.md.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_PASSES_RECOMPUTE_H
#define DAYDREAM_PASSES_RECOMPUTE_H

#include "daydream/IR/Types.h"

#include "llvm/ADT/ArrayRef.h"

#include <map>
#include <utility>
#include <vector>

namespace dd {

class Graph;
struct MemoryEventFacts;

namespace recompute {

/// A training step of one rank: (rank, iteration index; -1 before the
/// first iteration).
using StepKey = std::pair<int32_t, int64_t>;

/// The step a task on a lane belongs to: the last iteration of its lane's
/// rank (or of the whole job) starting at or before it. A search among the
/// rank's iterations, not a task-sized array: passes ask it of a fraction
/// of the tasks, and at 10^7 tasks fresh memory costs more than searching.
class StepFinder {
public:
  explicit StepFinder(const Graph &G);
  /// The step of \p T by its own lane and start.
  StepKey stepOf(const Graph &G, TaskId T) const { return spanOf(G, T).Key; }
  /// The same, with the times [From, To) in which any task on \p T's lane
  /// has that step: a walk along a lane searches again only past them.
  struct Span {
    StepKey Key;
    int64_t From, To;
    bool contains(int64_t Time) const { return Time >= From && Time < To; }
  };
  Span spanOf(const Graph &G, TaskId T) const;

private:
  /// (start, iteration index) in time order.
  using Starts = std::vector<std::pair<int64_t, int64_t>>;
  /// Each lane's rank's iterations and the job's, as an index into
  /// RankStarts.
  std::vector<uint32_t> LaneStarts;
  std::vector<Starts> RankStarts;
};

/// Who launched what, and each step's forward and backward GPU work in
/// recorded time order, with running sums of their durations.
class StepWork {
public:
  /// What to index beyond who launched what (always built): fresh memory
  /// is most of the cost at 10^7 tasks, so a pass asks for what it reads.
  enum Part : unsigned {
    Launchers = 0,
    Timelines = 1, ///< forward(), backward()
  };
  explicit StepWork(const Graph &G, Part Parts);

  /// The step a CPU task, or the GPU work it launched, belongs to
  /// (StepFinder; GPU work by its launch). For tasks that existed when
  /// this was built.
  StepKey stepOf(const Graph &G, TaskId T) const {
    return Steps.stepOf(
        G, T < LaunchedBy.size() && LaunchedBy[T] != NoId ? LaunchedBy[T] : T);
  }
  /// The steps of CPU tasks, by their own lanes.
  const StepFinder &steps() const { return Steps; }
  /// The task that launched GPU task \p T, NoId if none.
  TaskId launcher(TaskId T) const { return LaunchedBy[T]; }

  struct Timeline {
    std::vector<TaskId> Tasks;
    /// Before[i]: duration of Tasks[0..i); one more entry than Tasks.
    std::vector<int64_t> Before;
  };
  const Timeline *forward(StepKey K) const;
  const Timeline *backward(StepKey K) const;

  /// Builds the Timelines part of one made without it: planCheckpoints()
  /// builds it on another thread while it reads the rest.
  void buildTimelines(const Graph &G);

private:
  const Timeline *find(const std::vector<Timeline> &In, StepKey K) const;

  std::vector<TaskId> LaunchedBy;
  StepFinder Steps;
  /// The steps' timelines, by the index IndexOf gives.
  std::map<StepKey, uint32_t> IndexOf;
  std::vector<Timeline> Forward, Backward;
};

/// One forward instance of a selected layer.
struct Segment {
  StepKey Step;
  /// CPU tasks in lane order, then the GPU work they launched in time order.
  std::vector<TaskId> Cpu, Gpu;
  /// The place in Cpu of each GPU task's launcher.
  std::vector<uint32_t> GpuLauncher;
};

/// The segments of the layers \p Match selects (nearestMatchingLayers()),
/// in lane order per thread, the first of every \p Every of each step.
/// \p SlotOrder: the graph's lanes follow slot order
/// (Graph::lanesFollowSlotOrder(), asked by the caller), which finds them
/// in one sweep over the tasks without the lane links.
std::vector<Segment> findForwardSegments(const Graph &G,
                                         llvm::ArrayRef<LayerId> Match,
                                         const StepWork &Work, size_t Every,
                                         bool SlotOrder);

/// What activation-checkpointing works from: the step indexes with their
/// timelines, and the segments to recompute.
struct CheckpointPlan {
  StepWork Work;
  std::vector<Segment> Segments;
};

/// Builds the plan on two threads: the timelines and the lane links the
/// copies will need (neither is needed to find the segments) on one, the
/// segments on the other. Each reads the graph and writes only its own
/// part, so the plan is the same as on one thread.
CheckpointPlan planCheckpoints(const Graph &G, llvm::ArrayRef<LayerId> Match,
                               size_t Every);

/// The memory events each task moves with (MemoryEventFacts::Owner),
/// indexed by task, and the addresses for blocks a pass makes: above any
/// device's virtual addresses (48 bits), past any such address the graph
/// has, so that they pair only with each other.
class MemoryIndex {
public:
  MemoryIndex(const Graph &G, const MemoryEventFacts &Facts);
  const MemoryEventFacts &facts() const { return Facts; }
  /// The events that move with \p T, in recorded time order.
  llvm::ArrayRef<size_t> ownedBy(TaskId T) const;
  uint64_t freshAddress() { return ++LastAddress; }

private:
  const MemoryEventFacts &Facts;
  std::vector<uint32_t> Begin;
  std::vector<size_t> Events;
  uint64_t LastAddress = uint64_t(1) << 63;
};

/// Replaces the recorded block allocated by event \p Alloc (and its free)
/// with a modelled one of \p Bytes, made and freed where it was, with the
/// same tasks and the block's category; the new events go to \p Added
/// (the caller adds them once it is done with the graph's events).
void resizeBlock(Graph &G, MemoryIndex &Memory, size_t Alloc, int64_t Bytes,
                 std::vector<MemoryEvent> &Added);

struct RecomputeStats {
  uint64_t Segments = 0, Tasks = 0, BlocksFreedEarly = 0, NoBackward = 0;
};

/// Copies \p S into backward where the mirror rule puts it, and moves its
/// memory (see the pass). \p Memory describes the graph before any copy.
void recomputeSegment(Graph &G, const StepWork &Work, const Segment &S,
                      MemoryIndex &Memory, RecomputeStats &Stats);

} // namespace recompute
} // namespace dd

#endif // DAYDREAM_PASSES_RECOMPUTE_H
