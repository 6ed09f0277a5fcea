//===- SortRuns.h - Stable sorts that profit from sorted input -*- C++ -*-===//
//
// A trace lists each thread's and each stream's events nearly in time order,
// so the lowering's sorts get inputs made of a few long sorted runs
// (interleaved by thread, or concatenated lists). std::stable_sort does
// n log n work whatever the input; these merge the runs they find, which is
// linear for one run and n log k for k runs, and fall back to
// std::stable_sort when the runs are short. Same result as std::stable_sort.
//
// Short runs are what a trace written in end order gives (each op recorded
// when it returns, after the ops it called: the 2021 Kineto format, our
// dd-synth): every op is out of place by only the few ops nested in it. An
// insertion sort moves each element past exactly those, which is linear in
// practice, in place, and with no scratch buffer to fault in; it gives up
// for std::stable_sort once it has moved more than a few elements per
// element, which a really unsorted input soon does.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_IMPORT_SORTRUNS_H
#define DAYDREAM_LIB_IMPORT_SORTRUNS_H

#include <algorithm>
#include <cstdint>
#include <vector>

namespace dd::import {

/// Insertion-sorts [First, Last) by \p Less, stably, unless that would move
/// more than \p MaxMoves elements in all; false then, with the range a
/// stable permutation of what it was (equal elements in their first order),
/// so that a stable sort of it still gives the same result.
template <typename T, typename LessFn>
bool insertionSortBounded(T *First, T *Last, LessFn Less, size_t MaxMoves) {
  size_t Moves = 0;
  for (T *I = First + 1; I < Last; ++I) {
    if (!Less(*I, I[-1]))
      continue;
    T *J = I - 1; // after the loop: where *I goes, after its equals
    while (J != First && Less(*I, J[-1]))
      --J;
    Moves += I - J;
    if (Moves > MaxMoves)
      return false;
    T X = std::move(*I);
    std::move_backward(J, I, I + 1);
    *J = std::move(X);
  }
  return true;
}

/// Stable-sorts [First, Last) by \p Less, merging its sorted runs;
/// \p Buffer is scratch space.
template <typename T, typename LessFn>
void stableSortRuns(T *First, T *Last, LessFn Less, std::vector<T> &Buffer) {
  size_t N = Last - First;
  std::vector<size_t> Starts{0};
  for (size_t I = 1; I < N; ++I)
    if (Less(First[I], First[I - 1]))
      Starts.push_back(I);
  if (Starts.size() == 1)
    return;
  // Many short runs: merging them pass by pass would cost more than a sort.
  if (Starts.size() > 64 && Starts.size() > N / 64) {
    if (!insertionSortBounded(First, Last, Less, 8 * N))
      std::stable_sort(First, Last, Less);
    return;
  }
  Starts.push_back(N);
  Buffer.resize(N);
  T *From = First, *To = Buffer.data();
  while (Starts.size() > 2) {
    std::vector<size_t> Merged{0};
    size_t R = 0;
    for (; R + 2 < Starts.size(); R += 2) {
      // std::merge takes from the first range on ties: stable.
      std::merge(std::make_move_iterator(From + Starts[R]),
                 std::make_move_iterator(From + Starts[R + 1]),
                 std::make_move_iterator(From + Starts[R + 1]),
                 std::make_move_iterator(From + Starts[R + 2]), To + Starts[R],
                 Less);
      Merged.push_back(Starts[R + 2]);
    }
    if (R + 1 < Starts.size()) { // an odd run out: moved as it is
      std::move(From + Starts[R], From + Starts[R + 1], To + Starts[R]);
      Merged.push_back(Starts[R + 1]);
    }
    std::swap(From, To);
    Starts.swap(Merged);
  }
  if (From != First)
    std::move(From, From + N, First);
}

/// Stable-sorts \p V by \p Less, merging its sorted runs.
template <typename T, typename LessFn>
void stableSortRuns(std::vector<T> &V, LessFn Less) {
  std::vector<T> Buffer;
  stableSortRuns(V.data(), V.data() + V.size(), Less, Buffer);
}

/// Stable-sorts \p V by (BucketOf(x), Less) where BucketOf is a small
/// unsigned integer (an index of threads or streams): a counting sort by
/// bucket, then stableSortRuns within each. Input already grouped by bucket
/// in order (one stream, say) is not copied.
template <typename T, typename BucketFn, typename LessFn>
void stableSortByBucket(std::vector<T> &V, BucketFn BucketOf, LessFn Less) {
  std::vector<size_t> Offset(1, 0); // bucket sizes, then their offsets
  bool Grouped = true;
  for (size_t I = 0, Last = 0; I != V.size(); ++I) {
    size_t B = BucketOf(V[I]);
    if (B + 2 > Offset.size())
      Offset.resize(B + 2, 0);
    ++Offset[B + 1];
    Grouped &= B >= Last;
    Last = B;
  }
  size_t NumBuckets = Offset.size() - 1;
  for (size_t B = 0; B < NumBuckets; ++B)
    Offset[B + 1] += Offset[B];
  std::vector<T> Out;
  if (!Grouped) {
    Out.resize(V.size());
    std::vector<size_t> Next(Offset.begin(), Offset.end() - 1);
    for (T &X : V)
      Out[Next[size_t(BucketOf(X))]++] = std::move(X);
    V.swap(Out);
  }
  for (size_t B = 0; B < NumBuckets; ++B)
    stableSortRuns(V.data() + Offset[B], V.data() + Offset[B + 1], Less, Out);
}

} // namespace dd::import

#endif // DAYDREAM_LIB_IMPORT_SORTRUNS_H
