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
//===----------------------------------------------------------------------===//

#include "Replay.h"
#include "Sweep.h"

#include "daydream/IR/Graph.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>

using namespace dd;
using namespace dd::sim;

namespace {
/// A lane's last task and its end per lane, and the bounds pushed along
/// edges in a ring of \p Window slots, a power of two wider than any edge
/// reaches. A slot is reset as its task is visited, before any push for the
/// task one window later can arrive (whose sources all come after it).
struct WindowStore {
  static constexpr bool EdgesChecked = true; // while measuring the reach
  int64_t &startBound(TaskId T) { return StartBound[T & Mask]; }
  int64_t &endBound(TaskId T) { return EndBound[T & Mask]; }
  /// The lane's last task visited must be T's lane predecessor: each lane's
  /// list in increasing ids.
  bool laneFree(const Graph &G, TaskId T, LaneId L, int64_t &St) const {
    if (G.prevOnLane(T) != LaneLast[L])
      return false;
    if (LaneLast[L] != NoId)
      St = std::max(St, LaneEnd[L]);
    return true;
  }
  void visit(TaskId T, LaneId L, int64_t, int64_t En) {
    StartBound[T & Mask] = 0;
    EndBound[T & Mask] = Unset;
    LaneEnd[L] = En;
    LaneLast[L] = T;
  }

  uint64_t Mask;
  int64_t *StartBound, *EndBound;
  int64_t *LaneEnd;
  TaskId *LaneLast;
};
} // namespace

/// Past this window the ring saves too little to be worth a second engine.
static constexpr uint64_t MaxWindow = uint64_t(1) << 20;

bool sim::replayWindowed(const Graph &G, SimResult &R) {
  const size_t N = G.numTaskSlots();
  if (N == 0 || G.numTasks() != N)
    return false;
  uint64_t Reach = 0;
  for (const Edge &E : G.edgeSlots()) {
    if (E.Dst <= E.Src)
      return false;
    Reach = std::max<uint64_t>(Reach, E.Dst - E.Src);
  }
  const uint64_t Window = llvm::PowerOf2Ceil(Reach + 1);
  if (Window > MaxWindow || Window > N / 2)
    return false;

  // As in replaySweep(): times from 0, shifted by the origin at the end.
  std::vector<int64_t> StartBound(Window, 0), EndBound(Window, Unset);
  std::vector<int64_t> LaneEnd(G.numLanes(), 0);
  std::vector<TaskId> LaneLast(G.numLanes(), NoId);
  SummaryBuilder Summary(G, R);
  int64_t T0 = std::numeric_limits<int64_t>::max(), MaxEnd = 0;
  if (!sweepTasks<true>(G,
                        WindowStore{Window - 1, StartBound.data(),
                                    EndBound.data(), LaneEnd.data(),
                                    LaneLast.data()},
                        &Summary, T0, MaxEnd))
    return false;
  R.OriginNs = T0;
  R.Start.clear();
  R.End.clear();
  Summary.finish(T0);
  return true;
}
