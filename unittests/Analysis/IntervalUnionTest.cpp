//===- IntervalUnionTest.cpp - Unions, windows and overlaps ---------------===//
//
// The figures of print<utilization> rest on these three queries; a
// brute-force count over unit time steps checks them on random intervals.
//
//===----------------------------------------------------------------------===//

#include "daydream/Analysis/IntervalUnion.h"

#include "gtest/gtest.h"

#include <random>

using namespace dd;

namespace {

TEST(IntervalUnionTest, MergesOverlappingTouchingAndNested) {
  IntervalUnion U({{10, 20}, {0, 5}, {5, 8}, {12, 15}, {18, 30}, {40, 40}});
  ASSERT_EQ(U.intervals().size(), 2u);
  EXPECT_EQ(U.intervals()[0].Begin, 0);
  EXPECT_EQ(U.intervals()[0].End, 8);
  EXPECT_EQ(U.intervals()[1].Begin, 10);
  EXPECT_EQ(U.intervals()[1].End, 30);
  EXPECT_EQ(U.length(), 28);
}

TEST(IntervalUnionTest, FromMergedAnswersAsTheSortedUnion) {
  std::vector<Interval> Raw = {{10, 20}, {0, 5}, {5, 8}, {12, 15}, {18, 30}};
  IntervalUnion Sorted(Raw);
  IntervalUnion Taken = IntervalUnion::fromMerged(
      {Sorted.intervals().begin(), Sorted.intervals().end()});
  EXPECT_EQ(Taken.length(), Sorted.length());
  EXPECT_EQ(Taken.intervals().size(), Sorted.intervals().size());
  for (Interval W : {Interval{-5, 3}, Interval{4, 11}, Interval{9, 40}})
    EXPECT_EQ(Taken.lengthWithin(W), Sorted.lengthWithin(W));
  EXPECT_EQ(Taken.overlapWith(IntervalUnion({{6, 12}})), 2 + 2);
  EXPECT_EQ(IntervalUnion::fromMerged({}).length(), 0);
}

TEST(IntervalUnionTest, WindowsCutIntervals) {
  IntervalUnion U({{0, 8}, {10, 30}});
  EXPECT_EQ(U.lengthWithin({5, 15}), 3 + 5);
  EXPECT_EQ(U.lengthWithin({8, 10}), 0);
  EXPECT_EQ(U.lengthWithin({-100, 100}), 28);
  EXPECT_EQ(U.lengthWithin({20, 10}), 0);
  EXPECT_EQ(IntervalUnion().lengthWithin({0, 10}), 0);
}

TEST(IntervalUnionTest, MatchesBruteForce) {
  std::mt19937 Rng(7);
  std::uniform_int_distribution<int> Pos(0, 200), Len(0, 30), Count(0, 20);
  for (int Round = 0; Round != 200; ++Round) {
    std::vector<Interval> A, B;
    std::vector<bool> InA(260), InB(260);
    for (auto *P : {&A, &B}) {
      for (int N = Count(Rng); N; --N) {
        int Begin = Pos(Rng), End = Begin + Len(Rng);
        P->push_back({Begin, End});
        for (int T = Begin; T != End; ++T)
          (P == &A ? InA : InB)[T] = true;
      }
    }
    IntervalUnion UA(A), UB(B);
    int64_t Both = 0, InWindow = 0, All = 0;
    int WBegin = Pos(Rng), WEnd = WBegin + Len(Rng);
    for (int T = 0; T != 260; ++T) {
      All += InA[T];
      Both += InA[T] && InB[T];
      InWindow += InA[T] && T >= WBegin && T < WEnd;
    }
    EXPECT_EQ(UA.length(), All);
    EXPECT_EQ(UA.overlapWith(UB), Both);
    EXPECT_EQ(UB.overlapWith(UA), Both);
    EXPECT_EQ(UA.lengthWithin({WBegin, WEnd}), InWindow);
  }
}

} // namespace
