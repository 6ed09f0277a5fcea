//===- PathTotals.h - The critical path added up forward ---------*- C++
//-*-===//
//
// Private to lib/Sim. The walk back of CriticalPath.h steps from a task to
// its decider: the latest-ending Sync predecessor of a task held past its
// duration, else the latest-ending of its lane predecessor and start
// predecessors, ties to the lower tieKey(). So the totals of the path that ends
// at a task are its decider's plus its own step, and the run's path is the
// one that ends at the task that ends last. The windowed sweep of one
// process (WindowedSweep.cpp) and of many (DistributedWindowedSweep.cpp)
// add it up so, forward, each with its own bookkeeping of which
// predecessor decided; this is the step and the totals they share.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_SIM_PATHTOTALS_H
#define DAYDREAM_LIB_SIM_PATHTOTALS_H

#include "daydream/IR/Graph.h"
#include "daydream/Sim/CriticalPath.h"

#include <cstdint>
#include <vector>

namespace dd::sim {

/// Two 64-bit integers that the processor loads, adds and stores as one.
typedef int64_t Pair __attribute__((vector_size(16)));

/// The totals of the path that ends at a task: (steps, gap) and (time on
/// GPU streams, on CPU threads). The time on communication channels is
/// what the path's length, the task's end, leaves. Each half is read and
/// written whole: a total written for one task is read back a few tasks
/// later, and a read wider than the writes it spans waits for them to
/// reach the cache (written field by field, the sweep of five million tasks
/// took 0.16 s instead of 0.13 s).
struct PathTotals {
  Pair StepsGap = {0, 0};
  Pair GpuCpu = {0, 0};

  /// The path that ends at task \p Tk, which extends \p From: a task held
  /// past its duration by a Sync predecessor adds a step but no time (its
  /// wait overlaps what it waited for). \p LaneMask is its lane's
  /// laneMasks() entry.
  static PathTotals step(const PathTotals &From, const Task &Tk, bool Held,
                         Pair LaneMask) {
    const int64_t Gap = Held ? 0 : Tk.GapNs;
    const int64_t Work = Held ? 0 : Tk.DurationNs;
    PathTotals C = From;
    C.StepsGap += Pair{1, Gap};
    C.GpuCpu += LaneMask & Pair{Work, Work};
    return C;
  }

  /// The totals of the path that ends at a task that ended at \p End (from
  /// the origin, time 0 here), as the critical path's.
  CriticalPathTotals endingAt(int64_t End) const {
    CriticalPathTotals P;
    P.NumSteps = static_cast<uint64_t>(StepsGap[0]);
    P.GapNs = StepsGap[1];
    const int64_t Gpu = GpuCpu[0], Cpu = GpuCpu[1];
    P.ByLaneKind[unsigned(LaneKind::GpuStream)] = Gpu;
    P.ByLaneKind[unsigned(LaneKind::CpuThread)] = Cpu;
    // Every step puts its gap and its work on the path, which runs from
    // the origin to its last task's end.
    P.ByLaneKind[unsigned(LaneKind::CommChannel)] = End - P.GapNs - Gpu - Cpu;
    return P;
  }
};

/// No predecessor: above every tieKey().
constexpr uint64_t NoKey = ~uint64_t(0);

/// Whether a task's step extends its lane predecessor (tieKey() \p LpKey,
/// ended at \p LpEnd; NoKey if none) rather than its latest-ending start
/// predecessor (\p DKey, ended at \p DEnd; NoKey if none): the
/// later-ending, the lower key on a tie. Without a branch: each way is
/// common, and the sweep is faster without the mispredictions.
inline bool extendsLane(uint64_t LpKey, int64_t LpEnd, uint64_t DKey,
                        int64_t DEnd) {
  return (LpKey != NoKey) & ((DKey == NoKey) | (LpEnd > DEnd) |
                             ((LpEnd == DEnd) & (LpKey < DKey)));
}

/// Per lane, which half of PathTotals::GpuCpu its work goes to: all ones
/// there, zeros in the other; zeros in both for a communication channel.
inline std::vector<Pair> laneMasks(const Graph &G) {
  std::vector<Pair> Masks;
  Masks.reserve(G.numLanes());
  for (const Lane &L : G.lanes())
    Masks.push_back(Pair{L.Kind == LaneKind::GpuStream ? -1 : 0,
                         L.Kind == LaneKind::CpuThread ? -1 : 0});
  return Masks;
}

} // namespace dd::sim

#endif // DAYDREAM_LIB_SIM_PATHTOTALS_H
