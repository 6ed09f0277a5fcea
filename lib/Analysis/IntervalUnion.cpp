//===- IntervalUnion.cpp - Time covered by a set of intervals -------------===//
//
// Merging after one sort (skipped for input already sorted), and window
// queries by binary search over the merged starts plus prefix sums of their
// lengths.
//
//===----------------------------------------------------------------------===//

#include "daydream/Analysis/IntervalUnion.h"

#include <algorithm>
#include <cassert>

using namespace dd;

IntervalUnion::IntervalUnion(std::vector<Interval> Intervals) {
  Intervals.erase(std::remove_if(Intervals.begin(), Intervals.end(),
                                 [](Interval I) { return I.End <= I.Begin; }),
                  Intervals.end());
  auto Less = [](Interval A, Interval B) {
    return A.Begin < B.Begin || (A.Begin == B.Begin && A.End < B.End);
  };
  // Utilization.cpp hands over runs it has merged already, sorted.
  if (!std::is_sorted(Intervals.begin(), Intervals.end(), Less))
    std::sort(Intervals.begin(), Intervals.end(), Less);
  for (Interval I : Intervals) {
    if (!Merged.empty() && I.Begin <= Merged.back().End) {
      Merged.back().End = std::max(Merged.back().End, I.End);
      continue;
    }
    Merged.push_back(I);
  }
  Prefix.reserve(Merged.size());
  int64_t Sum = 0;
  for (Interval I : Merged)
    Prefix.push_back(Sum += I.length());
}

IntervalUnion IntervalUnion::fromMerged(std::vector<Interval> Merged) {
  IntervalUnion U;
  U.Merged = std::move(Merged);
  U.Prefix.reserve(U.Merged.size());
  int64_t Sum = 0;
  for (Interval I : U.Merged) {
    assert(I.End > I.Begin && "empty interval");
    U.Prefix.push_back(Sum += I.length());
  }
  assert(
      std::is_sorted(U.Merged.begin(), U.Merged.end(),
                     [](Interval A, Interval B) { return A.End < B.Begin; }) &&
      "not sorted and apart");
  return U;
}

int64_t IntervalUnion::lengthBefore(int64_t T) const {
  // The first merged interval that starts after T, and the one before it,
  // which may straddle T.
  auto It = std::upper_bound(Merged.begin(), Merged.end(), T,
                             [](int64_t T, Interval I) { return T < I.Begin; });
  if (It == Merged.begin())
    return 0;
  size_t Last = size_t(It - Merged.begin()) - 1;
  int64_t Before = Last == 0 ? 0 : Prefix[Last - 1];
  return Before + (std::min(T, Merged[Last].End) - Merged[Last].Begin);
}

int64_t IntervalUnion::lengthWithin(Interval Window) const {
  if (Window.End <= Window.Begin)
    return 0;
  return lengthBefore(Window.End) - lengthBefore(Window.Begin);
}

int64_t IntervalUnion::overlapWith(const IntervalUnion &Other) const {
  int64_t Sum = 0;
  size_t I = 0, J = 0;
  llvm::ArrayRef<Interval> A = Merged, B = Other.Merged;
  while (I != A.size() && J != B.size()) {
    Sum +=
        Interval{std::max(A[I].Begin, B[J].Begin), std::min(A[I].End, B[J].End)}
            .length();
    // The interval that ends first cannot meet anything further on.
    if (A[I].End < B[J].End)
      ++I;
    else
      ++J;
  }
  return Sum;
}
