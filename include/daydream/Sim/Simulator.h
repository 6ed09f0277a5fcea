//===- Simulator.h - Replay a task graph to predict its timing -*- C++ -*-===//
//
// Daydream's prediction step: replay the (possibly transformed) task graph on
// its lanes and read off when every task starts and ends, how long each
// training iteration takes and how busy each lane is. The model is the one of
// the Daydream paper; it is spelled out below because passes and tests rely on
// it to the nanosecond.
//
// Time origin. T0 is the smallest recorded StartNs among live tasks (0 for an
// empty graph). Every lane is free at T0. Results are absolute times on the
// same clock as the recorded StartNs.
//
// Predecessors. A task's start predecessors are the sources of its live
// incoming edges of every kind but Sync; its end predecessors are the sources
// of its live incoming Sync edges (EdgeKind is finish-to-start except Sync,
// which is finish-to-finish).
//
// InOrder lanes run their tasks one at a time in lane-list order:
//   start(t) = max(free(t), max over start preds p of end(p)) + GapNs(t)
//   end(t)   = max(start(t) + DurationNs(t), max over end preds p of end(p))
// where free(t) is the end of t's predecessor on the lane, or T0 for the
// lane's first task. The gap counts from when the task became ready, not
// from when its lane fell free: it is untraced work the task's thread did
// after its last wait (for the lane, another thread or a synchronization),
// so an importer sets it to the recorded start minus the latest recorded end
// among the lane predecessor and the start predecessors. A replay without a
// pass then reproduces the recorded start, and moving a predecessor earlier
// moves the task earlier by as much. The second term of end(t) says that a
// synchronizing call cannot return before the GPU work it waits for; the time
// it spends blocked counts as busy time of its lane.
//
// ByPriority lanes also run one task at a time, but not in list order. A task
// on one is ready at ready(t) = max over start preds p of end(p) (T0 if it
// has none). Whenever the lane is idle and has ready tasks it picks the one
// the SchedulingPolicy ranks first (lowest priority, then lowest TaskId); a
// task picked at time now starts at
//   max(now, ready(t), lane-free time) + GapNs(t)
// (in effect now + GapNs(t): a pick happens only once the task is ready and
// the lane free), and the lane stays busy from the pick until the task's
// end(t), computed as above. All tasks that end at one instant are processed
// before any idle lane picks its next task at that instant, so the pick does
// not depend on the order in which simultaneous ends were recorded. List
// order is no constraint here, so an edge against it is not a cycle. A task
// with a Sync predecessor holds its lane while it waits; if what it waits for
// needs that lane, the replay deadlocks and simulate() fails, naming it.
//
// Iterations. Graph::iterations() are named ranges of the recorded trace. A
// live task belongs to the last iteration (by StartNs) whose StartNs is <= the
// task's recorded StartNs among the iterations of its lane's rank (those with
// Iteration::Rank equal to Lane::Rank; if the rank has none, or the lane has
// no rank, the job-wide ones with Rank -1), and "next iteration" below means
// the next one of the same rank; tasks before the first belong to none, and so
// do tasks on CpuThread lanes that start after the iteration's recorded end
// (StartNs + MeasuredNs, where measured). An iteration's predicted start is
// the simulated start of its marker, a Marker task on a CpuThread lane whose
// recorded StartNs is the iteration's (the earliest, if several); without
// one, the smallest simulated start of its members on CpuThread lanes (of
// all its members if none is on a CPU thread). Its
// predicted duration runs to the predicted start of the next iteration that
// has members, or, for the last such one, to the largest simulated end of its
// own members on CpuThread lanes (of all its members if none is on a CPU
// thread): iterations are CPU-side ranges, and GPU work that spills past the
// last one's CPU end is not part of its recorded duration. An iteration
// without members is predicted as -1.
//
// Two engines implement this. Without ByPriority lanes every start and end
// follows from its predecessors', so one pass over a topological order (the
// canonical order of CanonicalOrder.h) computes them in O(V+E) without a
// heap. With a ByPriority lane an event-driven replay in O((V+E) log V)
// decides the lane's order as time advances. On all-InOrder graphs the two
// give identical results; the unit tests hold them to it.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SIM_SIMULATOR_H
#define DAYDREAM_SIM_SIMULATOR_H

