//===- PrimitivesTest.cpp - scale, set and remove primitives --------------===//

#include "daydream/Transforms/Primitives.h"
#include "../IR/GraphBuilder.h"
#include "daydream/IR/GraphBuilder.h"
#include "daydream/IR/Verifier.h"

#include "gtest/gtest.h"

#include <set>
#include <tuple>

using namespace dd;
using namespace dd::test;

namespace {

using EdgeSet = std::set<std::tuple<TaskId, TaskId, EdgeKind>>;

EdgeSet liveEdges(const Graph &G) {
  EdgeSet S;
  for (const Edge &E : G.edgeSlots())
    if (G.isLive(E))
      S.insert({E.Src, E.Dst, E.Kind});
  return S;
}

/// A task on lane \p L at \p Start lasting 1 ns, to append in bulk
/// (GraphBuilder::appendTasks(), as a file is read: links pending).
Task taskAt(Graph &G, LaneId L, int64_t Start) {
  Task T;
  T.Name = G.intern("t");
  T.Lane = L;
  T.StartNs = Start;
  T.DurationNs = 1;
  return T;
}

TEST(PrimitivesTest, ScaleRoundsAndClamps) {
  Graph G;
  LaneId A = addLane(G, "a");
  TaskId T0 = addTask(G, A, "x", 0, 3);
  TaskId T1 = addTask(G, A, "y", 0, 10);
  scaleDurations(G, {T0, T1}, 0.5);
  EXPECT_EQ(G.task(T0).DurationNs, 2); // 1.5 rounds half away from zero
  EXPECT_EQ(G.task(T1).DurationNs, 5);
  setDurations(G, {T1}, 42);
  EXPECT_EQ(G.task(T1).DurationNs, 42);
}

TEST(PrimitivesTest, RemoveChainKeepsEndToEndConstraint) {
  Graph G;
  LaneId A = addLane(G, "a"), B = addLane(G, "b"), C = addLane(G, "c"),
         D = addLane(G, "d");
  TaskId X = addTask(G, A, "x", 0, 1);
  TaskId R1 = addTask(G, B, "r1", 0, 1);
  TaskId R2 = addTask(G, C, "r2", 0, 1);
  TaskId Y = addTask(G, D, "y", 0, 1);
  G.addEdge(X, R1, EdgeKind::Data);
  G.addEdge(R1, R2, EdgeKind::Comm);
  G.addEdge(R2, Y, EdgeKind::CrossStream);
  removeTasks(G, {R2, R1});
  EXPECT_EQ(liveEdges(G), (EdgeSet{{X, Y, EdgeKind::CrossStream}}));
  EXPECT_FALSE(bool(verifyGraph(G)));
}

TEST(PrimitivesTest, RemoveKeepsLaneOrderAsEdges) {
  // Lane b: p, r, s.  q (lane a) launches r.  Removing r must keep q before
  // s (s followed r on its lane) and p before whatever r preceded.
  Graph G;
  LaneId A = addLane(G, "a"), B = addLane(G, "b"), C = addLane(G, "c");
  TaskId Q = addTask(G, A, "q", 0, 1);
  TaskId P = addTask(G, B, "p", 0, 1);
  TaskId R = addTask(G, B, "r", 0, 1, TaskKind::CpuOp, /*Gap=*/7);
  TaskId S = addTask(G, B, "s", 0, 1, TaskKind::CpuOp, /*Gap=*/2);
  TaskId Z = addTask(G, C, "z", 0, 1);
  G.addEdge(Q, R, EdgeKind::Launch);
  G.addEdge(R, Z, EdgeKind::Sync);
  removeTasks(G, {R});
  EXPECT_EQ(liveEdges(G), (EdgeSet{{Q, S, EdgeKind::Launch},
                                   {Q, Z, EdgeKind::Sync},
                                   {P, Z, EdgeKind::Sync}}));
  EXPECT_EQ(G.nextOnLane(P), S);
  EXPECT_EQ(G.task(S).GapNs, 9); // r's untraced gap still elapses
  EXPECT_FALSE(bool(verifyGraph(G)));
}

TEST(PrimitivesTest, RemoveWholeLaneRun) {
  Graph G;
  LaneId A = addLane(G, "a"), B = addLane(G, "b");
  TaskId U = addTask(G, A, "u", 0, 1);
  TaskId R1 = addTask(G, B, "r1", 0, 1);
  TaskId R2 = addTask(G, B, "r2", 0, 1);
  TaskId V = addTask(G, A, "v", 0, 1);
  G.addEdge(U, R1, EdgeKind::Launch);
  G.addEdge(R2, V, EdgeKind::Sync);
  removeTasks(G, {R1, R2});
  // u -> r1 -lane-> r2 -> v collapses to u -> v (already lane order, but the
  // kind of the edge into v is kept).
  EXPECT_EQ(liveEdges(G), (EdgeSet{{U, V, EdgeKind::Sync}}));
  EXPECT_EQ(G.laneHead(B), NoId);
}

// Lane c: h, m1, m2, a; h launches k2 and m1 launches k1; x waits on the
// stream's k0 and m2 waits on x; m2 holds up y. Collapsed into h: h launches
// both kernels, x now holds up a (the task after the run), y waits for h,
// and m1's edge to m2 goes with them. The same with the lane links built
// and pending (a graph as read from a file).
TEST(PrimitivesTest, CollapseRunsIntoHead) {
  for (bool Pending : {false, true}) {
    SCOPED_TRACE(Pending ? "links pending" : "links built");
    Graph G;
    LaneId C = addLane(G, "c"), K = addLane(G, "k", LaneKind::GpuStream),
           A = addLane(G, "a");
    std::vector<Task> Ts;
    auto Add = [&](LaneId L, int64_t Start) {
      Ts.push_back(taskAt(G, L, Start));
      return TaskId(Ts.size() - 1);
    };
    TaskId H = Add(C, 0), K1 = Add(K, 1), M1 = Add(C, 2), K2 = Add(K, 3),
           X = Add(A, 3), M2 = Add(C, 4), Y = Add(A, 5), After = Add(C, 6);
    if (Pending) {
      ASSERT_EQ(GraphBuilder(G).appendTasks(Ts), NoId);
      ASSERT_TRUE(G.lanesFollowSlotOrder());
    } else {
      for (const Task &T : Ts)
        G.addTask(T);
    }
    G.addEdge(H, K2, EdgeKind::Launch);
    G.addEdge(M1, K1, EdgeKind::Launch);
    G.addEdge(M1, M2, EdgeKind::Data);
    G.addEdge(X, M2, EdgeKind::Sync);
    G.addEdge(M2, Y, EdgeKind::Data);
    std::vector<TaskId> Run = {H, M1, M2};
    collapseRuns(G, {LaneRun{Run, 7}});
    EXPECT_EQ(liveEdges(G), (EdgeSet{{H, K2, EdgeKind::Launch},
                                     {H, K1, EdgeKind::Launch},
                                     {X, After, EdgeKind::Sync},
                                     {H, Y, EdgeKind::Data}}));
    EXPECT_EQ(G.task(H).DurationNs, 7);
    EXPECT_EQ(G.numTasks(), 6u);
    EXPECT_EQ(G.nextOnLane(H), After);
    EXPECT_EQ(G.prevOnLane(After), H);
    EXPECT_FALSE(bool(verifyGraph(G)));
  }
}

// A run that ends its lane leaves the head as the lane's last task.
TEST(PrimitivesTest, CollapseRunAtLaneEnd) {
  Graph G;
  LaneId C = addLane(G, "c");
  std::vector<Task> Ts = {taskAt(G, C, 0), taskAt(G, C, 1), taskAt(G, C, 2)};
  ASSERT_EQ(GraphBuilder(G).appendTasks(Ts), NoId);
  std::vector<TaskId> Run = {0, 1, 2};
  collapseRuns(G, {LaneRun{Run, 5}});
  EXPECT_TRUE(G.lanesFollowSlotOrder()); // no links were needed
  EXPECT_EQ(G.laneTail(C), 0u);
  EXPECT_EQ(G.nextOnLane(0), NoId);
  EXPECT_EQ(G.numTasks(), 1u);
}

TEST(PrimitivesTest, RemoveNothingIsNoop) {
  Graph G;
  LaneId A = addLane(G, "a");
  addTask(G, A, "u", 0, 1);
  removeTasks(G, {});
  EXPECT_EQ(G.numTasks(), 1u);
}

} // namespace

