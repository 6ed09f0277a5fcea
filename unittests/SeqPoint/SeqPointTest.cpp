//===- SeqPointTest.cpp - Selection, weights and projection, exactly ------===//
//
// The algorithm on runs small enough to work out by hand (the comments do),
// so that any change to binning, the choice of representative, the weights
// or the stopping rule shows up as a changed iteration or weight.
//
//===----------------------------------------------------------------------===//

#include "daydream/SeqPoint/SeqPoint.h"
#include "daydream/SeqPoint/Baselines.h"
#include "daydream/SeqPoint/OtherRun.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace dd::seqpoint;

namespace {

/// Iteration I has length Lengths[I] and time Times[I] (-1: not measured).
RunProfile makeRun(std::vector<int64_t> Lengths, std::vector<double> Times) {
  RunProfile Run("test", {"seq_len"});
  for (size_t I = 0; I != Lengths.size(); ++I)
    Run.add(int64_t(I), {Lengths[I]}, Times[I]);
  return Run;
}

/// Lengths 5 3 8 3 9 5 1 8 2 5 (iterations 0..9), time = 10 * length:
/// distinct lengths 1 2 3 5 8 9, measured total 490.
RunProfile tenIterations() {
  std::vector<int64_t> L = {5, 3, 8, 3, 9, 5, 1, 8, 2, 5};
  std::vector<double> T;
  T.reserve(L.size());
  for (int64_t X : L)
    T.push_back(10.0 * double(X));
  return makeRun(L, T);
}

std::vector<int64_t> reps(const RunProfile &Run,
                          const std::vector<SeqPointBin> &Bins) {
  std::vector<int64_t> R;
  R.reserve(Bins.size());
  for (const SeqPointBin &B : Bins)
    R.push_back(Run.iteration(B.Rep));
  return R;
}

std::vector<uint64_t> weights(const std::vector<SeqPointBin> &Bins) {
  std::vector<uint64_t> W;
  W.reserve(Bins.size());
  for (const SeqPointBin &B : Bins)
    W.push_back(B.Weight);
  return W;
}

TEST(SeqPointTest, TwoBinsSplitTheDistinctLengths) {
  RunProfile Run = tenIterations();
  auto Bins = binRun(Run, Run.keys(LengthCombine::Sum), 2);
  // {1,2,3}: iterations 6 8 1 3, lower median length 2 -> iteration 8.
  // {5,8,9}: iterations 0 5 9 2 7 4, lower median length 5 -> the smallest
  // index of length 5, iteration 0.
  EXPECT_EQ(reps(Run, Bins), (std::vector<int64_t>{8, 0}));
  EXPECT_EQ(weights(Bins), (std::vector<uint64_t>{4, 6}));
  EXPECT_EQ(Bins[0].MinKey, 1);
  EXPECT_EQ(Bins[0].MaxKey, 3);
  EXPECT_EQ(Bins[1].Key, 5);
  Projection P = project(Run, Bins);
  EXPECT_DOUBLE_EQ(P.ProjectedUs, 4 * 20 + 6 * 50);
  EXPECT_DOUBLE_EQ(P.MeasuredUs, 490);
}

TEST(SeqPointTest, ThreeBins) {
  RunProfile Run = tenIterations();
  auto Bins = binRun(Run, Run.keys(LengthCombine::Sum), 3);
  // {1,2}: 6 8 -> length 1, iteration 6. {3,5}: 1 3 0 5 9 -> length 5,
  // iteration 0. {8,9}: 2 7 4 -> length 8, iteration 2.
  EXPECT_EQ(reps(Run, Bins), (std::vector<int64_t>{6, 0, 2}));
  EXPECT_EQ(weights(Bins), (std::vector<uint64_t>{2, 5, 3}));
  EXPECT_DOUBLE_EQ(project(Run, Bins).ProjectedUs, 20 + 250 + 240);
}

TEST(SeqPointTest, GrowsUntilBelowTheThreshold) {
  RunProfile Run = tenIterations();
  auto S = selectSeqPoints(Run, Run.keys(LengthCombine::Sum), {});
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  // K=1: iteration 0 (length 5) x 10 = 500, +2.04%. K=2: 380, -22.4%.
  // K=3: 510, +4.08%. K=4 ({1} {2,3} {5} {8,9}): 10 + 3*30 + 3*50 + 3*80
  // = 490, exact.
  ASSERT_EQ(S->ErrorByK.size(), 4u);
  EXPECT_DOUBLE_EQ(S->ErrorByK[0], 10.0 / 490);
  EXPECT_DOUBLE_EQ(S->ErrorByK[1], -110.0 / 490);
  EXPECT_DOUBLE_EQ(S->ErrorByK[2], 20.0 / 490);
  EXPECT_DOUBLE_EQ(S->ErrorByK[3], 0);
  EXPECT_TRUE(S->Converged);
  EXPECT_EQ(reps(Run, S->Bins), (std::vector<int64_t>{6, 1, 0, 2}));
  EXPECT_EQ(weights(S->Bins), (std::vector<uint64_t>{1, 3, 3, 3}));
  EXPECT_EQ(S->DistinctKeys, 6u);
}

TEST(SeqPointTest, AWideThresholdStopsAtOne) {
  RunProfile Run = tenIterations();
  SelectOptions O;
  O.Threshold = 0.03; // K=1 is off by 2.04%
  auto S = selectSeqPoints(Run, Run.keys(LengthCombine::Sum), O);
  ASSERT_TRUE(bool(S));
  EXPECT_EQ(reps(Run, S->Bins), (std::vector<int64_t>{0}));
  EXPECT_EQ(weights(S->Bins), (std::vector<uint64_t>{10}));
}

TEST(SeqPointTest, TheCapKeepsTheMostAccurate) {
  RunProfile Run = tenIterations();
  SelectOptions O;
  O.MaxSeqPoints = 3; // K=4 would be exact; of K=1..3, K=1 is closest
  auto S = selectSeqPoints(Run, Run.keys(LengthCombine::Sum), O);
  ASSERT_TRUE(bool(S));
  EXPECT_FALSE(S->Converged);
  EXPECT_EQ(S->ErrorByK.size(), 3u);
  EXPECT_EQ(reps(Run, S->Bins), (std::vector<int64_t>{0}));
  EXPECT_DOUBLE_EQ(S->ProfiledError, 10.0 / 490);
}

TEST(SeqPointTest, TiesGoToTheSmallestIteration) {
  // Every iteration has length 4: one bin, represented by iteration 0
  // whatever the times.
  RunProfile Run = makeRun({4, 4, 4, 4}, {13, 11, 12, 10});
  auto S = selectSeqPoints(Run, Run.keys(LengthCombine::Sum), {});
  ASSERT_TRUE(bool(S));
  EXPECT_EQ(reps(Run, S->Bins), (std::vector<int64_t>{0}));
  EXPECT_FALSE(S->Converged); // 4 * 13 = 52 against 46
}

TEST(SeqPointTest, PrefersAMeasuredRepresentative) {
  // One bin; the median length 2 (iterations 1 and 2) has no time, so the
  // nearest measured lengths, 1 and 3, tie on distance and the smaller
  // length wins: iteration 0.
  RunProfile Run = makeRun({1, 2, 2, 3}, {10, -1, -1, 30});
  auto Bins = binRun(Run, Run.keys(LengthCombine::Sum), 1);
  EXPECT_EQ(reps(Run, Bins), (std::vector<int64_t>{0}));
  EXPECT_EQ(Bins[0].Timed, 2u);
  Projection P = project(Run, Bins);
  EXPECT_DOUBLE_EQ(P.ProjectedUs, 40);
  EXPECT_DOUBLE_EQ(P.MeasuredUs, -1); // two iterations were not measured
  EXPECT_EQ(P.Profiled, 2u);
  EXPECT_DOUBLE_EQ(P.ProfiledProjectedUs, 20);
  EXPECT_DOUBLE_EQ(P.ProfiledMeasuredUs, 40);
}

TEST(SeqPointTest, UnmeasuredRepresentativeLeavesNoProjection) {
  RunProfile Run = makeRun({1, 5, 5}, {10, -1, -1});
  auto Bins = binRun(Run, Run.keys(LengthCombine::Sum), 2);
  EXPECT_EQ(reps(Run, Bins), (std::vector<int64_t>{0, 1}));
  EXPECT_DOUBLE_EQ(project(Run, Bins).ProjectedUs, -1);
}

TEST(SeqPointTest, FixedCountNeedsNoTimes) {
  RunProfile Run = makeRun({1, 2, 3, 4}, {-1, -1, -1, -1});
  auto Keys = Run.keys(LengthCombine::Sum);
  auto Unvalidated = selectSeqPoints(Run, Keys, {});
  ASSERT_FALSE(bool(Unvalidated));
  EXPECT_EQ(llvm::toString(Unvalidated.takeError()),
            "test: no iteration has a measured time to validate SeqPoints "
            "against; give -seqpoints=N to choose N without validation");
  SelectOptions O;
  O.Fixed = 2;
  auto S = selectSeqPoints(Run, Keys, O);
  ASSERT_TRUE(bool(S));
  EXPECT_EQ(reps(Run, S->Bins), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(weights(S->Bins), (std::vector<uint64_t>{2, 2}));
  O.Fixed = 5;
  auto TooMany = selectSeqPoints(Run, Keys, O);
  ASSERT_FALSE(bool(TooMany));
  EXPECT_EQ(llvm::toString(TooMany.takeError()),
            "test: 5 SeqPoints asked for, but the run has only 4 distinct "
            "lengths");
}

TEST(SeqPointTest, SeveralLengthsCombine) {
  RunProfile Run("test", {"src", "tgt"});
  Run.add(0, {3, 4}, 1);
  Run.add(1, {2, 6}, 1);
  EXPECT_EQ(Run.keys(LengthCombine::Sum), (std::vector<int64_t>{7, 8}));
  EXPECT_EQ(Run.keys(LengthCombine::Product), (std::vector<int64_t>{12, 12}));
  EXPECT_EQ(Run.describeLengths(LengthCombine::Sum), "src+tgt");
  EXPECT_EQ(Run.describeLengths(LengthCombine::Product), "src*tgt");
}

TEST(BaselinesTest, FirstAndRandomN) {
  RunProfile Run = makeRun({1, 2, 3, 4}, {10, 20, 30, 40});
  auto C = compareBaselines(Run, 2, 50, 7);
  ASSERT_TRUE(C.hasValue());
  EXPECT_EQ(C->N, 2u);
  EXPECT_EQ(C->Profiled, 4u);
  EXPECT_DOUBLE_EQ(C->FirstNError, (30.0 * 2 - 100) / 100);
  ASSERT_EQ(C->RandomErrors.size(), 50u);
  // A pair's sum is 30..70, so its projection 60..140 of 100.
  for (double E : C->RandomErrors) {
    EXPECT_GE(E, -0.4 - 1e-12);
    EXPECT_LE(E, 0.4 + 1e-12);
  }
  EXPECT_LE(C->randomMedianAbsError(), C->randomWorstAbsError());
  // The same seed draws the same; another seed, other draws.
  EXPECT_EQ(compareBaselines(Run, 2, 50, 7)->RandomErrors, C->RandomErrors);
  EXPECT_NE(compareBaselines(Run, 2, 50, 8)->RandomErrors, C->RandomErrors);
  EXPECT_FALSE(compareBaselines(Run, 5, 50, 7).hasValue());
}

TEST(BaselinesTest, MedianAndWorst) {
  BaselineComparison C;
  C.RandomErrors = {0.03, -0.01, -0.05, 0.02};
  EXPECT_DOUBLE_EQ(C.randomMedianAbsError(), 0.025);
  EXPECT_DOUBLE_EQ(C.randomWorstAbsError(), 0.05);
  C.RandomErrors.pop_back();
  EXPECT_DOUBLE_EQ(C.randomMedianAbsError(), 0.03);
}

TEST(OtherRunTest, ProjectsTheOtherRecordingAndTheSpeedup) {
  RunProfile Run = tenIterations();
  auto S = selectSeqPoints(Run, Run.keys(LengthCombine::Sum), {});
  ASSERT_TRUE(bool(S));
  // Twice as fast, except iteration 9 (not a SeqPoint), which is not.
  std::vector<int64_t> L = {5, 3, 8, 3, 9, 5, 1, 8, 2, 5};
  std::vector<double> T;
  T.reserve(L.size());
  for (int64_t X : L)
    T.push_back(5.0 * double(X));
  T[9] = 50;
  RunProfile Other = makeRun(L, T);
  auto P = projectOtherRun(Run, S->Bins, project(Run, S->Bins), Other);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_DOUBLE_EQ(P->ProjectedUs, 245);
  EXPECT_DOUBLE_EQ(P->MeasuredUs, 270);
  EXPECT_DOUBLE_EQ(P->ProjectedSpeedup, 2);
  EXPECT_DOUBLE_EQ(P->MeasuredSpeedup, 490.0 / 270);

  RunProfile Shifted = makeRun({5, 3, 8, 3, 9, 5, 1, 8, 2, 6}, T);
  auto Bad = projectOtherRun(Run, S->Bins, project(Run, S->Bins), Shifted);
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(llvm::toString(Bad.takeError()),
            "test: iteration 9 has other lengths than in test: not a "
            "recording of the same run");
}

} // namespace
