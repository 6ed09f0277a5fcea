//===- WindowedSweep.cpp - The sweep engine without per-task arrays -------===//
//
// dd-sim's report needs only lane, iteration and makespan results, not every
// task's times, yet the sweep engine (LinearReplay.cpp) returns those in two
// arrays of eight bytes a task: at ten million tasks, 160 MB of fresh memory,
// whose page faults cost this VM more than the sweep itself. While the sweep
// runs, though, a task's times matter only until the last task that reads
// them: its lane successor, which a per-lane variable serves, and its edge
// successors, to which the sweep pushes them ahead. The pushed bounds wait in
// a ring indexed by task id modulo a window wider than the farthest any edge
// reaches forward; a slot is reset when its task is visited, before any push
// for the task one window later can arrive (that task's sources all come
// after it). Traces keep their edges local (a launch and its kernel, a
// stream's next work), so the window is a few thousand slots. The loop
// itself is replaySweep()'s (Sweep.h), over this ring instead of arrays.
//
// The sweep can also measure what dd-sim's headline reads of every task's
// times, while the task is in the cache and without the arrays: it hands
// the times to an observer (SimOptions::Observer) in runs, and it adds up
// the critical path forward. The walk back of CriticalPath.h steps from a
// task to its decider: the latest-ending Sync predecessor of a task held
// past its duration, else the latest-ending of its lane predecessor and
// start predecessors, ties to the lower tieKey(). So the totals of the path
// that ends at a task are its decider's plus its own step, and the run's path
// is the one that ends at the task that ends last. The bounds pushed along
// edges carry their source, a second ring holds the totals of the tasks
// visited within the window, and a lane slot those of its last task: no
// array a task, and no walk over the tasks afterwards.
//
//===----------------------------------------------------------------------===//

#include "PathTotals.h"
#include "Replay.h"
#include "Sweep.h"

#include "daydream/IR/Graph.h"
#include "daydream/Sim/CriticalPath.h"

#include "llvm/Support/Compiler.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>
#include <type_traits>

using namespace dd;
using namespace dd::sim;

namespace {
/// A lane's last task and its end per lane, and the bounds pushed along
/// edges in a ring of \p Window slots, a power of two wider than any edge
/// reaches. A slot is reset as its task is visited, before any push for the
/// task one window later can arrive (whose sources all come after it).
struct WindowStore {
  static constexpr bool EdgesChecked = true; // while measuring the reach
  int64_t startBound(TaskId T) const { return StartBound[T & Mask]; }
  int64_t endBound(TaskId T) const { return EndBound[T & Mask]; }
  void push(TaskId, const Edge &E, int64_t En) {
    int64_t &Bound = E.Kind == EdgeKind::Sync ? EndBound[E.Dst & Mask]
                                              : StartBound[E.Dst & Mask];
    Bound = std::max(Bound, En);
  }
  /// The lane's last task visited must be T's lane predecessor: each lane's
  /// list in increasing ids (known without looking where the graph's lanes
  /// follow slot order, whose links then need not be built).
  bool laneFree(const Graph &G, TaskId T, LaneId L, int64_t &St) const {
    if (!SlotOrderLanes && G.prevOnLane(T) != LaneLast[L])
      return false;
    if (LaneLast[L] != NoId)
      St = std::max(St, LaneEnd[L]);
    return true;
  }
  void visit(TaskId T, const Task &Tk, int64_t, int64_t En) {
    StartBound[T & Mask] = 0;
    EndBound[T & Mask] = Unset;
    LaneEnd[Tk.Lane] = En;
    LaneLast[Tk.Lane] = T;
  }