namespace {

TEST(PrimitivesTest, FindOrAddLaneReusesByName) {
  Graph G;
  addLane(G, "main", LaneKind::CpuThread);
  LaneId C = findOrAddLane(G, LaneKind::CommChannel, "nccl", 0);
  EXPECT_EQ(G.numLanes(), 2u);
  EXPECT_EQ(G.lane(C).Kind, LaneKind::CommChannel);
  EXPECT_EQ(G.lane(C).Device, 0);
  EXPECT_EQ(findOrAddLane(G, LaneKind::CommChannel, "nccl"), C);
  EXPECT_NE(findOrAddLane(G, LaneKind::CommChannel, "nccl 2"), C);
}

TEST(PrimitivesTest, InsertTaskWithEdgesAndMove) {
  Graph G;
  LaneId A = addLane(G, "a");
  LaneId B = addLane(G, "b", LaneKind::GpuStream);
  TaskId X = addTask(G, A, "x", 0, 1);
  TaskId Y = addTask(G, A, "y", 1, 1);
  TaskId K = addTask(G, B, "k", 0, 1, TaskKind::Kernel);
  Task New;
  New.Name = G.intern("n");
  New.Kind = TaskKind::Collective;
  TaskId N = insertTask(G, New, A, X, {K}, {Y}, EdgeKind::Sync);
  EXPECT_EQ(G.nextOnLane(X), N);
  EXPECT_EQ(G.nextOnLane(N), Y);
  EXPECT_EQ(liveEdges(G),
            EdgeSet({{K, N, EdgeKind::Sync}, {N, Y, EdgeKind::Sync}}));
  TaskId End = insertTask(G, New, B, NoId, {}, {});
  EXPECT_EQ(G.laneTail(B), End);
  moveTask(G, N, B, K);
  EXPECT_EQ(G.nextOnLane(X), Y);
  EXPECT_EQ(G.nextOnLane(K), N);
  EXPECT_EQ(G.nextOnLane(N), End);
  EXPECT_FALSE(bool(verifyGraph(G)));
}

TEST(PrimitivesTest, MergeTakesOverEdgesAndLaneOrder) {
  // CPU: l1 l2 l3 launch k1 k2 k3 on a stream; k3 feeds s on another lane.
  Graph G;
  LaneId Cpu = addLane(G, "cpu");
  LaneId Gpu = addLane(G, "gpu", LaneKind::GpuStream);
  LaneId Other = addLane(G, "other", LaneKind::GpuStream);
  TaskId L1 = addTask(G, Cpu, "l1", 0, 1, TaskKind::Runtime);
  TaskId L2 = addTask(G, Cpu, "l2", 1, 1, TaskKind::Runtime);
  TaskId K1 = addTask(G, Gpu, "k1", 2, 10, TaskKind::Kernel, 3);
  TaskId K2 = addTask(G, Gpu, "k2", 12, 10, TaskKind::Kernel, 4);
  TaskId K3 = addTask(G, Gpu, "k3", 22, 10, TaskKind::Kernel);
  TaskId S = addTask(G, Other, "s", 40, 1, TaskKind::Kernel);
  G.addEdge(L1, K1, EdgeKind::Launch);
  G.addEdge(L2, K2, EdgeKind::Launch);
  G.addEdge(K2, S, EdgeKind::Sync);
  mergeTasks(G, {MergeGroup{{K1, K2}, 15}});
  EXPECT_FALSE(G.isLive(K2));
  EXPECT_EQ(G.task(K1).DurationNs, 15);
  EXPECT_EQ(G.task(K1).GapNs, 3);
  EXPECT_EQ(G.nextOnLane(K1), K3);
  EXPECT_EQ(G.task(K3).GapNs, 0); // a merged member's gap is dropped
  EXPECT_EQ(liveEdges(G), EdgeSet({{L1, K1, EdgeKind::Launch},
                                   {L2, K1, EdgeKind::Launch},
                                   {K1, S, EdgeKind::Sync}}));
  EXPECT_FALSE(bool(verifyGraph(G)));
}

TEST(PrimitivesTest, MergeAcrossLanesKeepsTheOtherLanesOrder) {
  Graph G;
  LaneId A = addLane(G, "a", LaneKind::GpuStream);
  LaneId B = addLane(G, "b", LaneKind::GpuStream);
  TaskId A1 = addTask(G, A, "a1", 0, 1, TaskKind::Kernel);
  TaskId B0 = addTask(G, B, "b0", 0, 1, TaskKind::Kernel);
  TaskId B1 = addTask(G, B, "b1", 1, 1, TaskKind::Kernel);
  TaskId B2 = addTask(G, B, "b2", 2, 1, TaskKind::Kernel);
  mergeTasks(G, {MergeGroup{{A1, B1}, 5}});
  EXPECT_EQ(liveEdges(G), EdgeSet({{B0, A1, EdgeKind::ProgramOrder},
                                   {A1, B2, EdgeKind::ProgramOrder}}));
  EXPECT_EQ(G.nextOnLane(B0), B2);
}

} // namespace
