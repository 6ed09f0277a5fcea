//===- CollectivesTest.cpp - Finding collectives, re-timing them ----------===//

#include "daydream/Comm/Collectives.h"
#include "daydream/IR/Graph.h"
#include "daydream/IR/TextFormat.h"

#include "gtest/gtest.h"

using namespace dd;
using namespace dd::comm;

namespace {

Graph parse(llvm::StringRef Text) {
  auto G = parseTextGraph(Text);
  if (!G) {
    ADD_FAILURE() << llvm::toString(G.takeError());
    return Graph();
  }
  return std::move(*G);
}

/// Two ranks and one all-reduce barrier, as dd-import builds a job; plus a
/// ddp-insert style all-reduce on a per-rank channel, which is no barrier.
const char *TwoRanks = R"ddir(ddir 1
rank 0 world=2 host="a"
rank 1 world=2 host="b"
lane @s0 gpu-stream "stream 7" native=7 rank=0 device=0
lane @s1 gpu-stream "stream 7" native=7 rank=1 device=0
lane @w comm-channel "collectives world"
lane @d comm-channel "nccl allreduce" rank=0 device=0
task %a0 marker @s0 "arrive all_reduce" start=100 dur=0
task %t0 collective @s0 "ncclKernel_AllReduce_TREE_LL_Sum_float" start=100 dur=0
task %a1 marker @s1 "arrive all_reduce" start=120 dur=0
task %t1 collective @s1 "ncclKernel_AllReduce_TREE_LL_Sum_float" start=120 dur=0
task %b collective @w "all_reduce" start=120 dur=50 bytes=4096 flops=0 grid=0,0,0 block=0,0,0 smem=0 regs=0 copy=0
task %ddp collective @d "ncclAllReduce (bucket 0, 1.0 MB)" start=200 dur=30
edge %a0 -> %b comm
edge %a1 -> %b comm
edge %b -> %t0 sync
edge %b -> %t1 sync
note %b "collective" "all_reduce"
note %b "ranks" "2"
note %b "algorithm" "tree"
)ddir";

TEST(CollectivesTest, FindsBarriersAndTheirMembers) {
  Graph G = parse(TwoRanks);
  std::vector<CollectiveInfo> Cs = findCollectives(G);
  ASSERT_EQ(Cs.size(), 1u);
  const CollectiveInfo &C = Cs[0];
  EXPECT_EQ(G.str(G.task(C.Task).Name), "all_reduce");
  EXPECT_TRUE(C.IsBarrier);
  EXPECT_EQ(C.Kind, CollectiveKind::AllReduce);
  EXPECT_EQ(C.Alg, Algorithm::Tree);
  EXPECT_EQ(C.Bytes, 4096u);
  EXPECT_EQ(C.Ranks, 2);
  ASSERT_EQ(C.Arrivals.size(), 2u);
  ASSERT_EQ(C.Members.size(), 2u);
  EXPECT_EQ(G.str(G.task(C.Arrivals[0]).Name), "arrive all_reduce");
  EXPECT_EQ(G.task(C.Members[0]).Kind, TaskKind::Collective);
  EXPECT_NE(C.Members[0], C.Members[1]);
}

TEST(CollectivesTest, ModelledRanksCountAndTheLastNoteWins) {
  Graph G = parse(TwoRanks);
  TaskId B = findCollectives(G)[0].Task;
  G.addNote(B, ModelledRanksNote, "8");
  EXPECT_EQ(findCollectives(G)[0].Ranks, 8);
  G.addNote(B, ModelledRanksNote, "16");
  EXPECT_EQ(findCollectives(G)[0].Ranks, 16);
  G.addNote(B, AlgorithmNote, "ring");
  EXPECT_EQ(findCollectives(G)[0].Alg, Algorithm::Ring);
}

TEST(CollectivesTest, GroupSizeFromArrivalsWithoutNote) {
  std::string Text = TwoRanks;
  std::string Note = "note %b \"ranks\" \"2\"\n";
  Text.erase(Text.find(Note), Note.size());
  Graph G = parse(Text);
  std::vector<CollectiveInfo> Cs = findCollectives(G);
  ASSERT_EQ(Cs.size(), 1u);
  EXPECT_EQ(Cs[0].Ranks, 2);
}

