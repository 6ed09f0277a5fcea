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

// A gap counts from when its task became ready: after the lane predecessor
// (T0 for the first task) and after every start predecessor, whichever ends
// last. Hand-computed with T0 = 100 (a's recorded start):
//   a = T0 + 5 = 105, ends 115; b = 115 + 3 = 118, ends 122;
//   c = 122 + 2 = 124, ends 125; x = 100, ends 140; y = 140, ends 144.
//   d: lane free at 125, x ends at 140, so 140 + 2 = 142, ends 143. (The rule
//      before gaps counted from the lane's end gave max(125 + 2, 140) = 140.)
//   e: lane free at 143, y ends at 144, so 144 + 5 = 149, ends 150. y ends
//      inside the gap that would follow d; max(143 + 5, 144) = 148 was the
//      old answer, which let the gap overlap the wait for y.
//   f: its edge predecessor a ended long before its lane did: 150 + 1 = 151.
// Both engines must agree on it.
TEST(SimulatorTest, GapsCountFromWhenTheTaskIsReady) {
  Graph G;
  LaneId Cpu = addLane(G, "cpu", LaneKind::CpuThread);
  LaneId Other = addLane(G, "cpu2", LaneKind::CpuThread);
  TaskId A = addTask(G, Cpu, "a", 100, 10, TaskKind::CpuOp, 5);
  TaskId B = addTask(G, Cpu, "b", 118, 4, TaskKind::CpuOp, 3);
  TaskId C = addTask(G, Cpu, "c", 124, 1, TaskKind::CpuOp, 2);
  TaskId X = addTask(G, Other, "x", 101, 40);
  TaskId Y = addTask(G, Other, "y", 141, 4);
  TaskId D = addTask(G, Cpu, "d", 200, 1, TaskKind::CpuOp, 2);
  TaskId E = addTask(G, Cpu, "e", 210, 1, TaskKind::CpuOp, 5);
  TaskId F = addTask(G, Cpu, "f", 220, 1, TaskKind::CpuOp, 1);
  G.addEdge(X, D, EdgeKind::Data);
  G.addEdge(Y, E, EdgeKind::ProgramOrder);
  G.addEdge(A, F, EdgeKind::Data);

  for (bool Force : {false, true}) {
    SCOPED_TRACE(Force ? "event-driven" : "linear");
    SimOptions Opts;
    Opts.ForceEventDriven = Force;
    SimResult R = sim(G, Opts);
    EXPECT_EQ(R.OriginNs, 100);
    EXPECT_TIMES(R, A, 105, 115); // T0 + gap.
    EXPECT_TIMES(R, B, 118, 122);
    EXPECT_TIMES(R, C, 124, 125);
    EXPECT_TIMES(R, X, 100, 140);
    EXPECT_TIMES(R, Y, 140, 144);
    EXPECT_TIMES(R, D, 142, 143); // max(125, 140) + 2.
    EXPECT_TIMES(R, E, 149, 150); // max(143, 144) + 5.
    EXPECT_TIMES(R, F, 151, 152); // max(150, 115) + 1.
    EXPECT_EQ(R.MakespanNs, 52);
  }
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
  // k is ready when setup ends (10, after the lane's T0 = 0) and starts its
  // 20 ns gap after that: max(0, 10) + 20 = 30, ends 37. (Counting the gap
  // from the lane's T0 gave max(0 + 20, 10) = 20.)
  EXPECT_TIMES(R, K, 30, 37);
  ASSERT_EQ(R.Iterations.size(), 1u);
  EXPECT_EQ(R.Iterations[0].PredictedStartNs, 30);
  EXPECT_EQ(R.Iterations[0].PredictedNs, 7); // To its last end, 37.
}

// A GPU stream whose order is left to the policy. The CPU launches a (long),
// b and c (short) 2 ns apart; a runs alone, and when it ends at 12 both b and
// c wait. Recorded order runs b then c; shortest-first runs c then b.
// c's 1 ns gap counts from when the lane picks it: c has been ready since 6,
// so that is when the lane falls free (17, or 12 under shortest-first).
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

