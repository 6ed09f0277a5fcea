//===- IntervalUnion.h - Time covered by a set of intervals -----*- C++ -*-===//
//
// Utilization is "the share of time during which at least one of these
// tasks runs", which is the length of the union of their intervals, not the
// sum of their durations: two kernels on two streams at once keep a GPU busy
// once, not twice. IntervalUnion sorts and merges the intervals once
// (O(n log n)) and keeps prefix sums of the merged lengths, so the covered
// time inside any window is a binary search away (O(log n)) and the overlap
// of two unions is one merge (O(n + m)).
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_ANALYSIS_INTERVALUNION_H
#define DAYDREAM_ANALYSIS_INTERVALUNION_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace dd {

/// The half-open time range [Begin, End), in nanoseconds.
struct Interval {
  int64_t Begin = 0;
  int64_t End = 0;
  int64_t length() const { return End > Begin ? End - Begin : 0; }
};

class IntervalUnion {
public:
  IntervalUnion() = default;
  /// Sorts and merges \p Intervals; empty ones are dropped and touching ones
  /// ([0,5) and [5,9)) merge.
  explicit IntervalUnion(std::vector<Interval> Intervals);
  /// Takes \p Merged as the union itself: it must already be sorted, free
  /// of empty intervals and pairwise apart (not even touching), as
  /// intervals() is. Saves the copy when the caller merged as it went.
  static IntervalUnion fromMerged(std::vector<Interval> Merged);

  /// The merged intervals, sorted and pairwise disjoint.
  llvm::ArrayRef<Interval> intervals() const { return Merged; }
  /// Total covered time.
  int64_t length() const { return Prefix.empty() ? 0 : Prefix.back(); }
  /// Covered time inside \p Window.
  int64_t lengthWithin(Interval Window) const;
  /// Time covered by both this union and \p Other.
  int64_t overlapWith(const IntervalUnion &Other) const;

private:
  /// Covered time before \p T.
  int64_t lengthBefore(int64_t T) const;

  std::vector<Interval> Merged;
  /// Prefix[I] = total length of Merged[0..I].
  std::vector<int64_t> Prefix;
};

} // namespace dd

#endif // DAYDREAM_ANALYSIS_INTERVALUNION_H
