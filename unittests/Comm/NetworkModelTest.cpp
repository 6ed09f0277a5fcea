//===- NetworkModelTest.cpp - Collective times, checked by hand -----------===//
//
// Every expected time below is worked out by hand from the formulas in
// docs/Network.md (bytes / (GB/s) is ns; latencies in us are x 1000 ns).
//
//===----------------------------------------------------------------------===//

#include "daydream/Comm/NetworkModel.h"

#include "gtest/gtest.h"

using namespace dd;
using namespace dd::comm;

namespace {

Topology flat(int64_t Gpus, double Gbps, double LatencyUs) {
  return singleNode(Gpus, Link{Gbps, LatencyUs});
}

Topology twoLevels(int64_t GpusPerNode, Link Intra, Link Inter) {
  Topology T;
  T.GpusPerNode = GpusPerNode;
  T.Intra = Intra;
  T.Inter = Inter;
  return T;
}

double time(CollectiveKind K, Algorithm A, double Bytes, int64_t Ranks,
            const Topology &T) {
  return collectiveTimeNs(K, A, Bytes, Ranks, T);
}

TEST(NetworkModelTest, AlphaBeta) {
  // 5 us + 1e6 B / 20 GB/s = 5000 + 50000 ns.
  EXPECT_DOUBLE_EQ(alphaBetaNs(1e6, Link{20, 5}), 55000);
  EXPECT_DOUBLE_EQ(alphaBetaNs(0, Link{20, 5}), 5000);
}

TEST(NetworkModelTest, RingAllReduceOneNode) {
  // 2(n-1)/n x B / beta + 2(n-1) alpha = 14/8 x 8e6 / 100 + 14 x 5000.
  EXPECT_DOUBLE_EQ(
      time(CollectiveKind::AllReduce, Algorithm::Ring, 8e6, 8, flat(8, 100, 5)),
      140000 + 70000);
  // Default is ring for all-reduce.
  EXPECT_DOUBLE_EQ(time(CollectiveKind::AllReduce, Algorithm::Default, 8e6, 8,
                        flat(8, 100, 5)),
                   210000);
}

TEST(NetworkModelTest, TreeAllReduce) {
  // One GPU per node: the textbook double binary tree, 2 ceil(log2 8) = 6
  // network steps and 2B at the network's bandwidth: 30000 + 16e6 / 100.
  Topology OnePerNode = twoLevels(1, Link{300, 1}, Link{100, 5});
  EXPECT_DOUBLE_EQ(
      time(CollectiveKind::AllReduce, Algorithm::Tree, 8e6, 8, OnePerNode),
      30000 + 160000);
  // 5 nodes: ceil(log2 5) = 3 levels, still 6 steps.
  EXPECT_DOUBLE_EQ(
      time(CollectiveKind::AllReduce, Algorithm::Tree, 8e6, 5, OnePerNode),
      30000 + 160000);
  // Inside one node NCCL's tree is a chain: 2(n-1) = 14 steps.
  EXPECT_DOUBLE_EQ(
      time(CollectiveKind::AllReduce, Algorithm::Tree, 8e6, 8, flat(8, 100, 5)),
      70000 + 160000);
  // Two nodes of 4: 2 x ((4 - 1) x 1 us + 1 x 5 us) = 16 us, 2B over the
  // network.
  Topology TwoByFour = twoLevels(4, Link{300, 1}, Link{100, 5});
  EXPECT_DOUBLE_EQ(
      time(CollectiveKind::AllReduce, Algorithm::Tree, 8e6, 8, TwoByFour),
      6000 + 10000 + 160000);
}

TEST(NetworkModelTest, AllGatherReduceScatterAllToAll) {
  // (n-1)/n x B / beta + (n-1) alpha = 3/4 x 4e6 / 50 + 3 x 2000.
  for (CollectiveKind K :
       {CollectiveKind::AllGather, CollectiveKind::ReduceScatter,
        CollectiveKind::AllToAll})
    EXPECT_DOUBLE_EQ(time(K, Algorithm::Default, 4e6, 4, flat(4, 50, 2)),
                     60000 + 6000)
        << toString(K).str();
}

TEST(NetworkModelTest, BroadcastReduceSendRecv) {
  // Chain: B / beta + (n-1) alpha = 1e6 / 50 + 3 x 2000.
  for (CollectiveKind K : {CollectiveKind::Broadcast, CollectiveKind::Reduce})
    EXPECT_DOUBLE_EQ(time(K, Algorithm::Ring, 1e6, 4, flat(4, 50, 2)),
                     20000 + 6000)
        << toString(K).str();
  // One message: alpha + B / beta, inside a node or across.
  EXPECT_DOUBLE_EQ(time(CollectiveKind::SendRecv, Algorithm::Default, 1e6, 2,
                        flat(2, 50, 2)),
                   22000);
  Topology OnePerNode = twoLevels(1, Link{50, 2}, Link{10, 8});
  EXPECT_DOUBLE_EQ(
      time(CollectiveKind::SendRecv, Algorithm::Default, 1e6, 2, OnePerNode),
      8000 + 100000);
}

TEST(NetworkModelTest, RingAcrossNodes) {
  // 16 ranks on 2 nodes of 8: 2(n-m) = 28 steps at 3 us inside, 2(m-1) = 2
  // at 10 us across, 2(n-1)/n = 1.875 x 16e6 B at the network's 50 GB/s.
  Topology T = twoLevels(8, Link{300, 3}, Link{50, 10});
  EXPECT_DOUBLE_EQ(
      time(CollectiveKind::AllReduce, Algorithm::Ring, 16e6, 16, T),
      84000 + 20000 + 600000);
  // All-gather: n-m = 14 and m-1 = 1 steps, 15/16 x B.
  EXPECT_DOUBLE_EQ(
      time(CollectiveKind::AllGather, Algorithm::Ring, 16e6, 16, T),
      42000 + 10000 + 300000);
  // Fewer ranks than a node: the network plays no part.
  EXPECT_DOUBLE_EQ(time(CollectiveKind::AllReduce, Algorithm::Ring, 16e6, 8, T),
                   14 * 3000 + 14.0 / 8 * 16e6 / 300);
}

TEST(NetworkModelTest, AllToAllAcrossNodes) {
  // 16 ranks on 4 nodes of 4: g - 1 = 3 steps inside, n - g = 12 across;
  // each node sends g (n-g)/n = 3 x B through its NICs.
  Topology T = twoLevels(4, Link{200, 1}, Link{25, 10});
  EXPECT_DOUBLE_EQ(
      time(CollectiveKind::AllToAll, Algorithm::Direct, 1e6, 16, T),
      3000 + 120000 + 120000);
}

TEST(NetworkModelTest, NothingToDo) {
  Topology T = flat(8, 100, 5);
  EXPECT_EQ(time(CollectiveKind::AllReduce, Algorithm::Ring, 8e6, 1, T), 0);
  EXPECT_EQ(time(CollectiveKind::Other, Algorithm::Ring, 8e6, 8, T), 0);
  // A size of 0 leaves the latency.
  EXPECT_DOUBLE_EQ(time(CollectiveKind::AllReduce, Algorithm::Ring, 0, 8, T),
                   70000);
}

TEST(NetworkModelTest, NodesSpanned) {
  EXPECT_EQ(nodesSpanned(8, 8), 1);
  EXPECT_EQ(nodesSpanned(9, 8), 2);
  EXPECT_EQ(nodesSpanned(16, 8), 2);
  EXPECT_EQ(nodesSpanned(1, 8), 1);
  EXPECT_EQ(nodesSpanned(5, 1), 5);
}

TEST(NetworkModelTest, KindsAndAlgorithms) {
  for (unsigned I = 0; I <= unsigned(CollectiveKind::Other); ++I) {
    CollectiveKind K = CollectiveKind(I);
    EXPECT_EQ(parseCollectiveKind(toString(K)), K);
  }
  EXPECT_EQ(parseCollectiveKind("allreduce"), llvm::None);
  EXPECT_EQ(parseAlgorithm("RING"), Algorithm::Ring);
  EXPECT_EQ(parseAlgorithm("tree"), Algorithm::Tree);
  EXPECT_EQ(parseAlgorithm("pairwise"), Algorithm::Direct);
  EXPECT_EQ(parseAlgorithm("nvls"), Algorithm::Default);
  EXPECT_EQ(resolveAlgorithm(CollectiveKind::AllReduce, Algorithm::Default),
            Algorithm::Ring);
  EXPECT_EQ(resolveAlgorithm(CollectiveKind::AllReduce, Algorithm::Tree),
            Algorithm::Tree);
  EXPECT_EQ(resolveAlgorithm(CollectiveKind::AllGather, Algorithm::Tree),
            Algorithm::Ring);
  EXPECT_EQ(resolveAlgorithm(CollectiveKind::AllToAll, Algorithm::Ring),
            Algorithm::Direct);
}

TEST(NetworkModelTest, DefaultLinks) {
  // NVLink from GpuSpecs.h; the DGX H100's 8 NDR NICs: 8 x 50 GB/s.
  DefaultLinks H100 = defaultLinks("NVIDIA H100 80GB HBM3");
  EXPECT_DOUBLE_EQ(H100.Intra.Gbps, 450);
  EXPECT_DOUBLE_EQ(H100.Intra.LatencyUs, 3.4);
  EXPECT_DOUBLE_EQ(H100.Inter.Gbps, 400);
  EXPECT_DOUBLE_EQ(H100.Inter.LatencyUs, 9.6);
  EXPECT_NE(H100.InterWhat.find("DGX H100"), std::string::npos);
  // DGX-1: 4 EDR NICs.
  DefaultLinks V100 = defaultLinks("Tesla V100-SXM2-16GB");
  EXPECT_DOUBLE_EQ(V100.Intra.Gbps, 150);
  EXPECT_DOUBLE_EQ(V100.Inter.Gbps, 50);
  DefaultLinks A100 = defaultLinks("NVIDIA A100-SXM4-80GB");
  EXPECT_DOUBLE_EQ(A100.Intra.Gbps, 300);
  EXPECT_DOUBLE_EQ(A100.Inter.Gbps, 200);
  DefaultLinks H200 = defaultLinks("NVIDIA H200");
  EXPECT_DOUBLE_EQ(H200.Intra.Gbps, 450);
  EXPECT_DOUBLE_EQ(H200.Inter.Gbps, 400);
  // No DGX: one EDR NIC; unknown GPU: PCIe 4 as well.
  DefaultLinks Mi300 = defaultLinks("AMD Instinct MI300X");
  EXPECT_DOUBLE_EQ(Mi300.Intra.Gbps, 448);
  EXPECT_DOUBLE_EQ(Mi300.Inter.Gbps, 12.5);
  DefaultLinks Unknown = defaultLinks("Test GPU");
  EXPECT_DOUBLE_EQ(Unknown.Intra.Gbps, 31.5);
  EXPECT_DOUBLE_EQ(Unknown.Intra.LatencyUs, 5.7);
  EXPECT_DOUBLE_EQ(Unknown.Inter.Gbps, 12.5);
  EXPECT_NE(Unknown.IntraWhat.find("not in the table"), std::string::npos);
}

TEST(NetworkModelTest, KnownLinks) {
  ASSERT_NE(findLink("ib-ndr"), nullptr);
  EXPECT_DOUBLE_EQ(findLink("ib-ndr")->L.Gbps, 50);
  EXPECT_DOUBLE_EQ(findLink("IB-HDR")->L.Gbps, 25);
  EXPECT_DOUBLE_EQ(findLink("pcie5")->L.Gbps, 63);
  EXPECT_DOUBLE_EQ(findLink("nvlink-b200")->L.Gbps, 900);
  EXPECT_EQ(findLink("token-ring"), nullptr);
}

} // namespace
