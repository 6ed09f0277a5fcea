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
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/Error.h"

#include <algorithm>
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

/// The errors of an order that is not a topological order of the live
/// tasks, as the linear engines find them: \p T is then \p Why ("is listed
/// twice"), or comes before its predecessor \p P, or (badOrderEntry) is no
/// task slot or a dead one.
llvm::Error notTopological(const Graph &G, TaskId T, const llvm::Twine &Why);
llvm::Error predecessorAfter(const Graph &G, TaskId T, TaskId P);
llvm::Error badOrderEntry(const Graph &G, TaskId T);

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

/// The sweep engine: replayLinear()'s results followed by summarize()'s, in
/// one pass over slot order, pushing each task's end along its outgoing
/// edges (a stretch of the sorted edge array) instead of pulling from an
/// incoming adjacency, so it builds no index at all, and crediting each task
/// to its lane and iteration as it goes. Fills all of \p R. Returns false,
/// with \p R half filled, if \p G is not as isSweepable() requires, which it
/// finds out on the way rather than in a pass of its own. Without
/// \p LanesAndIterations it credits no task to its lane and iteration and
/// leaves R.Lanes and R.Iterations empty (the makespan is still set).
bool replaySweep(const Graph &G, SimResult &R, bool LanesAndIterations = true);

/// replaySweep() for a caller that reads no task's times (SimOptions::
/// TaskTimes false): the same lane, iteration and makespan results, but
/// R.Start and R.End are left empty, the times pushed along edges waiting
/// in a ring no wider than the farthest edge reaches (WindowedSweep.cpp).
/// False, with \p R half filled, where replaySweep() would refuse \p G or
/// where some edge reaches so far that the ring would save little. Shows
/// \p Observer every task's times and, with \p CriticalPath, sums up the
/// critical path into R.CriticalPath (SimOptions says what for); sets
/// R.Observed where the observer was complete().
bool replayWindowed(const Graph &G, SimResult &R,
                    TaskTimeObserver *Observer = nullptr,
                    bool CriticalPath = false);

/// The ring replayWindowed() needs for \p G: a power of two wider than the
/// farthest any edge reaches forward; 0 where it would refuse \p G (a dead
/// slot, an edge back, a window over half the tasks, or over a million
/// slots and a sixteenth of the tasks).
uint64_t sweepWindow(const Graph &G);
/// sweepWindow()'s ring for edges that reach \p Reach slots forward in a
/// graph of \p N tasks, or 0.
uint64_t ringFor(uint64_t Reach, uint64_t N);

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

/// Derives the lane, makespan and iteration results of SimResult from the
/// simulated times of its tasks, given one live task at a time in any order.
/// The times given may all be off by one shift, which finish() adds: the
/// sweep engine credits tasks before it knows the time origin.
class SummaryBuilder {
public:
  /// Sets up \p R's lanes; R.OriginNs must be set by finish().
  SummaryBuilder(const Graph &G, SimResult &R);

  /// Credits live task \p Tk, simulated from \p S to \p E (shifted).
  LLVM_ATTRIBUTE_ALWAYS_INLINE void add(const Task &Tk, int64_t S, int64_t E) {
    LaneResult &L = R.Lanes[Tk.Lane];
    L.BusyNs += E - S;
    L.KernelNs += Tk.Kind == TaskKind::Kernel ? E - S : 0;
    ++L.NumTasks;
    L.TaskKinds |= 1u << unsigned(Tk.Kind);
    MaxEnd = std::max(MaxEnd, E);
    AnyTask = true;

    unsigned Group = LaneGroup[Tk.Lane];
    if (Group == NoGroup)
      return;
    size_t Slot = Locators[Group].slot(Tk.StartNs);
    if (Slot == 0)
      return;
    // A CPU task after the recorded end of its step (profiler teardown, a
    // pause between steps) is part of no iteration.
    uint32_t Index = Groups[Group].Sorted[Slot - 1];
    const Iteration &It = Its[Index];
    const bool Cpu = IsCpu[Tk.Lane];
    if (Cpu && It.MeasuredNs >= 0 && Tk.StartNs > It.StartNs + It.MeasuredNs)
      return;
    Members &Mi = M[Index];
    Mi.Any = true;
    Mi.MinStart = std::min(Mi.MinStart, S);
    Mi.MaxEnd = std::max(Mi.MaxEnd, E);
    if (Cpu) {
      Mi.MinCpuStart = std::min(Mi.MinCpuStart, S);
      Mi.MaxCpuEnd = std::max(Mi.MaxCpuEnd, E);
      if (LLVM_UNLIKELY(Tk.Kind == TaskKind::Marker))
        noteMarker(Mi, Tk.StartNs == It.StartNs, S);
    }
  }

