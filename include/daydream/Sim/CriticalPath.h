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
// the predecessor on the lower lane, and on one lane to the earlier
// (tieKey()); the walk starts from the task that ends last, ties alike.
// Each step puts the task's gap and duration on the path,
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

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace dd {

class Graph;
struct CanonicalOrder;
struct SimResult;

/// One task on the critical path and the time it puts there.
struct CriticalStep {
  // The 64-bit fields first, so a step takes 24 bytes rather than 32: a path
  // can hold half of a graph's tasks.
  /// From the end of what made the task ready (or T0) to its start: its gap.
  int64_t GapNs = 0;
  /// Its duration, or 0 if a Sync predecessor ended after it would have.
  int64_t WorkNs = 0;
  TaskId Task = NoId;
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
/// The same with \p C null: the order is then computed only if needed; a
/// graph laid out as a file holds it, with every lane InOrder, needs none.
llvm::Expected<CriticalPath>
findCriticalPath(const Graph &G, const SimResult &R, const CanonicalOrder *C);

/// The order in which predecessors that end at the same moment are
/// preferred, lowest first: by lane, then, on one lane, by id (its place on
/// the lane). A rank's lanes and their orders are the rank's own, so a
/// process that simulates some ranks of a job decides their ties alone;
/// ids across lanes are places in the whole job's canonical order, which
/// only every rank's tasks together tell (docs/Distributed.md).
inline uint64_t tieKey(LaneId L, TaskId T) { return uint64_t(L) << 32 | T; }

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

/// What a critical path adds up to, without the path itself or any slack.
struct CriticalPathSummary {
  CriticalPathBreakdown Time;
  /// Number of steps on the path.
  uint64_t NumSteps = 0;
};

/// The part of a CriticalPathSummary that dd-sim's headline shows: small
/// enough for the simulator to carry along every path it might end up on
/// (SimOptions::CriticalPath).
struct CriticalPathTotals {
  uint64_t NumSteps = 0;
  int64_t GapNs = 0;
  int64_t ByLaneKind[NumLaneKinds] = {};

  static CriticalPathTotals of(const CriticalPathSummary &S) {
    CriticalPathTotals T;
    T.NumSteps = S.NumSteps;
    T.GapNs = S.Time.GapNs;
    for (unsigned K = 0; K != NumLaneKinds; ++K)
      T.ByLaneKind[K] = S.Time.ByLaneKind[K];
    return T;
  }
};

/// breakDown() of findCriticalPath()'s path, and its length in steps: what
/// dd-sim's headline shows. On a graph laid out as a file holds it, with
/// every lane InOrder, it keeps one task id per task instead of the path and
/// the slack (a third of the memory, which on a virtual machine is most of
/// the time); otherwise it finds the whole path. \p C is G's canonical
/// order, or null to have it computed if needed.
llvm::Expected<CriticalPathSummary>
summarizeCriticalPath(const Graph &G, const SimResult &R,
                      const CanonicalOrder *C);

/// Receives the critical path and the slack from visitCriticalPath(), for
/// callers that add them up instead of keeping them.
class CriticalPathVisitor {
public:
  virtual ~CriticalPathVisitor();
  /// One step of the path; called from the last step to the first.
  virtual void step(const CriticalStep &S) = 0;
  /// The slack of tasks First, First + 1, ...: \p SlackNs[I] is task
  /// First + I's, -1 for a dead slot. Called in runs that together cover
  /// every slot once, in no particular order and interleaved with step().
  virtual void slack(TaskId First, llvm::ArrayRef<int64_t> SlackNs) = 0;
};

/// findCriticalPath()'s steps and slack, handed to \p V as they are found
/// rather than kept. On a graph laid out as a file holds it, with every lane
/// InOrder, it keeps one task id per task and reuses R.End for the backward
/// sweep's latest times (fresh memory costs more than the sweeps on a
/// virtual machine); otherwise it finds the whole path and hands it over. On
/// success R.End is cleared: \p R is left without end times. \p C is G's
/// canonical order, or null to have it computed if needed. Fails only if
/// \p R does not fit \p G.
llvm::Error visitCriticalPath(const Graph &G, SimResult &R,
                              const CanonicalOrder *C, CriticalPathVisitor &V);

/// Adds one step of task \p Tk, on a lane of kind \p K, to \p B: what
/// breakDown() does for every step, for callers that walk the steps anyway.
inline void addStep(CriticalPathBreakdown &B, const CriticalStep &S,
                    const Task &Tk, LaneKind K) {
  B.GapNs += S.GapNs;
  B.ByTaskKind[unsigned(Tk.Kind)] += S.WorkNs;
  B.ByPhase[unsigned(Tk.Phase)] += S.GapNs + S.WorkNs;
  B.ByLaneKind[unsigned(K)] += S.WorkNs;
}

} // namespace dd

#endif // DAYDREAM_SIM_CRITICALPATH_H
