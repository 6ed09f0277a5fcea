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

TEST(NetworkModelTest, PlacementOfMembers) {
  // A TP x DP job of 32 ranks on nodes of 8: the data-parallel group
  // [0,8,16,24] has one rank on each of 4 nodes, the tensor-parallel group
  // [0..7] fills one node; packed, 4 ranks would fit in one node.
  Placement Dp = placementOf({0, 8, 16, 24}, 8);
  EXPECT_EQ(Dp.Ranks, 4);
  EXPECT_EQ(Dp.Nodes, 4);
  EXPECT_DOUBLE_EQ(Dp.PerNode, 1);
  Placement Tp = placementOf({0, 1, 2, 3, 4, 5, 6, 7}, 8);
  EXPECT_EQ(Tp.Nodes, 1);
  EXPECT_DOUBLE_EQ(Tp.PerNode, 8);
  Placement Packed = consecutivePlacement(4, 8);
  EXPECT_EQ(Packed.Nodes, 1);
  EXPECT_DOUBLE_EQ(Packed.PerNode, 4);
  // Uneven: ranks 6, 7 on node 0, 8 on node 1; the most on one node is 2.
  Placement Uneven = placementOf({6, 7, 8}, 8);
  EXPECT_EQ(Uneven.Nodes, 2);
  EXPECT_DOUBLE_EQ(Uneven.PerNode, 2);
  // Without listing them: 4 ranks 8 apart; 8 ranks 2 apart from 1
  // (1, 3, 5, 7 | 9, 11, 13, 15); 3 ranks 3 apart from 6 (6 | 9, 12 | 15
  // would be a fourth): nodes 0 and 1, two on node 1.
  Placement S = stridedPlacement(0, 8, 4, 8);
  EXPECT_EQ(S.Nodes, 4);
  EXPECT_DOUBLE_EQ(S.PerNode, 1);
  S = stridedPlacement(1, 2, 8, 8);
  EXPECT_EQ(S.Nodes, 2);
  EXPECT_DOUBLE_EQ(S.PerNode, 4);
  S = stridedPlacement(6, 3, 3, 8);
  EXPECT_EQ(S.Nodes, 2);
  EXPECT_DOUBLE_EQ(S.PerNode, 2);
}

TEST(NetworkModelTest, StridedGroupCrossesNodes) {
  // Ring all-reduce of 4e6 B over 4 ranks on nodes of 8.
  // Consecutive: one node, 2(n-1) = 6 steps inside, 1.5 x B inside.
  CostTerms Packed = costTerms(CollectiveKind::AllReduce, Algorithm::Ring, 4e6,
                               consecutivePlacement(4, 8));
  EXPECT_DOUBLE_EQ(Packed.IntraHops, 6);
  EXPECT_DOUBLE_EQ(Packed.InterHops, 0);
  EXPECT_DOUBLE_EQ(Packed.IntraBytes, 6e6);
  EXPECT_DOUBLE_EQ(Packed.InterBytes, 0);
  // The same size as the old signature gives.
  CostTerms Old =
      costTerms(CollectiveKind::AllReduce, Algorithm::Ring, 4e6, 4, 8);
  EXPECT_DOUBLE_EQ(Old.IntraHops, 6);
  EXPECT_DOUBLE_EQ(Old.IntraBytes, 6e6);
  // Strided [0,8,16,24]: 2(n-m) = 0 steps inside, 2(m-1) = 6 across, and
  // every byte over the network.
  CostTerms Strided = costTerms(CollectiveKind::AllReduce, Algorithm::Ring, 4e6,
                                placementOf({0, 8, 16, 24}, 8));
  EXPECT_DOUBLE_EQ(Strided.IntraHops, 0);
  EXPECT_DOUBLE_EQ(Strided.InterHops, 6);
  EXPECT_DOUBLE_EQ(Strided.IntraBytes, 0);
  EXPECT_DOUBLE_EQ(Strided.InterBytes, 6e6);
  // Its time: 6 x 10 us + 6e6 / 50 = 180 us, where packed it takes
  // 6 x 3 us + 6e6 / 300 = 38 us.
  Topology T = twoLevels(8, Link{300, 3}, Link{50, 10});
  EXPECT_DOUBLE_EQ(collectiveTimeNs(CollectiveKind::AllReduce, Algorithm::Ring,
                                    4e6, placementOf({0, 8, 16, 24}, 8), T),
                   60000 + 120000);
  EXPECT_DOUBLE_EQ(time(CollectiveKind::AllReduce, Algorithm::Ring, 4e6, 4, T),
                   18000 + 20000);
  // All-to-all: g - 1 = 0 steps inside, n - g = 3 across, g (n-g)/n =
  // 3/4 x B per node.
  CostTerms A2a = costTerms(CollectiveKind::AllToAll, Algorithm::Direct, 4e6,
                            placementOf({0, 8, 16, 24}, 8));
  EXPECT_DOUBLE_EQ(A2a.IntraHops, 0);
  EXPECT_DOUBLE_EQ(A2a.InterHops, 3);
  EXPECT_DOUBLE_EQ(A2a.InterBytes, 3e6);
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