// On a ByPriority lane a gap counts from the pick, which for a task that
// becomes ready while the lane idles is when it became ready: a ends at 4 and
// the lane idles until b's launch ends at 10, so b starts at
// max(10, 10, 4) + 3 = 13 and ends 15. (Counting the gap from the lane's end
// gave max(10, 4 + 3) = 10.) The lane is held through the gap: c, ready at
// 11, waits for b's end and starts at max(15, 11, 15) + 0 = 15.
TEST(SimulatorTest, PriorityLaneGapCountsFromThePick) {
  Graph G;
  LaneId Gpu = addLane(G, "gpu", LaneKind::GpuStream, LaneOrder::ByPriority);
  LaneId Cpu = addLane(G, "cpu", LaneKind::CpuThread);
  TaskId A = addTask(G, Gpu, "a", 0, 4);
  TaskId B = addTask(G, Gpu, "b", 13, 2, TaskKind::Kernel, 3);
  TaskId C = addTask(G, Gpu, "c", 15, 1, TaskKind::Kernel);
  TaskId LB = addTask(G, Cpu, "launch-b", 0, 10);
  TaskId LC = addTask(G, Cpu, "launch-c", 10, 1);
  G.addEdge(LB, B, EdgeKind::Launch);
  G.addEdge(LC, C, EdgeKind::Launch);

  SimResult R = sim(G);
  EXPECT_TIMES(R, A, 0, 4);
  EXPECT_TIMES(R, LB, 0, 10);
  EXPECT_TIMES(R, LC, 10, 11);
  EXPECT_TIMES(R, B, 13, 15);
  EXPECT_TIMES(R, C, 15, 16);
  EXPECT_EQ(R.Lanes[Gpu].BusyNs, 4 + 2 + 1);
  EXPECT_EQ(R.MakespanNs, 16);
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

// The last iteration ends with its last CPU task: GPU work still running
// after the step's CPU side ended is not part of the recorded step, nor is
// CPU work after the step's recorded end.
TEST(SimulatorTest, LastIterationEndsWithItsCpuWork) {
  Graph G;
  LaneId Cpu = addLane(G, "cpu", LaneKind::CpuThread);
  LaneId Gpu = addLane(G, "gpu", LaneKind::GpuStream);
  TaskId L = addTask(G, Cpu, "launch", 0, 10);
  TaskId End = addTask(G, Cpu, "step end", 30, 0, TaskKind::Marker, 20);
  TaskId K = addTask(G, Gpu, "k", 10, 500, TaskKind::Kernel);
  G.addEdge(L, K, EdgeKind::Launch);
  // After the step: a synchronize at profiler shutdown, in no iteration.
  TaskId Stop = addTask(G, Cpu, "cudaDeviceSynchronize", 40, 1, TaskKind::Sync);
  G.addEdge(K, Stop, EdgeKind::Sync);
  G.iterationsMut().push_back(Iteration{0, 30, G.intern("step")});
  SimResult R = sim(G);
  EXPECT_TIMES(R, Stop, 30, 510);
  EXPECT_TIMES(R, End, 30, 30); // 10 + gap 20
  EXPECT_TIMES(R, K, 10, 510);
  ASSERT_EQ(R.Iterations.size(), 1u);
  EXPECT_EQ(R.Iterations[0].PredictedNs, 30);
  EXPECT_EQ(R.MakespanNs, 510);
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
  ASSERT_EQ(builtinPolicyNames().size(), 3u);
  for (llvm::StringRef Name : builtinPolicyNames()) {
    auto P = createSchedulingPolicy(Name);
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    EXPECT_EQ((*P)->name(), Name);
  }
  auto Bad = createSchedulingPolicy("fifo");
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(llvm::toString(Bad.takeError()),
            "unknown scheduling policy 'fifo'; valid policies are: "
            "recorded-order, shortest-first, note-priority");
}

} // namespace
