//===- SimulatorTest.cpp - Exact timings from the simulator ---------------===//
//
// Small graphs built in code whose start and end times are worked out by hand
// in the comments, one replay rule per test.
// SimulatorRandomTest.cpp holds the engines to each other on random DAGs.
//
//===----------------------------------------------------------------------===//

#include "daydream/Sim/Simulator.h"
#include "../IR/GraphBuilder.h"
#include "SimTestUtil.h"
#include "daydream/Sim/SchedulingPolicy.h"

#include "llvm/Support/Error.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <random>
#include <tuple>

using namespace dd;
using namespace dd::test;

namespace {

// A CPU thread launches two kernels and then blocks in a synchronize call
// until both are done; the block counts as CPU busy time.
TEST(SimulatorTest, LaunchThenSync) {
  Graph G;
  LaneId Cpu = addLane(G, "cpu", LaneKind::CpuThread);
  LaneId Gpu = addLane(G, "stream7", LaneKind::GpuStream);
  TaskId L1 = addTask(G, Cpu, "launch1", 0, 5);
  TaskId L2 = addTask(G, Cpu, "launch2", 5, 5);
  TaskId Sync = addTask(G, Cpu, "cudaDeviceSynchronize", 10, 2);
  TaskId K1 = addTask(G, Gpu, "k1", 6, 20);
  TaskId K2 = addTask(G, Gpu, "k2", 26, 30);
  G.addEdge(L1, K1, EdgeKind::Launch);
  G.addEdge(L2, K2, EdgeKind::Launch);
  G.addEdge(K1, Sync, EdgeKind::Sync);
  G.addEdge(K2, Sync, EdgeKind::Sync);

  SimResult R = sim(G);
  EXPECT_EQ(R.OriginNs, 0);
  EXPECT_TIMES(R, L1, 0, 5);
  EXPECT_TIMES(R, L2, 5, 10);
  EXPECT_TIMES(R, K1, 5, 25);    // After its launch.
  EXPECT_TIMES(R, K2, 25, 55);   // After k1 on the stream, not its launch.
  EXPECT_TIMES(R, Sync, 10, 55); // Starts at 10, returns with the last kernel.
  EXPECT_EQ(R.MakespanNs, 55);
  ASSERT_EQ(R.Lanes.size(), 2u);
  EXPECT_EQ(R.Lanes[Cpu].BusyNs, 5 + 5 + 45);
  EXPECT_EQ(R.Lanes[Cpu].NumTasks, 3u);
  EXPECT_EQ(R.Lanes[Gpu].BusyNs, 20 + 30);
  EXPECT_EQ(R.Lanes[Gpu].NumTasks, 2u);
}

// Gaps are added after the lane predecessor (after T0 for the first task),
// but do not delay a task past a later edge predecessor.
TEST(SimulatorTest, GapsFollowTheLanePredecessor) {
  Graph G;
  LaneId Cpu = addLane(G, "cpu", LaneKind::CpuThread);
  LaneId Other = addLane(G, "cpu2", LaneKind::CpuThread);
  TaskId A = addTask(G, Cpu, "a", 100, 10, TaskKind::CpuOp, 5);
  TaskId B = addTask(G, Cpu, "b", 118, 4, TaskKind::CpuOp, 3);
  TaskId C = addTask(G, Cpu, "c", 124, 1, TaskKind::CpuOp, 2);
  TaskId X = addTask(G, Other, "x", 101, 40);
  TaskId D = addTask(G, Cpu, "d", 200, 1, TaskKind::CpuOp, 2);
  G.addEdge(X, D, EdgeKind::Data);

  SimResult R = sim(G);
  EXPECT_EQ(R.OriginNs, 100);
  EXPECT_TIMES(R, A, 105, 115); // T0 + gap.
  EXPECT_TIMES(R, B, 118, 122);
  EXPECT_TIMES(R, C, 124, 125);
  EXPECT_TIMES(R, X, 100, 140);
  EXPECT_TIMES(R, D, 140, 141); // max(125 + 2, 140).
  EXPECT_EQ(R.MakespanNs, 41);
}

// Two streams overlap; a cross-stream edge (an event wait) delays only the
// stream that waits.
TEST(SimulatorTest, StreamsOverlapUntilCrossStreamEdge) {
  Graph G;
  LaneId Cpu = addLane(G, "cpu", LaneKind::CpuThread);
  LaneId S1 = addLane(G, "s1", LaneKind::GpuStream);
  LaneId S2 = addLane(G, "s2", LaneKind::GpuStream);
  TaskId L1 = addTask(G, Cpu, "launch1", 0, 2);
  TaskId L2 = addTask(G, Cpu, "launch2", 2, 2);
  TaskId L3 = addTask(G, Cpu, "launch3", 4, 2);
  TaskId K1 = addTask(G, S1, "k1", 2, 10);
  TaskId K2 = addTask(G, S2, "k2", 4, 5);
  TaskId K3 = addTask(G, S2, "k3", 12, 3);
  G.addEdge(L1, K1, EdgeKind::Launch);
  G.addEdge(L2, K2, EdgeKind::Launch);
  G.addEdge(L3, K3, EdgeKind::Launch);
  G.addEdge(K1, K3, EdgeKind::CrossStream);

  SimResult R = sim(G);
  EXPECT_TIMES(R, K1, 2, 12);
  EXPECT_TIMES(R, K2, 4, 9);   // Overlaps k1.
  EXPECT_TIMES(R, K3, 12, 15); // Waits for k1, not just for k2 and launch3.
  EXPECT_EQ(R.MakespanNs, 15);
}

// A removed task and its edges are ignored; its lane successor follows the
// task before it.
TEST(SimulatorTest, RemovedTaskIsIgnored) {
  Graph G;
  LaneId Cpu = addLane(G, "cpu", LaneKind::CpuThread);
  LaneId Gpu = addLane(G, "gpu", LaneKind::GpuStream);
  TaskId A = addTask(G, Cpu, "a", 0, 10);
  TaskId B = addTask(G, Cpu, "b", 10, 100);
  TaskId C = addTask(G, Cpu, "c", 110, 5, TaskKind::CpuOp, 1);
  TaskId K = addTask(G, Gpu, "k", 0, 3);
  G.addEdge(B, K, EdgeKind::Launch);
  G.addEdge(B, C, EdgeKind::ProgramOrder);
  G.removeTask(B);

  for (bool Force : {false, true}) {
    SimOptions Opts;
    Opts.ForceEventDriven = Force;
    SimResult R = sim(G, Opts);
    EXPECT_TIMES(R, A, 0, 10);
    EXPECT_TIMES(R, B, -1, -1);
    EXPECT_TIMES(R, C, 11, 16);
    EXPECT_TIMES(R, K, 0, 3);
    EXPECT_EQ(R.Lanes[Cpu].NumTasks, 2u);
    EXPECT_EQ(R.Lanes[Cpu].BusyNs, 15);
    EXPECT_EQ(R.MakespanNs, 16);
  }
}

// Iterations take their members by recorded time and their predicted start
// from their first CPU task; results come back in the graph's order.
TEST(SimulatorTest, IterationPrediction) {
  Graph G;
  LaneId Cpu = addLane(G, "cpu", LaneKind::CpuThread);
  LaneId Gpu = addLane(G, "gpu", LaneKind::GpuStream);
  TaskId F0 = addTask(G, Cpu, "fwd0", 0, 30);
  TaskId S0 = addTask(G, Cpu, "sync0", 30, 1);
  TaskId F1 = addTask(G, Cpu, "fwd1", 100, 20);
  TaskId S1 = addTask(G, Cpu, "sync1", 120, 1);
  TaskId K0 = addTask(G, Gpu, "k0", 10, 50);
  TaskId K1 = addTask(G, Gpu, "k1", 110, 40);
  G.addEdge(F0, K0, EdgeKind::Launch);
  G.addEdge(K0, S0, EdgeKind::Sync);
  G.addEdge(F1, K1, EdgeKind::Launch);
  G.addEdge(K1, S1, EdgeKind::Sync);
  G.iterationsMut() = {{100, 90, G.intern("iter1")},
                       {0, 100, G.intern("iter0")},
                       {1000, -1, G.intern("idle")}};

  SimResult R = sim(G);
  EXPECT_TIMES(R, F0, 0, 30);
  EXPECT_TIMES(R, K0, 30, 80);
  EXPECT_TIMES(R, S0, 30, 80);
  EXPECT_TIMES(R, F1, 80, 100);
  EXPECT_TIMES(R, K1, 100, 140);
  EXPECT_TIMES(R, S1, 100, 140);

  ASSERT_EQ(R.Iterations.size(), 3u);
  EXPECT_EQ(R.Iterations[0].Name, "iter1");
  EXPECT_EQ(R.Iterations[0].MeasuredNs, 90);
  EXPECT_EQ(R.Iterations[0].PredictedStartNs, 80);
  EXPECT_EQ(R.Iterations[0].PredictedNs, 60); // Last: to its last end, 140.
  EXPECT_EQ(R.Iterations[1].Name, "iter0");
  EXPECT_EQ(R.Iterations[1].MeasuredNs, 100);
  EXPECT_EQ(R.Iterations[1].PredictedStartNs, 0);
  EXPECT_EQ(R.Iterations[1].PredictedNs, 80); // To iter1's start.
  EXPECT_EQ(R.Iterations[2].Name, "idle");
  EXPECT_EQ(R.Iterations[2].MeasuredNs, -1);
  EXPECT_EQ(R.Iterations[2].PredictedNs, -1); // No members.
  EXPECT_EQ(R.Iterations[2].PredictedStartNs, -1);
}

// Tasks before the first iteration belong to none; an iteration with only
// GPU members starts at its first GPU task.
TEST(SimulatorTest, IterationEdgeCases) {
  Graph G;
  LaneId Cpu = addLane(G, "cpu", LaneKind::CpuThread);
  LaneId Gpu = addLane(G, "gpu", LaneKind::GpuStream);
  TaskId Setup = addTask(G, Cpu, "setup", 0, 10);
  TaskId K = addTask(G, Gpu, "k", 60, 7, TaskKind::CpuOp, 20);
  G.addEdge(Setup, K, EdgeKind::Launch);
  G.iterationsMut() = {{50, -1, G.intern("gpu-only")}};

  SimResult R = sim(G);
  EXPECT_TIMES(R, K, 20, 27); // max(T0 + 20, 10).
  ASSERT_EQ(R.Iterations.size(), 1u);
  EXPECT_EQ(R.Iterations[0].PredictedStartNs, 20);
  EXPECT_EQ(R.Iterations[0].PredictedNs, 7);
}

// A GPU stream whose order is left to the policy. The CPU launches a (long),
// b and c (short) 2 ns apart; a runs alone, and when it ends at 12 both b and
// c wait. Recorded order runs b then c; shortest-first runs c then b.
// c's 1 ns gap counts from when the lane fell free.
class PriorityLaneTest : public ::testing::Test {
protected:
  void SetUp() override {
    LaneId Cpu = addLane(G, "cpu", LaneKind::CpuThread);
    Gpu = addLane(G, "gpu", LaneKind::GpuStream, LaneOrder::ByPriority);
    TaskId L1 = addTask(G, Cpu, "l1", 0, 2);
    TaskId L2 = addTask(G, Cpu, "l2", 2, 2);
    TaskId L3 = addTask(G, Cpu, "l3", 4, 2);
    // List order on the lane is deliberately not the run order.
    C = addTask(G, Gpu, "c", 7, 1, TaskKind::CpuOp, 1);
    B = addTask(G, Gpu, "b", 5, 5);
    A = addTask(G, Gpu, "a", 3, 10);
    G.addEdge(L1, A, EdgeKind::Launch);
    G.addEdge(L2, B, EdgeKind::Launch);
    G.addEdge(L3, C, EdgeKind::Launch);
  }
  Graph G;
  LaneId Gpu;
  TaskId A, B, C;
};

TEST_F(PriorityLaneTest, RecordedOrder) {
  SimResult R = sim(G); // The default policy.
  EXPECT_TIMES(R, A, 2, 12);
  EXPECT_TIMES(R, B, 12, 17);
  EXPECT_TIMES(R, C, 18, 19);
  EXPECT_EQ(R.Lanes[Gpu].BusyNs, 16);
  EXPECT_EQ(R.MakespanNs, 19);
}

TEST_F(PriorityLaneTest, ShortestFirst) {
  std::unique_ptr<SchedulingPolicy> P = createShortestFirstPolicy();
  SimOptions Opts;
  Opts.Policy = P.get();
  SimResult R = sim(G, Opts);
  EXPECT_TIMES(R, A, 2, 12);
  EXPECT_TIMES(R, C, 13, 14);
  EXPECT_TIMES(R, B, 14, 19);
  EXPECT_EQ(R.MakespanNs, 19);
}

// At one instant, every task that ends is seen before an idle lane picks.
// At 5, x ends (freeing the lane while only z is ready) and so does l, whose
// zero-length successor m then ends at 5 too and readies y. The lane must
// choose between y (recorded 1) and z (recorded 2) only after m's end,
// although the pick was requested first. w, on a second ByPriority lane,
// only delays l's start event until after x's, so the ends come in that order.
TEST(SimulatorTest, PriorityPickSeesAllSimultaneousEnds) {
  Graph G;
  LaneId Gpu = addLane(G, "gpu", LaneKind::GpuStream, LaneOrder::ByPriority);
  LaneId Q = addLane(G, "q", LaneKind::CommChannel, LaneOrder::ByPriority);
  LaneId Cpu = addLane(G, "cpu", LaneKind::CpuThread);
  TaskId X = addTask(G, Gpu, "x", 0, 5);
  TaskId Z = addTask(G, Gpu, "z", 2, 3);
  TaskId Y = addTask(G, Gpu, "y", 1, 1);
  TaskId W = addTask(G, Q, "w", 0, 0);
  TaskId L = addTask(G, Cpu, "l", 0, 5);
  TaskId M = addTask(G, Cpu, "m", 5, 0);
  G.addEdge(W, L, EdgeKind::Data);
  G.addEdge(M, Y, EdgeKind::Launch);

  SimResult R = sim(G);
  EXPECT_TIMES(R, X, 0, 5);
  EXPECT_TIMES(R, W, 0, 0);
  EXPECT_TIMES(R, L, 0, 5);
  EXPECT_TIMES(R, M, 5, 5);
  EXPECT_TIMES(R, Y, 5, 6);
  EXPECT_TIMES(R, Z, 6, 9);
}

// On a ByPriority lane list order is no constraint, so an edge against it is
// not a cycle.
TEST(SimulatorTest, PriorityLaneIgnoresListOrder) {
  Graph G;
  LaneId Gpu = addLane(G, "gpu", LaneKind::GpuStream, LaneOrder::ByPriority);
  TaskId A = addTask(G, Gpu, "a", 0, 4);
  TaskId B = addTask(G, Gpu, "b", 1, 3);
  G.addEdge(B, A, EdgeKind::Data);
  SimResult R = sim(G);
  EXPECT_TIMES(R, B, 0, 3);
  EXPECT_TIMES(R, A, 3, 7);
}

TEST(SimulatorTest, EmptyGraph) {
  Graph G;
  SimResult R = sim(G);
  EXPECT_EQ(R.OriginNs, 0);
  EXPECT_EQ(R.MakespanNs, 0);
  EXPECT_TRUE(R.Start.empty());
  EXPECT_TRUE(R.Lanes.empty());

  addLane(G, "cpu", LaneKind::CpuThread);
  G.iterationsMut() = {{0, 5, G.intern("i")}};
  for (bool Force : {false, true}) {
    SimOptions Opts;
    Opts.ForceEventDriven = Force;
    R = sim(G, Opts);
    EXPECT_EQ(R.MakespanNs, 0);
    ASSERT_EQ(R.Lanes.size(), 1u);
    EXPECT_EQ(R.Lanes[0].NumTasks, 0u);
    ASSERT_EQ(R.Iterations.size(), 1u);
    EXPECT_EQ(R.Iterations[0].PredictedNs, -1);
  }
}

TEST(SimulatorTest, CycleIsAnError) {
  Graph G;
  LaneId Cpu = addLane(G, "cpu", LaneKind::CpuThread);
  LaneId Gpu = addLane(G, "gpu", LaneKind::GpuStream);
  TaskId A = addTask(G, Cpu, "a", 0, 1);
  TaskId B = addTask(G, Gpu, "b", 1, 1);
  G.addEdge(A, B, EdgeKind::Launch);
  G.addEdge(B, A, EdgeKind::Data);
  EXPECT_NE(simError(G).find("cycle"), std::string::npos) << simError(G);
  SimOptions Opts;
  Opts.ForceEventDriven = true;
  EXPECT_NE(simError(G, Opts).find("cycle"), std::string::npos);

  // Through a Sync edge and a ByPriority lane as well.
  Graph H;
  LaneId P = addLane(H, "p", LaneKind::GpuStream, LaneOrder::ByPriority);
  TaskId C = addTask(H, P, "c", 0, 1);
  TaskId D = addTask(H, P, "d", 1, 1);
  H.addEdge(C, D, EdgeKind::Data);
  H.addEdge(D, C, EdgeKind::Sync);
  EXPECT_NE(simError(H).find("cycle"), std::string::npos) << simError(H);
}

// A task that waits through a Sync edge holds its lane meanwhile; on a
// ByPriority lane the task it waits for may then never get the lane.
TEST(SimulatorTest, HeldPriorityLaneIsAnError) {
  Graph G;
  LaneId Gpu = addLane(G, "gpu", LaneKind::GpuStream, LaneOrder::ByPriority);
  // Listed in dependency order, but recorded order picks the waiter first.
  TaskId Work = addTask(G, Gpu, "work", 1, 1);
  TaskId Waiter = addTask(G, Gpu, "waiter", 0, 1);
  G.addEdge(Work, Waiter, EdgeKind::Sync);
  EXPECT_EQ(simError(G),
            "simulation deadlocked: %1 'waiter' holds lane 'gpu' while it "
            "waits through a Sync edge for %0 'work', which never ends");
  // Shortest-first breaks the tie by id: work runs first and all is well.
  std::unique_ptr<SchedulingPolicy> P = createShortestFirstPolicy();
  SimOptions Opts;
  Opts.Policy = P.get();
  SimResult R = sim(G, Opts);
  EXPECT_TIMES(R, Work, 0, 1);
  EXPECT_TIMES(R, Waiter, 1, 2);
}

TEST(SimulatorTest, BadOrderIsAnError) {
  Graph G;
  LaneId Cpu = addLane(G, "cpu", LaneKind::CpuThread);
  TaskId A = addTask(G, Cpu, "a", 0, 1);
  TaskId B = addTask(G, Cpu, "b", 1, 1);
  std::vector<TaskId> Backwards = {B, A};
  SimOptions Opts;
  Opts.Order = &Backwards;
  EXPECT_NE(simError(G, Opts).find("before its predecessor %0 'a'"),
            std::string::npos)
      << simError(G, Opts);
  std::vector<TaskId> Short = {A};
  Opts.Order = &Short;
  EXPECT_NE(simError(G, Opts).find("lists 1 tasks"), std::string::npos);
}

TEST(SimulatorTest, PolicyRegistry) {
  ASSERT_EQ(builtinPolicyNames().size(), 2u);
  for (llvm::StringRef Name : builtinPolicyNames()) {
    auto P = createSchedulingPolicy(Name);
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    EXPECT_EQ((*P)->name(), Name);
  }
  auto Bad = createSchedulingPolicy("fifo");
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(llvm::toString(Bad.takeError()),
            "unknown scheduling policy 'fifo'; valid policies are: "
            "recorded-order, shortest-first");
}

} // namespace