#include "daydream/IR/Types.h"
#include "daydream/Sim/CriticalPath.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Optional.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace dd {

class Graph;
class SchedulingPolicy;

/// Sees every task's simulated times as the windowed sweep engine computes
/// them (SimOptions::Observer), for an analysis that would otherwise read
/// SimResult::Start and End in a walk of its own over the tasks after the
/// simulation: the task records are still in the cache, and no array of
/// times is needed at all (dd-sim's headline measures utilization so).
class TaskTimeObserver {
public:
  virtual ~TaskTimeObserver();
  /// Tasks First, First + 1, ... ran from Start[I] to End[I]. Tasks come
  /// in slot order, in runs of a few thousand; the times are counted from
  /// an origin that finish() gives.
  virtual void ran(TaskId First, llvm::ArrayRef<int64_t> Start,
                   llvm::ArrayRef<int64_t> End) = 0;
  /// Every task was seen; adding \p OriginNs to a time seen makes it
  /// absolute (SimResult's).
  virtual void finish(int64_t OriginNs) = 0;
  /// Whether the observer could measure what it wanted from the times as
  /// they came. If not, the simulator keeps every task's times after all
  /// (SimResult::Observed false), for the caller to measure from them.
  virtual bool complete() const = 0;

  /// A simulation split over processes (DistributedReplay.h) shows each
  /// process's observer only the tasks it simulated, in runs in slot order
  /// with gaps between them, with times from the same origin on every
  /// process. Then every process but 0 pack()s what its observer saw, and
  /// process 0's observer merge()s those, before finish(). pack() may be
  /// called once, after the last ran(); merge() is false if \p Packed is
  /// not what pack() gives for the same graph.
  virtual void pack(std::vector<int64_t> &Out) = 0;
  virtual bool merge(llvm::ArrayRef<int64_t> Packed) = 0;

  /// What may be merged on its way to process 0 rather than sent there
  /// from every process: where mergesUp(), before pack(), each process
  /// mergeUp()s what the processes below it in a binary tree rooted at
  /// process 0 (the process at place i has those at 2i + 1 and 2i + 2
  /// below it) packUp()ed, then packUp()s that with its own and sends it
  /// up; pack() leaves it out. mergeUp() is false if \p Packed is not what
  /// packUp() gives for the same graph.
  virtual bool mergesUp() const { return false; }
  virtual void packUp(std::vector<int64_t> &Out) { (void)Out; }
  virtual bool mergeUp(llvm::ArrayRef<int64_t> Packed) {
    return Packed.empty();
  }
  /// Before the first ran() of a simulation split over processes: the
  /// process of each lane (by LaneId) and this one's; the same owners on
  /// every process.
  virtual void laneOwners(llvm::ArrayRef<uint32_t> Owner, unsigned Me) {
    (void)Owner;
    (void)Me;
  }
};

struct SimOptions {
  /// Ranks ready tasks on ByPriority lanes; null means recorded-order. Not
  /// const because the simulator calls its prepare().
  SchedulingPolicy *Policy = nullptr;
  /// A topological order of the live tasks over edges and lane order (such as
  /// CanonicalOrder::Order) that the linear engine may use instead of
  /// computing one. The event-driven engine does not need it.
  const std::vector<TaskId> *Order = nullptr;
  /// Use the event-driven engine even when no lane is ByPriority. For tests
  /// that compare the two engines.
  bool ForceEventDriven = false;
  /// False: the caller reads only the lane, iteration and makespan results,
  /// so the simulator may leave SimResult::Start and End empty rather than
  /// keep every task's times (16 bytes a task of fresh memory); it still
  /// computes them all. dd-sim's report without the headline needs no more.
  bool TaskTimes = true;
  /// False: the caller reads the task times and the makespan only, so the
  /// simulator may leave SimResult::Lanes and Iterations empty (the sweep
  /// engine then credits no task to its lane and iteration). Not with
  /// TaskTimes false.
  bool LaneAndIterationResults = true;
  /// Shown every task's times during the simulation where the windowed
  /// sweep engine runs (a graph laid out as a file holds it, TaskTimes
  /// false); SimResult::Observed says whether it was. Otherwise, or if it
  /// was not complete(), what it saw is to be ignored and SimResult::Start
  /// and End are kept, TaskTimes false or not.
  TaskTimeObserver *Observer = nullptr;
  /// Add up the critical path (CriticalPath.h) during the simulation where
  /// the windowed sweep engine runs, into SimResult::CriticalPath, instead
  /// of keeping the task times a later summarizeCriticalPath() reads.
  /// Otherwise SimResult::CriticalPath stays None and the times are kept,
  /// as for Observer.
  bool CriticalPath = false;
};

