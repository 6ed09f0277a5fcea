//===- UnionStream.h - The union of sorted runs, one by one ----*- C++ -*-===//
//
// Private to lib/Analysis. Utilization.cpp unites runs of intervals, each
// sorted and disjoint (a lane's kernels, a device's busy time), into one:
// a device's busy time from its streams' kernels, and every kernel of the
// run for its overlap with communication. On a job of millions of kernels,
// copying the runs into one array, merging them pairwise in place and
// merging the result again cost more than measuring them, and their fresh
// memory more still. This merges the runs' heads (a heap of k heads for k
// runs: O(n log k)) and hands out the union one merged interval at a time,
// in order, merging touching and overlapping intervals as IntervalUnion
// does; the caller keeps the intervals or only measures them.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_ANALYSIS_UNIONSTREAM_H
#define DAYDREAM_LIB_ANALYSIS_UNIONSTREAM_H

#include "daydream/Analysis/IntervalUnion.h"

#include "llvm/ADT/ArrayRef.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace dd {

class UnionStream {
public:
  /// \p Runs: each sorted by begin, its intervals non-empty and disjoint;
  /// they must outlive the stream.
  explicit UnionStream(llvm::ArrayRef<llvm::ArrayRef<Interval>> Runs)
      : Runs(Runs.begin(), Runs.end()) {
    for (size_t R = 0; R != this->Runs.size(); ++R)
      if (!this->Runs[R].empty())
        Heads.push({this->Runs[R].front().Begin, R});
  }

  /// The next interval of the union, apart from the one before (not even
  /// touching it); false once there is none.
  bool next(Interval &Out) {
    if (Heads.empty())
      return false;
    Out = pop();
    while (!Heads.empty() && Heads.top().first <= Out.End)
      Out.End = std::max(Out.End, pop().End);
    return true;
  }

  /// Every interval left, in \p Out.
  void collect(std::vector<Interval> &Out) {
    for (Interval I; next(I);)
      Out.push_back(I);
  }

private:
  /// The earliest head, its run moved past it.
  Interval pop() {
    const size_t R = Heads.top().second;
    Heads.pop();
    const Interval I = Runs[R].front();
    Runs[R] = Runs[R].drop_front();
    if (!Runs[R].empty())
      Heads.push({Runs[R].front().Begin, R});
    return I;
  }

  std::vector<llvm::ArrayRef<Interval>> Runs;
  /// (begin, run) of every run's first interval left; earliest on top.
  std::priority_queue<std::pair<int64_t, size_t>,
                      std::vector<std::pair<int64_t, size_t>>,
                      std::greater<std::pair<int64_t, size_t>>>
      Heads;
};

/// The time \p A covers that \p B covers too.
inline int64_t overlapOf(const IntervalUnion &A, UnionStream &B) {
  int64_t Sum = 0;
  llvm::ArrayRef<Interval> Left = A.intervals();
  Interval I;
  bool More = B.next(I);
  while (!Left.empty() && More) {
    const Interval L = Left.front();
    Sum +=
        Interval{std::max(L.Begin, I.Begin), std::min(L.End, I.End)}.length();
    // The interval that ends first cannot meet anything further on.
    if (L.End < I.End)
      Left = Left.drop_front();
    else
      More = B.next(I);
  }
  return Sum;
}

} // namespace dd

#endif // DAYDREAM_LIB_ANALYSIS_UNIONSTREAM_H