  /// Fills R's makespan and iterations; \p Shift is what the times given
  /// to add() lack. R.OriginNs must be set.
  void finish(int64_t Shift);

  /// What add() has gathered so far, lanes and iterations, appended to
  /// \p Out as integers: a simulation split over processes credits each
  /// task on the process that simulated it, and process 0 merge()s the
  /// others' into its own before finish().
  void pack(std::vector<int64_t> &Out) const;
  /// Adds another builder's pack() of the same graph, as if its tasks had
  /// been given to this one; false if \p Packed is not of that size.
  bool merge(llvm::ArrayRef<int64_t> Packed);

private:
  /// What an iteration's members add up to.
  struct Members {
    /// Where the step's own marker (at its recorded start) ran, if it has
    /// one: the step begins there, whatever other CPU lanes ran before it
    /// (a pass's worker processes, producing the step's data early).
    int64_t MarkerStart = std::numeric_limits<int64_t>::max();
    int64_t MinCpuStart = std::numeric_limits<int64_t>::max();
    int64_t MinStart = std::numeric_limits<int64_t>::max();
    int64_t MaxEnd = std::numeric_limits<int64_t>::min();
    int64_t MaxCpuEnd = std::numeric_limits<int64_t>::min();
    bool Any = false;
  };
  /// Out of the loop over every task: markers are one a step.
  LLVM_ATTRIBUTE_NOINLINE static void noteMarker(Members &Mi, bool AtStart,
                                                 int64_t S);

  /// Finds the iteration of a recorded start time. Tasks come mostly in
  /// recorded-time order, so the previous answer is tried before a binary
  /// search; the lookup is O(1) in the common case and O(log k) otherwise.
  class IterationLocator {
  public:
    explicit IterationLocator(llvm::ArrayRef<int64_t> Bounds)
        : Bounds(Bounds) {}

    /// The number of iteration starts <= \p X: the iteration is one less,
    /// and 0 means before the first. Among equal starts this picks the last.
    size_t slot(int64_t X) {
      const size_t K = Bounds.size();
      if ((Slot != 0 && X < Bounds[Slot - 1]) ||
          (Slot != K && X >= Bounds[Slot]))
        Slot =
            std::upper_bound(Bounds.begin(), Bounds.end(), X) - Bounds.begin();
      return Slot;
    }

  private:
    llvm::ArrayRef<int64_t> Bounds;
    size_t Slot = 0;
  };

  /// The iterations of one rank (or the job-wide ones, rank -1), sorted by
  /// start: a task is looked up only among its own rank's steps, since
  /// ranks run the same steps at the same time.
  struct RankIterations {
    std::vector<uint32_t> Sorted; ///< Graph::iterations() indices
    std::vector<int64_t> Bounds;  ///< their starts, ascending
  };

  static constexpr unsigned NoGroup = ~0u;
  const Graph &G;
  SimResult &R;
  llvm::ArrayRef<Iteration> Its;
  std::vector<RankIterations> Groups;
  std::vector<IterationLocator> Locators;
  std::vector<Members> M;
  std::vector<uint8_t> IsCpu;      ///< per lane
  std::vector<unsigned> LaneGroup; ///< per lane: index into Groups
  int64_t MaxEnd = std::numeric_limits<int64_t>::min();
  bool AnyTask = false;
};

/// Fills everything in \p R but Start and End, which an engine computed (with
/// dead slots still Unset), and OriginNs, which it read: marks dead slots -1
/// and derives the lane, makespan and iteration results in one pass.
void summarize(const Graph &G, SimResult &R);

} // namespace sim
} // namespace dd

#endif // DAYDREAM_LIB_SIM_REPLAY_H
