//===- SteadyStateTest.cpp - The one figure a what-if is read by ----------===//

#include "daydream/Sim/SteadyState.h"

#include "gtest/gtest.h"

#include <vector>

using namespace dd;

namespace {

IterationResult step(llvm::StringRef Name, int64_t Measured, int64_t Predicted,
                     int32_t Rank = -1) {
  IterationResult I;
  I.Name = Name;
  I.MeasuredNs = Measured;
  I.PredictedNs = Predicted;
  I.Rank = Rank;
  return I;
}

TEST(SteadyStateTest, MedianLeavesOutAWarmUpStep) {
  // A warm-up step twice as slow moves a mean by a third, not the median.
  std::vector<IterationResult> Its = {
      step("s1", 2000, 1800), step("s2", 1000, 800), step("s3", 1010, 810)};
  SteadyState S = steadyState(Its);
  EXPECT_EQ(S.Steps, 3u);
  EXPECT_EQ(S.BaselineNs, 1010);
  EXPECT_EQ(S.PredictedNs, 810);
  EXPECT_NEAR(S.speedup(), 1010.0 / 810.0, 1e-12);
  EXPECT_NEAR(S.changePercent(), 100.0 * (810 - 1010) / 1010.0, 1e-12);
}

TEST(SteadyStateTest, EvenCountIsTheMeanOfTheMiddleTwo) {
  std::vector<IterationResult> Its = {step("a", 100, 40), step("b", 300, 60),
                                      step("c", 200, 50), step("d", 400, 70)};
  SteadyState S = steadyState(Its);
  EXPECT_EQ(S.Steps, 4u);
  EXPECT_EQ(S.BaselineNs, 250);
  EXPECT_EQ(S.PredictedNs, 55);
}

TEST(SteadyStateTest, OnlyCompleteSteps) {
  // Not recorded, no tasks predicted: not counted.
  std::vector<IterationResult> Its = {step("a", -1, 500), step("b", 100, -1),
                                      step("c", 100, 90), step("d", 0, 90)};
  SteadyState S = steadyState(Its);
  EXPECT_EQ(S.Steps, 1u);
  EXPECT_EQ(S.BaselineNs, 100);
  EXPECT_EQ(S.PredictedNs, 90);

  SteadyState None = steadyState({step("a", -1, 5)});
  EXPECT_FALSE(None.known());
  EXPECT_EQ(None.BaselineNs, -1);
  EXPECT_EQ(None.PredictedNs, -1);
}

TEST(SteadyStateTest, AJobsStepIsItsSlowestRanks) {
  // Two steps of two ranks: the slower rank's durations count, each side
  // on its own (rank 1 is slower recorded, rank 0 predicted).
  std::vector<IterationResult> Its = {
      step("s1", 100, 90, 0), step("s1", 120, 80, 1), step("s2", 110, 95, 0),
      step("s2", 130, 85, 1)};
  SteadyState S = steadyState(Its);
  EXPECT_EQ(S.Steps, 2u);
  EXPECT_EQ(S.BaselineNs, 125);
  EXPECT_EQ(S.PredictedNs, 92);
}

TEST(SteadyStateTest, UnnamedStepsAreStepsOfTheirOwn) {
  std::vector<IterationResult> Its = {step("", 100, 50), step("", 300, 70),
                                      step("", 200, 60)};
  SteadyState S = steadyState(Its);
  EXPECT_EQ(S.Steps, 3u);
  EXPECT_EQ(S.BaselineNs, 200);
  EXPECT_EQ(S.PredictedNs, 60);
}

} // namespace
