//===- CalibrationTest.cpp - Fitting latency and bandwidth ----------------===//
//
// Synthetic samples made by the model itself must give its parameters back
// exactly; fewer or odd samples fall back as Calibration.h says.
//
//===----------------------------------------------------------------------===//

#include "daydream/Comm/Calibration.h"

#include "gtest/gtest.h"

using namespace dd;
using namespace dd::comm;

namespace {

/// Defaults far from every true value, so a test sees what was fitted.
DefaultLinks farDefaults() {
  DefaultLinks D;
  D.Intra = Link{1000, 0.5};
  D.Inter = Link{1, 100};
  D.IntraWhat = "intra default";
  D.InterWhat = "inter default";
  return D;
}

Sample sample(CollectiveKind K, Algorithm A, double Bytes, int64_t Ranks,
              const Topology &True) {
  return Sample{K, A, Bytes, Ranks, collectiveTimeNs(K, A, Bytes, Ranks, True)};
}

Topology truth(int64_t GpusPerNode) {
  Topology T;
  T.GpusPerNode = GpusPerNode;
  T.Intra = Link{20, 5};
  T.Inter = Link{50, 10};
  return T;
}

void expectLink(const Link &Got, const Link &Want) {
  EXPECT_NEAR(Got.Gbps, Want.Gbps, 1e-9 * Want.Gbps);
  EXPECT_NEAR(Got.LatencyUs, Want.LatencyUs, 1e-9 * Want.LatencyUs + 1e-12);
}

TEST(CalibrationTest, RecoversIntraNodeExactly) {
  Topology T = truth(8);
  // Hand check of the first two: 2 x 5 us + 1e6 / 20 = 60 us, and 160 us.
  std::vector<Sample> S = {
      sample(CollectiveKind::AllReduce, Algorithm::Ring, 1e6, 2, T),
      sample(CollectiveKind::AllReduce, Algorithm::Ring, 3e6, 2, T),
      sample(CollectiveKind::AllGather, Algorithm::Ring, 2e6, 4, T),
      sample(CollectiveKind::AllToAll, Algorithm::Direct, 5e5, 8, T)};
  EXPECT_DOUBLE_EQ(S[0].TimeNs, 60000);
  EXPECT_DOUBLE_EQ(S[1].TimeNs, 160000);
  Calibration C = calibrate(S, 8, farDefaults());
  EXPECT_EQ(C.Intra.Source, LinkSource::Fitted);
  EXPECT_EQ(C.Intra.Samples, 4u);
  EXPECT_EQ(C.Intra.Sizes, 4u);
  EXPECT_FALSE(C.Intra.LatencyClamped);
  expectLink(C.Intra.L, T.Intra);
  expectLink(C.T.Intra, T.Intra);
  // Nothing crossed nodes: the network keeps its default.
  EXPECT_EQ(C.Inter.Source, LinkSource::Default);
  expectLink(C.T.Inter, Link{1, 100});
  EXPECT_EQ(C.Intra.describe(), "fitted to 4 distinct collectives of 4 sizes");
  EXPECT_EQ(C.Inter.describe(),
            "default, no measured collective: inter default");
}

TEST(CalibrationTest, RecoversBothLevelsExactly) {
  // Nodes of 4: groups of 2 and 4 stay inside, groups of 8 and 16 span.
  Topology T = truth(4);
  std::vector<Sample> S = {
      sample(CollectiveKind::AllReduce, Algorithm::Ring, 1e6, 2, T),
      sample(CollectiveKind::AllReduce, Algorithm::Ring, 4e6, 4, T),
      sample(CollectiveKind::AllReduce, Algorithm::Ring, 4e6, 8, T),
      sample(CollectiveKind::AllReduce, Algorithm::Ring, 16e6, 8, T),
      sample(CollectiveKind::ReduceScatter, Algorithm::Ring, 8e6, 16, T),
      sample(CollectiveKind::AllReduce, Algorithm::Tree, 8e6, 16, T)};
  Calibration C = calibrate(S, 4, farDefaults());
  EXPECT_EQ(C.Intra.Source, LinkSource::Fitted);
  EXPECT_EQ(C.Inter.Source, LinkSource::Fitted);
  EXPECT_EQ(C.Intra.Samples, 2u);
  EXPECT_EQ(C.Inter.Samples, 4u);
  EXPECT_EQ(C.Inter.Sizes, 3u);
  expectLink(C.T.Intra, T.Intra);
  expectLink(C.T.Inter, T.Inter);
  EXPECT_EQ(C.T.GpusPerNode, 4);
}

TEST(CalibrationTest, OneSizeFitsBandwidthOnly) {
  // 60 us for 1 MB on two ranks; with the default 0.5 us steps the
  // bandwidth is 1e6 / (60000 - 2 x 500) = 16.949... GB/s.
  std::vector<Sample> S = {
      Sample{CollectiveKind::AllReduce, Algorithm::Ring, 1e6, 2, 60000},
      Sample{CollectiveKind::AllReduce, Algorithm::Ring, 1e6, 2, 60000}};
  Calibration C = calibrate(S, 8, farDefaults());
  EXPECT_EQ(C.Intra.Source, LinkSource::BandwidthFitted);
  EXPECT_DOUBLE_EQ(C.T.Intra.LatencyUs, 0.5);
  EXPECT_NEAR(C.T.Intra.Gbps, 1e6 / 59000, 1e-12);
  EXPECT_EQ(C.Intra.describe(),
            "bandwidth fitted to 2 distinct collectives of 1 size, latency "
            "default (0.5 us, intra default)");
}

TEST(CalibrationTest, OneSizeOverTwoGroupSizesFitsBoth) {
  // The same size on 2 and on 4 ranks weighs latency and bandwidth
  // differently (2 steps and 1 x B, 6 steps and 1.5 x B).
  Topology T = truth(8);
  std::vector<Sample> S = {
      sample(CollectiveKind::AllReduce, Algorithm::Ring, 1e6, 2, T),
      sample(CollectiveKind::AllReduce, Algorithm::Ring, 1e6, 4, T)};
  Calibration C = calibrate(S, 8, farDefaults());
  EXPECT_EQ(C.Intra.Source, LinkSource::Fitted);
  expectLink(C.T.Intra, T.Intra);
}

TEST(CalibrationTest, ShortCollectivesPinTheLatency) {
  // 5 us a step, 20 GB/s; a 1 kB all-reduce measured exactly (10.05 us),
  // two of 100 and 200 MB 2% slower and 1% faster than the model. By
  // relative errors the short one decides the latency (5.000 us); by
  // absolute errors the long ones would make it 30 us.
  std::vector<Sample> S = {
      Sample{CollectiveKind::AllReduce, Algorithm::Ring, 1e3, 2, 10050},
      Sample{CollectiveKind::AllReduce, Algorithm::Ring, 1e8, 2,
             (10000 + 5e6) * 1.02},
      Sample{CollectiveKind::AllReduce, Algorithm::Ring, 2e8, 2,
             (10000 + 1e7) * 0.99}};
  Calibration C = calibrate(S, 8, farDefaults());
  EXPECT_EQ(C.Intra.Source, LinkSource::Fitted);
  EXPECT_NEAR(C.T.Intra.LatencyUs, 5, 0.001);
  EXPECT_NEAR(C.T.Intra.Gbps, 20, 0.2);
}

TEST(CalibrationTest, NegativeLatencyBecomesZero) {
  // 40 us for 1 MB and 160 us for 3 MB: the line through them has
  // 2 alpha = -20 us. With alpha = 0, x = sum(w b y) / sum(w b b), w = 1/y^2:
  // (1e6 x 4e4 / 1.6e9 + 3e6 x 1.6e5 / 2.56e10) / (1e12 / 1.6e9 + 9e12 /
  // 2.56e10) = (25 + 18.75) / (625 + 351.5625) = 0.0448 ns/B.
  std::vector<Sample> S = {
      Sample{CollectiveKind::AllReduce, Algorithm::Ring, 1e6, 2, 40000},
      Sample{CollectiveKind::AllReduce, Algorithm::Ring, 3e6, 2, 160000}};
  Calibration C = calibrate(S, 8, farDefaults());
  EXPECT_EQ(C.Intra.Source, LinkSource::Fitted);
  EXPECT_TRUE(C.Intra.LatencyClamped);
  EXPECT_DOUBLE_EQ(C.T.Intra.LatencyUs, 0);
  EXPECT_NEAR(C.T.Intra.Gbps, 1 / 0.0448, 1e-9);
}

TEST(CalibrationTest, NoPositiveBandwidthKeepsDefault) {
  // The larger message took less time: no positive bandwidth fits.
  std::vector<Sample> S = {
      Sample{CollectiveKind::AllReduce, Algorithm::Ring, 1e6, 2, 100000},
      Sample{CollectiveKind::AllReduce, Algorithm::Ring, 3e6, 2, 50000}};
  Calibration C = calibrate(S, 8, farDefaults());
  EXPECT_EQ(C.Intra.Source, LinkSource::Default);
  EXPECT_EQ(C.Intra.Samples, 2u);
  expectLink(C.T.Intra, Link{1000, 0.5});
  EXPECT_EQ(C.Intra.describe(), "default, the 2 distinct collectives of 2 "
                                "sizes gave no positive bandwidth: intra "
                                "default");
}

TEST(CalibrationTest, UnusableSamplesAreIgnored) {
  std::vector<Sample> S = {
      Sample{CollectiveKind::AllReduce, Algorithm::Ring, 0, 2, 5000},
      Sample{CollectiveKind::AllReduce, Algorithm::Ring, 1e6, 2, 0},
      Sample{CollectiveKind::AllReduce, Algorithm::Ring, 1e6, 1, 5000},
      Sample{CollectiveKind::Other, Algorithm::Default, 1e6, 2, 5000}};
  Calibration C = calibrate(S, 8, farDefaults());
  EXPECT_EQ(C.Intra.Source, LinkSource::Default);
  EXPECT_EQ(C.Intra.Samples, 0u);
  EXPECT_EQ(C.Inter.Samples, 0u);
}

} // namespace
