//===- UnionMeter.h - Union lengths of intervals that come sorted -*- C++
//-*-===//
//
// Private to lib/Analysis. What IntervalUnion answers about a union
// (its length, and its length before each of some times fixed in advance)
// for intervals that arrive sorted by begin, without keeping them: a GPU's
// kernels in a run of ten million tasks are millions of intervals, and on a
// virtual machine the fresh memory to keep them costs more than the walk
// that finds them. Intervals merge as IntervalUnion merges them (touching
// ones too), and each length is the same integer sum, so the figures are
// IntervalUnion's exactly.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_ANALYSIS_UNIONMETER_H
#define DAYDREAM_LIB_ANALYSIS_UNIONMETER_H

#include "daydream/Analysis/IntervalUnion.h"

#include "llvm/ADT/ArrayRef.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <vector>

namespace dd {

class UnionMeter {
public:
  /// \p Times: the times whose lengthBefore() will be asked, ascending; they
  /// must outlive the meter.
  explicit UnionMeter(llvm::ArrayRef<int64_t> Times)
      : Times(Times), Before(Times.size()) {}

  /// Adds \p I, non-empty and beginning no earlier than any interval before.
  void add(Interval I) {
    if (Open.End > Open.Begin && I.Begin <= Open.End) {
      Open.End = std::max(Open.End, I.End);
      return;
    }
    close();
    Open = I;
  }
  /// add() for a meter asked about no times, given \p I begins no earlier
  /// than every interval added before ends (the intervals of a lane that
  /// runs one task at a time): the union only grows by its length.
  void addDisjoint(Interval I) {
    assert(Times.empty() && "a time to answer for inside an interval");
    Closed += I.length();
  }

  /// Ends the input: no add() after it.
  void finish() {
    close();
    for (; Next != Times.size(); ++Next)
      Before[Next] = Closed;
  }

  /// Total covered time. After finish().
  int64_t length() const { return Closed; }
  /// Covered time before Times[\p I]. After finish().
  int64_t lengthBefore(size_t I) const { return Before[I]; }

private:
  /// Credits the open interval. Later intervals begin after its end, so
  /// every time before that end has its answer now.
  void close() {
    if (Open.End <= Open.Begin)
      return; // nothing added yet
    for (; Next != Times.size() && Times[Next] < Open.End; ++Next)
      Before[Next] = Closed + std::max<int64_t>(0, Times[Next] - Open.Begin);
    Closed += Open.length();
    Open = Interval();
  }

  llvm::ArrayRef<int64_t> Times;
  std::vector<int64_t> Before;
  size_t Next = 0;
  int64_t Closed = 0;
  /// The merged interval still growing; empty before the first add().
  Interval Open;
};

} // namespace dd

#endif // DAYDREAM_LIB_ANALYSIS_UNIONMETER_H
