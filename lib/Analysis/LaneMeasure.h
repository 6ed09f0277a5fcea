//===- LaneMeasure.h - One run's per-lane figures, task by task -*- C++ -*-===//
//
// Private to lib/Analysis. Utilization.cpp walks the live tasks once in
// slot order and hands each one to a LaneMeasure per run it measures (the
// simulated one, the recorded one, or both in the same walk, which then
// reads the task array once). A lane's tasks arrive by begin time whenever
// the lane runs its tasks in list order and slot order follows list order
// (every simulated InOrder lane of a graph read from a file, and the
// recorded times of one), so each lane's unions are merged as they come and
// nothing is kept per task; the kernels of a lane that is its device's only
// one are not even kept, only measured (UnionMeter.h). A lane whose tasks
// arrive out of order has its intervals collected and sorted in a second
// walk instead.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_ANALYSIS_LANEMEASURE_H
#define DAYDREAM_LIB_ANALYSIS_LANEMEASURE_H

#include "UnionMeter.h"

#include "daydream/Analysis/IntervalUnion.h"
#include "daydream/IR/Graph.h"
#include "daydream/Sim/Simulator.h"

#include "llvm/ADT/Optional.h"
#include "llvm/Support/Compiler.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace dd {

/// Where a run's task intervals come from: a simulation, or (null) the
/// recorded times.
struct TimeSource {
  const SimResult *Sim = nullptr;
  Interval of(TaskId T, const Task &Tk) const {
    return Sim ? Interval{Sim->Start[T], Sim->End[T]}
               : Interval{Tk.StartNs, Tk.StartNs + Tk.DurationNs};
  }
};

/// One lane's share of the figures: its busy time, and its kernels and its
/// communication as sorted, disjoint intervals, ready to merge with other
/// lanes'.
struct LaneIntervals {
  int64_t BusyNs = 0;
  /// Ran a kernel, even an empty one: its device is then reported.
  bool HasKernel = false;
  std::vector<Interval> Kernels, Communication;
  /// Set when the lane's kernels were measured as they came instead of kept
  /// in Kernels: the lane is its device's only one, so its kernels' union is
  /// the device's.
  llvm::Optional<UnionMeter> KernelMeter;
};

/// Which lanes may have their kernels metered rather than kept: the only
/// lane of their device, in a graph without communication lanes (whose
/// overlap with compute needs every kernel's interval).
std::vector<uint8_t> meterableLanes(const Graph &G);

class LaneMeasure {
public:
  /// Meters the kernels of the lanes set in \p Meter against \p Times
  /// (ascending; they must outlive this).
  LaneMeasure(const Graph &G, TimeSource Source, llvm::ArrayRef<int64_t> Times,
              llvm::ArrayRef<uint8_t> Meter);

  TimeSource source() const { return Source; }

  /// Live task \p Tk, the next in slot order, ran over \p I. Inlined: it
  /// runs once a task and run, and the call would cost as much as its body.
  LLVM_ATTRIBUTE_ALWAYS_INLINE void add(const Task &Tk, Interval I) {
    const LaneId L = Tk.Lane;
    Span.Begin = std::min(Span.Begin, I.Begin);
    Span.End = std::max(Span.End, I.End);
    if (Tk.Kind == TaskKind::Kernel)
      Lanes[L].HasKernel = true;
    // IntervalUnion drops empty intervals; so does this.
    if (I.End <= I.Begin || !Sorted[L])
      return;
    if (I.Begin < LastBegin[L]) {
      Sorted[L] = 0;
      AnyUnsorted = true;
      return;
    }
    LastBegin[L] = I.Begin;
    LaneIntervals &Lane = Lanes[L];
    Interval &Cur = Open[L];
    if (Cur.End > Cur.Begin && I.Begin <= Cur.End) {
      Cur.End = std::max(Cur.End, I.End);
    } else {
      Lane.BusyNs += Cur.length();
      Cur = I;
    }
    if (Tk.Kind == TaskKind::Kernel) {
      if (UnionMeter *M = MeterOf[L])
        M->add(I);
      else
        appendSorted(Lane.Kernels, I);
    }
    if (Tk.Kind == TaskKind::Collective || IsCommLane[L])
      appendSorted(Lane.Communication, I);
  }

  /// add() for a run whose every lane ran its tasks one at a time in slot
  /// order (a simulation of InOrder lanes swept in slot order), metered
  /// against no times: each lane's intervals come sorted and disjoint, so
  /// nothing is checked, kernels of a metered lane only add their length,
  /// and neither the lanes' busy time (the sum of their tasks' lengths,
  /// which the simulation has) nor span() is kept.
  LLVM_ATTRIBUTE_ALWAYS_INLINE void addInOrder(const Task &Tk, Interval I) {
    const LaneId L = Tk.Lane;
    if (Tk.Kind == TaskKind::Kernel) {
      LaneIntervals &Lane = Lanes[L];
      Lane.HasKernel = true;
      if (UnionMeter *M = MeterOf[L])
        M->addDisjoint(I);
      else if (I.End > I.Begin)
        appendSorted(Lane.Kernels, I);
    }
    if ((Tk.Kind == TaskKind::Collective || IsCommLane[L]) && I.End > I.Begin)
      appendSorted(Lanes[L].Communication, I);
  }

  /// Ends the walk (measuring the lanes that came out of order with one
  /// more) and hands over the lanes' figures.
  std::vector<LaneIntervals> finish();
  /// First begin to last end of the live tasks' intervals, empty ones
  /// included; Begin > End if there were none.
  Interval span() const { return Span; }

private:
  /// Appends \p I to \p Merged, sorted and disjoint so far, given that no
  /// interval before it began later: it can only extend the last one.
  static void appendSorted(std::vector<Interval> &Merged, Interval I) {
    if (!Merged.empty() && I.Begin <= Merged.back().End)
      Merged.back().End = std::max(Merged.back().End, I.End);
    else
      Merged.push_back(I);
  }
  void measureUnsorted();

  const Graph &G;
  TimeSource Source;
  std::vector<LaneIntervals> Lanes;
  std::vector<UnionMeter *> MeterOf;
  std::vector<uint8_t> IsCommLane, Sorted;
  std::vector<int64_t> LastBegin;
  /// The lane's merged busy interval still growing; busy time before it is
  /// already in BusyNs.
  std::vector<Interval> Open;
  Interval Span{std::numeric_limits<int64_t>::max(),
                std::numeric_limits<int64_t>::min()};
  bool AnyUnsorted = false;
};

} // namespace dd

#endif // DAYDREAM_LIB_ANALYSIS_LANEMEASURE_H
