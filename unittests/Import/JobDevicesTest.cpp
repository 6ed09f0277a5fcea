//===- JobDevicesTest.cpp - One index per GPU across a job's ranks --------===//
//
// JobDevices on ranks that number their GPUs apart (kept), alike (two
// nodes, or a process seeing only its own GPU: given new indices), and
// with declared but unused devices, which a new index avoids.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Import/JobDevices.h"

#include "gtest/gtest.h"

#include <vector>

using namespace dd;
using namespace dd::import;

namespace {

std::vector<Lane> lanesOn(std::initializer_list<int32_t> Devices) {
  std::vector<Lane> Lanes;
  Lane Cpu; // a CPU thread is on no device
  Lanes.push_back(Cpu);
  for (int32_t D : Devices) {
    Lane L;
    L.Kind = LaneKind::GpuStream;
    L.Device = D;
    Lanes.push_back(L);
  }
  return Lanes;
}

std::vector<Device> declared(int32_t From, int32_t To) {
  std::vector<Device> Ds;
  for (int32_t I = From; I != To; ++I) {
    Device D;
    D.Index = I;
    Ds.push_back(D);
  }
  return Ds;
}

TEST(JobDevicesTest, RanksNumberedApartKeepTheirIndices) {
  JobDevices J;
  for (int32_t R = 0; R != 4; ++R) {
    RankDevices D = J.number(R, lanesOn({R, R}), declared(0, 4));
    EXPECT_EQ(D(R), R);
    EXPECT_TRUE(D.renumbered().empty());
  }
  EXPECT_EQ(J.renumbered(), 0u);
}

TEST(JobDevicesTest, TwoNodesNumberTheSecondAfterTheFirst) {
  JobDevices J;
  for (int32_t R = 0; R != 16; ++R) {
    RankDevices D = J.number(R, lanesOn({R % 8}), declared(0, 8));
    EXPECT_EQ(D(R % 8), R) << "rank " << R;
    EXPECT_EQ(D(-1), -1); // the host stays the host
  }
  EXPECT_EQ(J.renumbered(), 8u);
  EXPECT_EQ(J.firstRenumbered(), "rank 8's device 0 is the job's device 8");
}

TEST(JobDevicesTest, ProcessesSeeingOnlyTheirOwnGpu) {
  JobDevices J;
  for (int32_t R = 0; R != 3; ++R)
    EXPECT_EQ(J.number(R, lanesOn({0}), declared(0, 1))(0), R);
}

TEST(JobDevicesTest, ANewIndexIsNoDeclaredDevice) {
  // Rank 0's process saw 8 GPUs and used GPU 0; rank 1 says GPU 0 too.
  // GPUs 1 to 7, declared and unused, may be other GPUs of rank 0's node.
  JobDevices J;
  EXPECT_EQ(J.number(0, lanesOn({0}), declared(0, 8))(0), 0);
  EXPECT_EQ(J.number(1, lanesOn({0}), declared(0, 1))(0), 8);
  // A device no earlier lane used keeps its index, declared or not.
  EXPECT_EQ(J.number(2, lanesOn({1}), declared(0, 8))(1), 1);
  // Nor does a new index take one its own rank declares.
  EXPECT_EQ(J.number(3, lanesOn({0}), declared(0, 12))(0), 12);
}

TEST(JobDevicesTest, ARanksOwnDevicesDoNotPushEachOtherAlong) {
  JobDevices J;
  EXPECT_EQ(J.number(0, lanesOn({0}), {})(0), 0);
  // Rank 1 has GPUs 0 and 1: 0 is taken, 1 is its own and stays.
  RankDevices D = J.number(1, lanesOn({0, 1}), {});
  EXPECT_EQ(D(1), 1);
  EXPECT_EQ(D(0), 2);
}

} // namespace
