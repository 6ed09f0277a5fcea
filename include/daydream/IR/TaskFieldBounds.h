//===- TaskFieldBounds.h - What a task's fields must fit in -----*- C++ -*-===//
//
// The verifier's checks of one task's own fields (Verifier.h): ids in range
// of the graph's strings, lanes, layers and attribute records, known kinds
// and phases, no negative duration or gap. They are one expression without a
// branch, since every task of a valid file passes them all, and the binary
// reader applies them while it links the tasks into their lanes
// (Graph::adoptTasks()), so that the tasks are read once, not twice.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IR_TASKFIELDBOUNDS_H
#define DAYDREAM_IR_TASKFIELDBOUNDS_H

#include "daydream/IR/Types.h"

#include <cstdint>

namespace dd {

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
           (unsigned(Tk.Phase) < NumPhases) & ((Tk.DurationNs | Tk.GapNs) >= 0);
  }
};

} // namespace dd

#endif // DAYDREAM_IR_TASKFIELDBOUNDS_H