TEST(CollectivesTest, KernelsThatNoBarrierJoins) {
  Graph G = parse(TwoRanks);
  // The members on the streams are joined; the channel task is no stream's.
  EXPECT_TRUE(findCollectiveKernels(G, 2).empty());

  Graph One = parse(R"(ddir 1
rank 0 world=4
lane @s gpu-stream "stream 7" native=7 rank=0 device=0
task %g kernel @s "sgemm" start=0 dur=10
task %n1 collective @s "ncclDevKernel_AllGather_RING_LL" start=10 dur=20 bytes=64 flops=0 grid=0,0,0 block=0,0,0 smem=0 regs=0 copy=0
task %n2 kernel @s "ncclKernel_Broadcast_RING_LL_Sum_int8_t" start=30 dur=5
task %n3 kernel @s "ncclKernel_SendRecv" start=35 dur=5
note %n3 "ranks" "2"
)");
  std::vector<CollectiveInfo> Cs = findCollectiveKernels(One, 4);
  ASSERT_EQ(Cs.size(), 3u);
  EXPECT_FALSE(Cs[0].IsBarrier);
  EXPECT_EQ(Cs[0].Kind, CollectiveKind::AllGather);
  EXPECT_EQ(Cs[0].Alg, Algorithm::Ring);
  EXPECT_EQ(Cs[0].Bytes, 64u);
  EXPECT_EQ(Cs[0].Ranks, 4);
  EXPECT_EQ(Cs[1].Kind, CollectiveKind::Broadcast);
  EXPECT_EQ(Cs[1].Bytes, 0u);
  EXPECT_EQ(Cs[2].Kind, CollectiveKind::SendRecv);
  EXPECT_EQ(Cs[2].Ranks, 2);
  EXPECT_EQ(recordedWorldSize(One), 4);
}

TEST(CollectivesTest, SendRecvKernelsTakeTheKindOfTheirOp) {
  // NCCL's all-to-all runs as a SendRecv kernel; PyTorch's op around it (the
  // kernel's layer or an enclosing one) names the collective. Ops that are
  // not NCCL's or c10d's do not count, and other kinds are not overridden.
  Graph G = parse(R"(ddir 1
rank 0 world=8
lane @s gpu-stream "stream 7" native=7 rank=0 device=0
layer #a2a "c10d::alltoall_base_"
layer #rpc "record_param_comms" parent=#a2a
layer #op "nccl:all_to_all" parent=#rpc
layer #send "nccl:send"
layer #aten "aten::scatter_reduce"
task %n1 collective @s "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t" start=0 dur=5 layer=#op
task %n2 collective @s "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t" start=5 dur=5 layer=#rpc
task %n3 collective @s "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t" start=10 dur=5 layer=#send
task %n4 collective @s "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t" start=15 dur=5 layer=#aten
task %n5 collective @s "ncclKernel_AllReduce_RING_LL_Sum_float" start=20 dur=5 layer=#op
)");
  std::vector<CollectiveInfo> Cs = findCollectiveKernels(G, 8);
  ASSERT_EQ(Cs.size(), 5u);
  EXPECT_EQ(Cs[0].Kind, CollectiveKind::AllToAll);
  EXPECT_EQ(Cs[1].Kind, CollectiveKind::AllToAll);
  EXPECT_EQ(Cs[2].Kind, CollectiveKind::SendRecv);
  EXPECT_EQ(Cs[3].Kind, CollectiveKind::SendRecv);
  EXPECT_EQ(Cs[4].Kind, CollectiveKind::AllReduce);

  // A barrier noted send_recv, with its kernel's layer, likewise.
  Graph J = parse(R"(ddir 1
lane @w comm-channel "collectives world"
layer #op "nccl:all_to_all"
task %b collective @w "send_recv" start=0 dur=5 layer=#op
note %b "collective" "send_recv"
note %b "ranks" "8"
)");
  ASSERT_EQ(findCollectives(J).size(), 1u);
  EXPECT_EQ(findCollectives(J)[0].Kind, CollectiveKind::AllToAll);
}