  uint64_t Mask;
  int64_t *StartBound, *EndBound;
  int64_t *LaneEnd;
  TaskId *LaneLast;
  bool SlotOrderLanes;
};

/// Tasks handed to an observer at a time.
constexpr TaskId ObservedRun = 4096;

/// A WindowStore that also adds up the critical path.
struct PathStore : WindowStore {
  /// Raises the bound and, on a later end or an equal one from a lower
  /// tieKey(), its source: the task visited last.
  void push(TaskId, const Edge &E, int64_t En) {
    const uint64_t Slot = E.Dst & Mask;
    // Every end is above Unset, and every key below NoKey.
    if (E.Kind == EdgeKind::Sync) {
      if (En > EndBound[Slot] ||
          (En == EndBound[Slot] && Key < EndSource[Slot])) {
        EndBound[Slot] = En;
        EndSource[Slot] = Key;
      }
    } else if (En > StartBound[Slot] ||
               (En == StartBound[Slot] && Key < StartSource[Slot])) {
      StartBound[Slot] = En;
      StartSource[Slot] = Key;
    }
  }
  // Inlined: the sweep's loop is this and push(), and a call a task costs
  // a fifth of the sweep.
  LLVM_ATTRIBUTE_ALWAYS_INLINE void visit(TaskId T, const Task &Tk, int64_t St,
                                          int64_t En) {
    const uint64_t Slot = T & Mask;
    const LaneId L = Tk.Lane;
    Key = tieKey(L, T);
    // Which path the task's step extends, chosen without a branch: each
    // way is common, and the sweep is faster without the mispredictions.
    // A task held past its duration by a Sync predecessor extends that
    // one's path, adding no time (its wait overlaps what it waited for).
    // Otherwise the later-ending of its lane predecessor and the start
    // predecessor that ended last, the lower tieKey() on a tie; or none.
    // A key's low half is its task's id, so masked it is the task's slot.
    const bool Held = En > St + Tk.DurationNs;
    const uint64_t D = StartSource[Slot];
    const TaskId Lp = LaneLast[L];
    const int64_t DEnd = StartBound[Slot], LpEnd = LaneEnd[L];
    const bool ByLane =
        extendsLane(Lp == NoId ? NoKey : tieKey(L, Lp), LpEnd, D, DEnd);
    static const PathTotals None;
    const PathTotals *From = Held         ? &TaskPath[EndSource[Slot] & Mask]
                             : ByLane     ? &LanePath[L]
                             : D != NoKey ? &TaskPath[D & Mask]
                                          : &None;
    const PathTotals C = PathTotals::step(*From, Tk, Held, LaneMask[L]);
    TaskPath[Slot] = C;
    LanePath[L] = C;
    // The same for the task that ends last, the lower key on a tie.
    if (En > LastEnd || (En == LastEnd && Key < LastKey)) {
      LastEnd = En;
      LastKey = Key;
      LastPath = C;
    }
    StartSource[Slot] = NoKey;
    EndSource[Slot] = NoKey;
    WindowStore::visit(T, Tk, St, En);
  }

  /// The run's critical path: the one that ends at the task that ends last.
  CriticalPathTotals lastPath() const { return LastPath.endingAt(LastEnd); }

  /// Per ring slot: the tieKey()s of the bounds' sources, NoKey if none was
  /// pushed, and, once the task is visited, the totals of the path that
  /// ends there (the sources of a task are less than a window before it,
  /// so their slots still hold theirs).
  uint64_t *StartSource, *EndSource;
  PathTotals *TaskPath;
  /// Per lane: the totals of the path that ends at its last task, and which
  /// half of PathTotals::GpuCpu its work goes to (all ones there, zeros in
  /// the other; zeros in both for a communication channel).
  PathTotals *LanePath;
  const Pair *LaneMask;
  /// The tieKey() of the task being visited, whose end the pushes carry.
  uint64_t Key = NoKey;
  /// The path that ends at the task that ends last (the lower key on a
  /// tie).
  PathTotals LastPath = {};
  int64_t LastEnd = Unset;
  uint64_t LastKey = NoKey;
};

/// Another store that also hands the times to an observer, in runs.
template <class Base> struct ObservedStore : Base {
  void visit(TaskId T, const Task &Tk, int64_t St, int64_t En) {
    const TaskId I = T % ObservedRun;
    RunStart[I] = St;
    RunEnd[I] = En;
    if (I == ObservedRun - 1)
      Observer->ran(T - I, llvm::makeArrayRef(RunStart, ObservedRun),
                    llvm::makeArrayRef(RunEnd, ObservedRun));
    Base::visit(T, Tk, St, En);
  }

  TaskTimeObserver *Observer;
  int64_t *RunStart, *RunEnd;
};

} // namespace

