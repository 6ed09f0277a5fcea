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
// stream's next work), so the window is a few thousand slots.
//
//===----------------------------------------------------------------------===//

#include "Replay.h"

#include "daydream/IR/Graph.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>

using namespace dd;
using namespace dd::sim;

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
  const uint64_t Mask = Window - 1;

  // As in replaySweep(): times from 0, shifted by the origin at the end.
  std::vector<int64_t> StartBound(Window, 0), EndBound(Window, Unset);
  std::vector<int64_t> LaneEnd(G.numLanes(), 0);
  std::vector<TaskId> LaneLast(G.numLanes(), NoId);
  SummaryBuilder Summary(G, R);
  const Task *Tasks = G.taskSlots().data();
  const Edge *Edges = G.edgeSlots().data();
  const Edge *const EdgesEnd = Edges + G.edgeSlots().size();
  int64_t T0 = std::numeric_limits<int64_t>::max();
  for (TaskId T = 0; T != N; ++T) {
    const Task &Tk = Tasks[T];
    T0 = std::min(T0, Tk.StartNs);
    const uint64_t Slot = T & Mask;
    int64_t St = StartBound[Slot];
    // The lane's last task visited must be T's lane predecessor: each
    // lane's list in increasing ids.
    const LaneId L = Tk.Lane;
    if (G.prevOnLane(T) != LaneLast[L])
      return false;
    if (LaneLast[L] != NoId)
      St = std::max(St, LaneEnd[L]);
    St += Tk.GapNs;
    const int64_t En = std::max(St + Tk.DurationNs, EndBound[Slot]);
    StartBound[Slot] = 0;
    EndBound[Slot] = Unset;
    LaneEnd[L] = En;
    LaneLast[L] = T;
    Summary.add(Tk, St, En);
    for (; Edges != EdgesEnd && Edges->Src == T; ++Edges) {
      int64_t &Bound = Edges->Kind == EdgeKind::Sync
                           ? EndBound[Edges->Dst & Mask]
                           : StartBound[Edges->Dst & Mask];
      Bound = std::max(Bound, En);
    }
  }
  // An edge left over was out of source order, and so was never pushed.
  if (Edges != EdgesEnd)
    return false;
  R.OriginNs = T0;
  R.Start.clear();
  R.End.clear();
  Summary.finish(T0);
  return true;
}