TEST(CollectivesTest, ClassifiesNcclNames) {
  auto Is = [](llvm::StringRef Name, CollectiveKind K, Algorithm A) {
    KernelCollective C = classifyCollectiveName(Name);
    EXPECT_EQ(C.Kind, K) << Name.str();
    EXPECT_EQ(C.Alg, A) << Name.str();
  };
  Is("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, "
     "ncclWork*)",
     CollectiveKind::AllReduce, Algorithm::Ring);
  Is("ncclDevKernel_AllReduce_Sum_f32_TREE_LL", CollectiveKind::AllReduce,
     Algorithm::Tree);
  Is("ncclDevKernel_ReduceScatter_Sum_bf16_RING_SIMPLE",
     CollectiveKind::ReduceScatter, Algorithm::Ring);
  Is("ncclDevKernel_AllGather_RING_LL", CollectiveKind::AllGather,
     Algorithm::Ring);
  Is("ncclKernel_Reduce_RING_LL_Sum_float", CollectiveKind::Reduce,
     Algorithm::Ring);
  Is("ncclDevKernel_SendRecv", CollectiveKind::SendRecv, Algorithm::Default);
  Is("nccl:all_to_all", CollectiveKind::AllToAll, Algorithm::Default);
  Is("nccl:all_reduce", CollectiveKind::AllReduce, Algorithm::Default);
  Is("ncclDevKernel_AllReduce_Sum_f16_NVLS_SIMPLE", CollectiveKind::AllReduce,
     Algorithm::Default);
  Is("ncclDevKernel_Generic", CollectiveKind::Other, Algorithm::Default);
}

TEST(CollectivesTest, GpusPerNodeFromHosts) {
  Graph G = parse(R"(ddir 1
rank 0 world=4 host="a"
rank 1 world=4 host="a"
rank 2 world=4 host="b"
rank 3 world=4 host="b"
)");
  EXPECT_EQ(recordedGpusPerNode(G), 2);
  // One host says nothing about its size; a missing rank nothing at all.
  Graph OneHost = parse("ddir 1\nrank 0 world=2 host=\"a\"\nrank 1 world=2 "
                        "host=\"a\"\n");
  EXPECT_EQ(recordedGpusPerNode(OneHost), 0);
  Graph Partial = parse("ddir 1\nrank 0 world=4 host=\"a\"\nrank 2 world=4 "
                        "host=\"b\"\n");
  EXPECT_EQ(recordedGpusPerNode(Partial), 0);
}

