//===- RandomTest.cpp - dd-synth's seeded random numbers ------------------===//
//
// The engine must be the standard's mt19937_64 and the distributions must
// give the same numbers on every platform (pinned values below), stay in
// their ranges and have the shapes Random.h promises.
//
//===----------------------------------------------------------------------===//

#include "daydream/Synth/Random.h"

#include "gtest/gtest.h"

#include <array>
#include <cstdint>

using namespace dd::synth;

namespace {

TEST(RandomTest, EngineIsTheStandardsMt19937_64) {
  // The standard fixes the 10000th output of a default-seeded (5489)
  // mt19937_64.
  Rng R(5489);
  for (int I = 0; I != 9999; ++I)
    R.next();
  EXPECT_EQ(R.next(), 9981545732273789042ull);
}

TEST(RandomTest, SplitMixIsSplitMix64) {
  // SplitMix64's first outputs from state 0.
  EXPECT_EQ(splitMix64(0), 0xe220a8397b1dcdafull);
  EXPECT_EQ(splitMix64(0x9e3779b97f4a7c15ull), 0x6e789e6aa1b965f4ull);
  EXPECT_NE(deriveSeed(1, 0), deriveSeed(1, 1));
  EXPECT_NE(deriveSeed(1, 0), deriveSeed(2, 0));
}

TEST(RandomTest, PinnedValues) {
  // Integer arithmetic on the engine's words: these values are the same on
  // every platform and must not change, or every synthetic trace would.
  Rng R(deriveSeed(1, 0));
  std::array<int64_t, 4> Ints;
  for (int64_t &V : Ints)
    V = R.uniformInt(0, 999);
  int64_t Around = R.around(100000, 30000);
  int64_t Gap = R.cpuGap(6000);
  EXPECT_EQ(Ints, (std::array<int64_t, 4>{774, 350, 646, 735}));
  EXPECT_EQ(Around, 101655);
  EXPECT_EQ(Gap, 3212);
}

TEST(RandomTest, SameSeedSameNumbers) {
  Rng A(42), B(42), C(43);
  bool Differs = false;
  for (int I = 0; I != 1000; ++I) {
    int64_t V = A.uniformInt(-5, 5);
    EXPECT_EQ(V, B.uniformInt(-5, 5));
    Differs |= V != C.uniformInt(-5, 5);
  }
  EXPECT_TRUE(Differs);
}

TEST(RandomTest, UniformIntCoversItsRangeEvenly) {
  Rng R(7);
  std::array<int, 6> Counts{};
  const int N = 60000;
  for (int I = 0; I != N; ++I) {
    int64_t V = R.uniformInt(10, 15);
    ASSERT_GE(V, 10);
    ASSERT_LE(V, 15);
    ++Counts[V - 10];
  }
  for (int C : Counts) {
    EXPECT_GT(C, N / 6 * 95 / 100);
    EXPECT_LT(C, N / 6 * 105 / 100);
  }
}

TEST(RandomTest, UniformIntExtremes) {
  Rng R(3);
  EXPECT_EQ(R.uniformInt(5, 5), 5);
  EXPECT_EQ(R.uniformInt(-7, -7), -7);
  for (int I = 0; I != 100; ++I) {
    int64_t V = R.uniformInt(INT64_MIN, INT64_MAX); // the whole range
    (void)V;
    int64_t W = R.uniformInt(INT64_MAX - 1, INT64_MAX);
    EXPECT_GE(W, INT64_MAX - 1);
    int64_t X = R.uniformInt(INT64_MIN, INT64_MIN + 2);
    EXPECT_LE(X, INT64_MIN + 2);
  }
}

TEST(RandomTest, Uniform01) {
  Rng R(11);
  double Sum = 0;
  const int N = 100000;
  for (int I = 0; I != N; ++I) {
    double U = R.uniform01();
    ASSERT_GE(U, 0.0);
    ASSERT_LT(U, 1.0);
    Sum += U;
  }
  EXPECT_NEAR(Sum / N, 0.5, 0.01);
}

TEST(RandomTest, AroundIsTriangularAroundTheMean) {
  Rng R(5);
  const int64_t Mean = 100000;
  const int N = 100000;
  int64_t Sum = 0;
  int Centre = 0, Edges = 0;
  for (int I = 0; I != N; ++I) {
    int64_t V = R.around(Mean, 100000); // +-10%
    ASSERT_GE(V, 90000);
    ASSERT_LE(V, 110000);
    Sum += V;
    if (V > 98000 && V < 102000)
      ++Centre;
    if (V < 92000 || V > 108000)
      ++Edges;
  }
  EXPECT_NEAR(double(Sum) / N, double(Mean), Mean * 0.002);
  // A triangle: the middle fifth holds 36% of it, the outer fifths 4%.
  EXPECT_NEAR(Centre / double(N), 0.36, 0.02);
  EXPECT_NEAR(Edges / double(N), 0.04, 0.01);
  EXPECT_EQ(R.around(0, 500000), 1); // never below 1 ns
  EXPECT_EQ(R.around(7, 0), 7);
}

TEST(RandomTest, CpuGapMostlyNearTheMeanSometimesStalls) {
  Rng R(9);
  const int64_t Mean = 10000;
  const int N = 100000;
  int Stalls = 0;
  for (int I = 0; I != N; ++I) {
    int64_t V = R.cpuGap(Mean);
    if (V >= 3 * Mean) {
      ASSERT_LE(V, 8 * Mean);
      ++Stalls;
    } else {
      ASSERT_GE(V, Mean / 2);
      ASSERT_LE(V, Mean + Mean / 2);
    }
  }
  EXPECT_NEAR(Stalls / double(N), 0.02, 0.003);
  EXPECT_EQ(R.cpuGap(0), 0);
}

TEST(RandomTest, Chance) {
  Rng R(13);
  int Hits = 0;
  const int N = 100000;
  for (int I = 0; I != N; ++I)
    Hits += R.chance(250000);
  EXPECT_NEAR(Hits / double(N), 0.25, 0.01);
  EXPECT_FALSE(R.chance(0));
  EXPECT_TRUE(R.chance(1000000));
}

} // namespace