/// A ring of up to this many slots is used whenever it is at most half the
/// graph. A wider one (a job of many ranks, whose collectives join tasks
/// far apart in slot order) only where it is also at most a sixteenth of
/// the tasks: with the critical path a slot takes 64 bytes, so the ring is
/// then under 4 bytes a task, against the 16 of the full sweep's times and
/// the walk over them that the headline would need afterwards.
static constexpr uint64_t MaxWindow = uint64_t(1) << 20;

uint64_t sim::sweepWindow(const Graph &G) {
  const size_t N = G.numTaskSlots();
  if (N == 0 || G.numTasks() != N)
    return 0;
  uint64_t Reach = 0;
  for (const Edge &E : G.edgeSlots()) {
    if (E.Dst <= E.Src)
      return 0;
    Reach = std::max<uint64_t>(Reach, E.Dst - E.Src);
  }
  return ringFor(Reach, N);
}

uint64_t sim::ringFor(uint64_t Reach, uint64_t N) {
  const uint64_t Window = llvm::PowerOf2Ceil(Reach + 1);
  return Window > N / 2 || (Window > MaxWindow && Window > N / 16) ? 0 : Window;
}

bool sim::replayWindowed(const Graph &G, SimResult &R,
                         TaskTimeObserver *Observer, bool CriticalPath) {
  const size_t N = G.numTaskSlots();
  const uint64_t Window = sweepWindow(G);
  if (Window == 0)
    return false;

  // As in replaySweep(): times from 0, shifted by the origin at the end.
  std::vector<int64_t> StartBound(Window, 0), EndBound(Window, Unset);
  std::vector<int64_t> LaneEnd(G.numLanes(), 0);
  std::vector<TaskId> LaneLast(G.numLanes(), NoId);
  const WindowStore Plain{Window - 1,      StartBound.data(),
                          EndBound.data(), LaneEnd.data(),
                          LaneLast.data(), G.lanesFollowSlotOrder()};
  SummaryBuilder Summary(G, R);
  int64_t T0 = std::numeric_limits<int64_t>::max(), MaxEnd = 0;
  std::vector<int64_t> RunStart, RunEnd;
  // Sweeps with store S, observed if asked; S is left as the sweep left it.
  auto Sweep = [&](auto &S) {
    using Store = std::decay_t<decltype(S)>;
    if (!Observer)
      return sweepTasks<true>(G, S, &Summary, T0, MaxEnd);
    RunStart.resize(ObservedRun);
    RunEnd.resize(ObservedRun);
    ObservedStore<Store> O{S, Observer, RunStart.data(), RunEnd.data()};
    const bool Swept = sweepTasks<true>(G, O, &Summary, T0, MaxEnd);
    S = O;
    return Swept;
  };
  if (!CriticalPath) {
    WindowStore S = Plain;
    if (!Sweep(S))
      return false;
  } else {
    std::vector<uint64_t> StartSource(Window, NoKey), EndSource(Window, NoKey);
    std::vector<PathTotals> TaskPath(Window), LanePath(G.numLanes());
    const std::vector<Pair> LaneMask = laneMasks(G);
    PathStore S{Plain,           StartSource.data(), EndSource.data(),
                TaskPath.data(), LanePath.data(),    LaneMask.data()};
    if (!Sweep(S))
      return false;
    R.CriticalPath = S.lastPath();
  }
  if (Observer) {
    if (const TaskId Left = N % ObservedRun)
      Observer->ran(N - Left, llvm::makeArrayRef(RunStart.data(), Left),
                    llvm::makeArrayRef(RunEnd.data(), Left));
    Observer->finish(T0);
    R.Observed = Observer->complete();
  }
  R.OriginNs = T0;
  R.Start.clear();
  R.End.clear();
  Summary.finish(T0);
  return true;
}
