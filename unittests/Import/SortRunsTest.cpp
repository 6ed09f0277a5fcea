//===- SortRunsTest.cpp - The lowering's sorts against std::stable_sort ---===//
//
// stableSortRuns() picks among merging runs, insertion and std::stable_sort
// by the shape of its input; whichever it picks, the result must be
// std::stable_sort's, equal keys in their input order. Inputs of each shape:
// sorted, a few interleaved runs, ops in end order (nested ranges, as the
// 2021 Kineto format writes them), random, and reversed.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Import/SortRuns.h"

#include "gtest/gtest.h"

#include <random>

using namespace dd::import;

namespace {

/// A key with its input position, which stability must keep in order.
struct Item {
  int64_t Start = 0;
  int64_t End = 0;
  size_t Pos = 0;
};

bool byStart(const Item &A, const Item &B) {
  return std::make_pair(A.Start, -A.End) < std::make_pair(B.Start, -B.End);
}

void expectLikeStableSort(std::vector<Item> V) {
  for (size_t I = 0; I != V.size(); ++I)
    V[I].Pos = I;
  std::vector<Item> Want = V;
  std::stable_sort(Want.begin(), Want.end(), byStart);
  stableSortRuns(V, byStart);
  ASSERT_EQ(V.size(), Want.size());
  for (size_t I = 0; I != V.size(); ++I)
    ASSERT_EQ(V[I].Pos, Want[I].Pos) << "at " << I;
}

/// Ranges nested \p Depth deep, each listed when it ends, as an op is
/// recorded when it returns; starts collide now and then, so that ties
/// are there to keep in order.
void addNested(std::vector<Item> &V, std::mt19937_64 &Rng, int64_t &Now,
               int Depth) {
  int64_t Start = Now;
  int Children = Depth == 0 ? 0 : int(Rng() % 4);
  for (int C = 0; C != Children; ++C)
    addNested(V, Rng, Now, Depth - 1);
  Now += int64_t(Rng() % 3); // 0: a child may end as its parent does
  V.push_back({Start, Now, 0});
}

TEST(SortRunsTest, EveryShapeSortsAsStableSortDoes) {
  std::mt19937_64 Rng(7);
  for (int Round = 0; Round != 50; ++Round) {
    std::vector<Item> Ended;
    int64_t Now = 0;
    while (Ended.size() < 2000)
      addNested(Ended, Rng, Now, 1 + Round % 6);
    expectLikeStableSort(Ended);

    std::vector<Item> Random(1 + Rng() % 3000);
    for (Item &X : Random)
      X = {int64_t(Rng() % 100), int64_t(Rng() % 5), 0};
    expectLikeStableSort(Random);

    std::vector<Item> Sorted = Random;
    std::stable_sort(Sorted.begin(), Sorted.end(), byStart);
    expectLikeStableSort(Sorted);
    std::reverse(Sorted.begin(), Sorted.end());
    expectLikeStableSort(Sorted);

    // A few threads' sorted lists, interleaved.
    std::vector<Item> Interleaved;
    int64_t Clock[3] = {};
    for (int I = 0; I != 1500; ++I) {
      int64_t &C = Clock[Rng() % 3];
      C += int64_t(Rng() % 4);
      Interleaved.push_back({C, C + 1, 0});
    }
    expectLikeStableSort(Interleaved);
  }
}

TEST(SortRunsTest, InsertionGivesUpOnUnsortedInputUnchangedForAStableSort) {
  std::vector<Item> V(500);
  for (size_t I = 0; I != V.size(); ++I)
    V[I] = {int64_t(V.size() - I) / 2, 0, I}; // reversed, with ties
  std::vector<Item> Want = V;
  std::stable_sort(Want.begin(), Want.end(), byStart);
  EXPECT_FALSE(insertionSortBounded(V.data(), V.data() + V.size(), byStart,
                                    /*MaxMoves=*/V.size()));
  std::stable_sort(V.begin(), V.end(), byStart);
  for (size_t I = 0; I != V.size(); ++I)
    ASSERT_EQ(V[I].Pos, Want[I].Pos) << "at " << I;
}

} // namespace
