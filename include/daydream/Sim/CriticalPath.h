//===- CriticalPath.h - What the simulated run waited on --------*- C++ -*-===//
//
// The critical path and per-task slack of a simulated run, under the timing
// model of Simulator.h. Both hold the run's order fixed: a task's lane
// predecessor is the task that ran before it on its lane in the simulation
// (list order on an InOrder lane, the order the policy chose on a ByPriority
// one).
//
// Critical path. Every task's start is its ready time plus its gap, and its
// ready time is the end of its latest-ending start predecessor or lane
// predecessor (T0 without either). Its end is its start plus its duration,
// unless a Sync predecessor ended later, in which case its end is that
// predecessor's end. Walking back from the task that ends last, each step
// goes to what decided the current task's end: the latest-ending Sync
// predecessor if the task was blocked past its own duration, otherwise the
// latest-ending of its lane predecessor and start predecessors. Ties go to
// the lower TaskId. Each step puts the task's gap and duration on the path,
// or nothing for a blocked task (its wait overlaps the work it waited for),
// so the path's time adds up to the makespan exactly.
//
// Slack. How long a task's start can be delayed, everything else unchanged,
// without the run ending later: latest start minus simulated start, where
//   latestEnd(t)   = min(run end,
//                        latestStart(s) - gap(s) over start and lane
//                                                successors s,
//                        latestEnd(s)  over Sync successors s)
//   latestStart(t) = latestEnd(t) - duration(t)
// computed in one backward pass over a topological order. Every path task
// that was not blocked has zero slack; a blocked one has its blocked time.
//
// Cost: O(V+E) when every lane is InOrder. A ByPriority lane's run order is
// recovered by sorting its tasks by simulated start, O(k log k) for k tasks
// on such lanes.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SIM_CRITICALPATH_H
#define DAYDREAM_SIM_CRITICALPATH_H

#include "daydream/IR/Types.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace dd {

class Graph;
struct CanonicalOrder;
struct SimResult;

/// One task on the critical path and the time it puts there.
struct CriticalStep {
  TaskId Task = NoId;
  /// From the end of what made the task ready (or T0) to its start: its gap.
  int64_t GapNs = 0;
  /// Its duration, or 0 if a Sync predecessor ended after it would have.
  int64_t WorkNs = 0;
  /// Ended by a Sync predecessor (the next step back) rather than by its own
  /// duration.
  bool Blocked = false;
};

struct CriticalPath {
  /// First task to last. The GapNs and WorkNs of all steps add up to
  /// SimResult::MakespanNs. Empty for an empty graph.
  std::vector<CriticalStep> Steps;
  /// Indexed by TaskId slot: latest start minus simulated start; -1 for dead
  /// slots.
  std::vector<int64_t> SlackNs;
};

/// Finds the critical path and the slack of \p R, a simulation of \p G.
/// \p C is G's canonical order (the topological-order analysis), used as the
/// backward pass's order on all-InOrder graphs and to break ties between
/// zero-length tasks on ByPriority lanes. Fails only if \p R does not fit
/// \p G.
llvm::Expected<CriticalPath>
findCriticalPath(const Graph &G, const SimResult &R, const CanonicalOrder &C);

/// Time on a critical path by category. ByTaskKind and ByLaneKind add up,
/// with GapNs, to the path's length. ByPhase adds up to it alone: a gap is
/// untraced work of the program step the task after it belongs to, so it
/// counts to that task's phase.
struct CriticalPathBreakdown {
  int64_t GapNs = 0;
  int64_t ByTaskKind[NumTaskKinds] = {};
  int64_t ByPhase[NumPhases] = {};
  int64_t ByLaneKind[NumLaneKinds] = {};
};

CriticalPathBreakdown breakDown(const Graph &G, const CriticalPath &P);

} // namespace dd

#endif // DAYDREAM_SIM_CRITICALPATH_H
