//===- Replay.h - Pieces shared by the simulator's engines -----*- C++ -*-===//
//
// Private to lib/Sim. simulate() (Simulator.cpp) picks one of two engines that
// fill in start and end times, the linear one (LinearReplay.cpp) or the
// event-driven one (EventReplay.cpp), and then derives the per-lane and
// per-iteration results (Summary.cpp) from those times. Both
// engines read the graph's edges through the flat adjacency built here, never
// through per-task containers, because at tens of millions of tasks per
// second allocation and pointer chasing would dominate.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_SIM_REPLAY_H
#define DAYDREAM_LIB_SIM_REPLAY_H

#include "daydream/IR/Types.h"
#include "daydream/Sim/Simulator.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace dd {

class Graph;
class SchedulingPolicy;

namespace sim {

/// Marks a time not computed yet. No recorded clock comes near it, so the
/// engines use it to catch a predecessor read before it was simulated.
constexpr int64_t Unset = std::numeric_limits<int64_t>::min();

enum class Direction { Incoming, Outgoing };

/// The live edges of a graph in compressed-sparse-row form, keyed by
/// destination (Incoming) or source (Outgoing). The neighbours of task T are
/// Adj[Off[T], Off[T+1]): first the NumOrder[T] reached through
/// finish-to-start edges, then those reached through Sync edges, so an engine
/// walks each kind without testing it.
struct SplitAdjacency {
  std::vector<uint64_t> Off;
  std::vector<uint32_t> NumOrder;
  std::vector<TaskId> Adj;

  uint64_t orderBegin(TaskId T) const { return Off[T]; }
  uint64_t syncBegin(TaskId T) const { return Off[T] + NumOrder[T]; }
  uint64_t end(TaskId T) const { return Off[T + 1]; }
};

/// O(V+E): counts degrees, takes prefix sums and fills one flat array.
SplitAdjacency buildAdjacency(const Graph &G, Direction D);

/// "%12 'cudaLaunchKernel'": how error messages name a task.
std::string describeTask(const Graph &G, TaskId T);

/// The linear engine: one pass over \p Order, a topological order of the live
/// tasks over edges and lane order. Sizes \p Start and \p End to the task
/// slots and leaves dead slots Unset. Fails if \p Order is not such an order.
llvm::Error replayLinear(const Graph &G, llvm::ArrayRef<TaskId> Order,
                         int64_t T0, std::vector<int64_t> &Start,
                         std::vector<int64_t> &End);

/// Whether \p G is laid out so that slot order is a topological order the
/// sweep engines can follow without any index: every task live, each lane's
/// list in increasing ids, and the edge array sorted by source with every
/// edge going to a higher id. Every graph freshly read from a file is (its
/// canonical order is the identity and its edges are written sorted). O(V+E)
/// reads and no allocation.
bool isSweepable(const Graph &G);

/// The sweep engine: replayLinear()'s results on a graph isSweepable()
/// accepts, in slot order, pushing each task's end along its outgoing edges
/// (a stretch of the sorted edge array) instead of pulling from an incoming
/// adjacency, so it builds no index at all. Same contract for \p Start and
/// \p End. Returns the time origin (the earliest recorded start), which it
/// finds on the way rather than in a pass of its own over the tasks.
int64_t replaySweep(const Graph &G, std::vector<int64_t> &Start,
                    std::vector<int64_t> &End);

/// The event-driven engine. \p Policy ranks tasks of ByPriority lanes and may
/// be null if there are none; its prepare() has been called. Same contract
/// for \p Start and \p End as replayLinear(). Fails if some task never ends.
llvm::Error replayEvents(const Graph &G, const SchedulingPolicy *Policy,
                         int64_t T0, std::vector<int64_t> &Start,
                         std::vector<int64_t> &End);

/// Explains why the event-driven engine left live tasks without an end time
/// (\p Start and \p End as it left them, \p Out its adjacency): a cycle
/// through edges and InOrder lane order, or a task holding its lane while it
/// waits through a Sync edge for a task that cannot run. Success if every
/// live task ended.
llvm::Error diagnoseDeadlock(const Graph &G, const SplitAdjacency &Out,
                             llvm::ArrayRef<int64_t> Start,
                             llvm::ArrayRef<int64_t> End);

/// Fills everything in \p R but Start and End, which an engine computed (with
/// dead slots still Unset), and OriginNs, which it read: marks dead slots -1
/// and derives the lane, makespan and iteration results in one pass.
void summarize(const Graph &G, SimResult &R);

} // namespace sim
} // namespace dd

#endif // DAYDREAM_LIB_SIM_REPLAY_H