TEST(CollectivesTest, ParsesGroupMembers) {
  auto M = parseGroupMembers("0,2,4,6");
  ASSERT_TRUE(M.hasValue());
  EXPECT_EQ(M->Ranks, (std::vector<int32_t>{0, 2, 4, 6}));
  EXPECT_EQ(M->Stride, 2);
  M = parseGroupMembers("[3, 1, 2]"); // Kineto's spelling, any order
  ASSERT_TRUE(M.hasValue());
  EXPECT_EQ(M->Ranks, (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(M->Stride, 1);
  M = parseGroupMembers("0,1,4");
  ASSERT_TRUE(M.hasValue());
  EXPECT_EQ(M->Stride, 0); // uneven
  for (const char *Bad : {"", "[0, 1", "0,,1", "0,-1", "a", "1,1"})
    EXPECT_FALSE(parseGroupMembers(Bad).hasValue()) << Bad;
}

/// A data-parallel group [0,2] across tensor-parallel ones: its members
/// in the barrier's note; a second barrier has only its lane's name.
const char *Strided = R"ddir(ddir 1
rank 0 world=4
rank 1 world=4
rank 2 world=4
rank 3 world=4
lane @s0 gpu-stream "stream 7" native=7 rank=0 device=0
lane @s2 gpu-stream "stream 7" native=7 rank=2 device=0
lane @dp comm-channel "collectives pg 3 [0,2]"
task %a0 marker @s0 "arrive all_reduce" start=100 dur=0
task %a2 marker @s2 "arrive all_reduce" start=100 dur=0
task %b collective @dp "all_reduce" start=100 dur=50
task %c collective @dp "all_reduce" start=200 dur=50
edge %a0 -> %b comm
edge %a2 -> %b comm
note %b "collective" "all_reduce"
note %b "ranks" "2"
note %b "group-ranks" "0,2"
note %c "collective" "all_reduce"
note %c "ranks" "2"
)ddir";

TEST(CollectivesTest, GroupMembersPlaceTheGroup) {
  Graph G = parse(Strided);
  std::vector<CollectiveInfo> Cs = findCollectives(G);
  ASSERT_EQ(Cs.size(), 2u);
  for (const CollectiveInfo &C : Cs) {
    ASSERT_TRUE(C.Group);
    EXPECT_EQ(C.Group->Ranks, (std::vector<int32_t>{0, 2}));
    EXPECT_EQ(C.Group->Stride, 2);
  }
  // On nodes of 2, ranks 0 and 2 are on two nodes; packed, on one.
  Placement P = groupPlacement(Cs[0], 2, 2);
  EXPECT_EQ(P.Nodes, 2);
  EXPECT_DOUBLE_EQ(P.PerNode, 1);
  // Four ranks keep the spacing: 0, 2, 4, 6 on four nodes.
  P = groupPlacement(Cs[0], 4, 2);
  EXPECT_EQ(P.Ranks, 4);
  EXPECT_EQ(P.Nodes, 4);
  // Without members: consecutive.
  CollectiveInfo Unknown;
  P = groupPlacement(Unknown, 4, 2);
  EXPECT_EQ(P.Nodes, 2);
  EXPECT_DOUBLE_EQ(P.PerNode, 2);
  // Re-timed from 2 to 4 ranks on nodes of 2 (network 10 GB/s, 10 us;
  // node 100 GB/s, 1 us): strided, 2 -> 6 steps across and 1 -> 1.5 x B
  // over the network: (60 + 150) / (20 + 100) us of 1e6 B, where packed
  // the 2 ranks of one node would have taken 2 + 10 us.
  Topology T;
  T.GpusPerNode = 2;
  T.Intra = Link{100, 1};
  T.Inter = Link{10, 10};
  EXPECT_DOUBLE_EQ(retimeNs(120000, CollectiveKind::AllReduce, Algorithm::Ring,
                            1000000, groupPlacement(Cs[0], 2, 2), T,
                            groupPlacement(Cs[0], 4, 2), T),
                   210000);
}

TEST(CollectivesTest, KernelGroupMembersGiveTheirSize) {
  // A single rank's kernel of the group [1, 3] (2024+ trace): 2 ranks,
  // not the world's 4.
  Graph G = parse(R"ddir(ddir 1
rank 1 world=4
lane @s gpu-stream "stream 7" native=7 rank=1 device=0
task %k collective @s "ncclDevKernel_AllReduce_Sum_f32_RING_LL" start=0 dur=50
note %k "group-ranks" "[1, 3]"
)ddir");
  std::vector<CollectiveInfo> Ks = findCollectiveKernels(G, 4);
  ASSERT_EQ(Ks.size(), 1u);
  EXPECT_EQ(Ks[0].Ranks, 2);
  ASSERT_TRUE(Ks[0].Group);
  EXPECT_EQ(Ks[0].Group->Stride, 2);
}

TEST(CollectivesTest, RetimeKeepsTheRecordedTimeWhereNothingChanges) {
  Topology T = singleNode(8, Link{20, 5});
  // The model says 60000 ns; the recorded 61234 stays, bit for bit.
  EXPECT_EQ(retimeNs(61234, CollectiveKind::AllReduce, Algorithm::Ring, 1000000,
                     2, T, 2, T),
            61234);
  // Four ranks: (6 x 5000 + 1.5e6 / 20) / 60000 = 105000 / 60000.
  EXPECT_DOUBLE_EQ(retimeNs(60000, CollectiveKind::AllReduce, Algorithm::Ring,
                            1000000, 2, T, 4, T),
                   105000);
  EXPECT_DOUBLE_EQ(retimeNs(61234, CollectiveKind::AllReduce, Algorithm::Ring,
                            1000000, 2, T, 4, T),
                   61234 * (105000.0 / 60000));
}

TEST(CollectivesTest, RetimeWithoutBytes) {
  Topology T = singleNode(8, Link{20, 5});
  // 60 us on two ranks is 1 MB at 20 GB/s after 10 us of latency; on four
  // ranks that is 105 us.
  EXPECT_NEAR(retimeNs(60000, CollectiveKind::AllReduce, Algorithm::Ring, 0, 2,
                       T, 4, T),
              105000, 1e-6);
  // Shorter than the latency: all latency, which grows from 2 to 6 steps.
  EXPECT_NEAR(
      retimeNs(5000, CollectiveKind::AllReduce, Algorithm::Ring, 0, 2, T, 4, T),
      15000, 1e-9);
  // From one rank there is nothing to scale: the model's time.
  EXPECT_DOUBLE_EQ(retimeNs(777, CollectiveKind::AllReduce, Algorithm::Ring,
                            1000000, 1, T, 2, T),
                   60000);
}

} // namespace