struct IterationResult {
  llvm::StringRef Name;
  /// Iteration::MeasuredNs: the recorded duration, -1 if unknown.
  int64_t MeasuredNs = -1;
  /// Predicted duration, -1 if the iteration has no live tasks.
  int64_t PredictedNs = -1;
  /// Predicted absolute start time, -1 if the iteration has no live tasks.
  int64_t PredictedStartNs = -1;
  /// Iteration::Rank: the rank whose step it is, -1 for the whole graph's.
  int32_t Rank = -1;
};

struct LaneResult {
  /// Sum of end - start over the lane's live tasks.
  int64_t BusyNs = 0;
  /// The same over its Kernel tasks alone. A lane runs one task at a time,
  /// so this is the time it ran kernels: a GPU's compute time, where the
  /// GPU has one stream (Utilization.h).
  int64_t KernelNs = 0;
  uint64_t NumTasks = 0;
  /// Bit 1 << k set where the lane ran a task of TaskKind k.
  uint32_t TaskKinds = 0;
};

/// Which engine replayed a graph (Simulation.md says when each runs); the
/// last four are the windowed sweep, the sweep and the linear one split
/// over processes, and the windowed sweep over processes that each hold
/// their share of a split job (DistributedReplay.h).
enum class SimEngine : uint8_t {
  Windowed,
  Sweep,
  Linear,
  EventDriven,
  DistributedWindowed,
  DistributedSweep,
  DistributedLinear,
  DistributedShares
};

/// "windowed sweep", "sweep", "linear", "event-driven", "distributed
/// windowed sweep", "distributed sweep", "distributed linear",
/// "distributed windowed sweep of shares".
llvm::StringRef engineName(SimEngine E);

struct SimResult {
  /// T0: the smallest recorded StartNs among live tasks, 0 if there are none.
  int64_t OriginNs = 0;
  /// Largest simulated end minus T0; 0 for an empty graph.
  int64_t MakespanNs = 0;
  /// Simulated times indexed by TaskId slot; -1 for dead slots. Possibly
  /// empty if SimOptions::TaskTimes was false.
  std::vector<int64_t> Start, End;
  /// One entry per Graph::iterations() entry, in the graph's order; empty
  /// if SimOptions::LaneAndIterationResults was false and the sweep engine
  /// ran.
  std::vector<IterationResult> Iterations;
  /// Indexed by LaneId; empty as Iterations may be.
  std::vector<LaneResult> Lanes;
  /// SimOptions::Observer saw every task, and was complete().
  bool Observed = false;
  /// What summarizeCriticalPath() would say of this run, in totals, where
  /// SimOptions::CriticalPath asked for it and the windowed sweep found it.
  llvm::Optional<CriticalPathTotals> CriticalPath;
  /// The engine that ran (dd-sim -stats says).
  SimEngine Engine = SimEngine::Linear;
};

/// Replays \p G. Fails only if edges and lane order form a cycle (with the
/// message of computeCanonicalOrder), if a ByPriority lane deadlocks as
/// described above, if Opts.Order is not a topological order of the live
/// tasks, or if some task could never start (naming it).
llvm::Expected<SimResult> simulate(const Graph &G, const SimOptions &Opts = {});

} // namespace dd

#endif // DAYDREAM_SIM_SIMULATOR_H
