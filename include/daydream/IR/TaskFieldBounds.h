//===- TaskFieldBounds.h - What a task's fields must fit in -----*- C++ -*-===//
//
// The verifier's checks of one task's own fields (Verifier.h): ids in range
// of the graph's strings, lanes, layers and attribute records, known kinds
// and phases, times within the limits below. They are one expression
// without a branch, since every task of a valid file passes them all, and the
// binary reader applies them while it links the tasks into their lanes
// (Graph::adoptTasks()), so that the tasks are read once, not twice.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IR_TASKFIELDBOUNDS_H
#define DAYDREAM_IR_TASKFIELDBOUNDS_H

#include "daydream/IR/Types.h"

#include <cmath>
#include <cstdint>

namespace dd {

/// The limits on times that keep every sum the simulator and the analyses
/// form within int64_t (they add durations and gaps along lanes and paths,
/// to starts, and shift ranks by differences of starts): a start within
/// +-2^61 ns of the epoch (Unix time up to the year 2043), a duration or a
/// gap of at most 2^60 ns (36 years), and durations and gaps that add up to
/// at most 2^61 ns over the whole graph. Any simulated end is then below
/// 2^62, and a difference of two below 2^63.
constexpr int64_t MaxTaskNs = int64_t(1) << 60;
constexpr int64_t MaxTotalNs = int64_t(1) << 61;
constexpr int64_t MaxStartNs = int64_t(1) << 61;

/// Whether \p Ns is a start the limits allow.
inline bool validStartNs(int64_t Ns) {
  return Ns >= -MaxStartNs && Ns <= MaxStartNs;
}
/// Whether \p Ns is a duration the limits allow.
inline bool validDurationNs(int64_t Ns) { return Ns >= 0 && Ns <= MaxTaskNs; }

/// \p Ns rounded to a duration a task can hold, for the passes that compute
/// durations in double: negative becomes 0, and a time past MaxTaskNs (or
/// NaN) becomes one past it, so that the verifier dd-opt runs before it
/// writes refuses the graph and names the task, instead of a wrapped
/// llround() or a silently capped time.
inline int64_t roundNs(double Ns) {
  if (!(Ns < double(MaxTaskNs)))
    return MaxTaskNs + 1;
  return Ns > 0 ? std::llround(Ns) : 0;
}

/// The running sum of durations and gaps over a graph's tasks; each task's
/// own fields are at most MaxTaskNs (checked with them), so the sum cannot
/// wrap before it is compared.
struct TimeTotal {
  uint64_t Ns = 0;
  /// Adds \p Tk and says whether the total is still within MaxTotalNs.
  bool add(const Task &Tk) {
    Ns += uint64_t(Tk.DurationNs) + uint64_t(Tk.GapNs);
    return Ns <= uint64_t(MaxTotalNs);
  }
};

struct TaskFieldBounds {
  /// How many strings, lanes, layers and attribute records the graph has.
  uint64_t Strings = 0, Lanes = 0, Layers = 0, Attrs = 0;

  /// Whether every field of \p Tk is in range. NoId + 1 wraps to 0, so an
  /// optional id is in range if one more than it is at most the count.
  bool valid(const Task &Tk) const {
    return (Tk.Name < Strings) & (Tk.Lane < Lanes) &
           (uint32_t(Tk.Layer + 1) <= Layers) &
           (uint32_t(Tk.Attrs + 1) <= Attrs) &
           (unsigned(Tk.Kind) < NumTaskKinds) &
           (unsigned(Tk.Phase) < NumPhases) &
           ((Tk.Flags & ~KnownTaskFlags) == 0) &
           // Unsigned, so that a negative time fails the same comparison.
           (uint64_t(Tk.DurationNs) <= uint64_t(MaxTaskNs)) &
           (uint64_t(Tk.GapNs) <= uint64_t(MaxTaskNs)) &
           (uint64_t(Tk.StartNs) + uint64_t(MaxStartNs) <=
            uint64_t(2 * MaxStartNs));
  }
};

} // namespace dd

#endif // DAYDREAM_IR_TASKFIELDBOUNDS_H
