//===- CriticalPathTest.cpp - Critical path and slack on random DAGs ------===//
//
// Slack is checked against its definition by brute force: delaying a task's
// start by its slack (one more gap) must leave the makespan alone, and one
// nanosecond more must not. The path is checked against the model: its steps
// add up to the makespan, each starts its gap after the previous one ended,
// and a step that was not blocked has no slack.
//
//===----------------------------------------------------------------------===//

#include "daydream/Sim/CriticalPath.h"
#include "RandomDag.h"
#include "SimTestUtil.h"
#include "daydream/IR/CanonicalOrder.h"
#include "daydream/Sim/SchedulingPolicy.h"

#include "gtest/gtest.h"

using namespace dd;
using namespace dd::test;

namespace {

void expectPathFitsModel(const Graph &G, const SimResult &R,
                         const CriticalPath &P) {
  ASSERT_EQ(P.SlackNs.size(), G.numTaskSlots());
  for (TaskId T = 0; T != G.numTaskSlots(); ++T) {
    if (G.isLive(T))
      EXPECT_GE(P.SlackNs[T], 0) << "slack of task " << T;
    else
      EXPECT_EQ(P.SlackNs[T], -1) << "slack of dead task " << T;
  }
  ASSERT_FALSE(P.Steps.empty());
  EXPECT_EQ(R.End[P.Steps.back().Task], R.OriginNs + R.MakespanNs);
  int64_t Sum = 0;
  for (size_t I = 0; I != P.Steps.size(); ++I) {
    const CriticalStep &S = P.Steps[I];
    SCOPED_TRACE("step " + std::to_string(I) + ", task " +
                 std::to_string(S.Task));
    const Task &Tk = G.task(S.Task);
    int64_t Before = I ? R.End[P.Steps[I - 1].Task] : R.OriginNs;
    Sum += S.GapNs + S.WorkNs;
    if (S.Blocked) {
      EXPECT_EQ(S.GapNs + S.WorkNs, 0);
      EXPECT_EQ(R.End[S.Task], Before);
      continue;
    }
    EXPECT_EQ(S.GapNs, Tk.GapNs);
    EXPECT_EQ(S.WorkNs, Tk.DurationNs);
    EXPECT_EQ(R.Start[S.Task], Before + S.GapNs);
    EXPECT_EQ(P.SlackNs[S.Task], 0);
  }
  EXPECT_EQ(Sum, R.MakespanNs);
}

// Slack by its definition, on all-InOrder graphs, where delaying a task
// cannot change any lane's order.
TEST(CriticalPathTest, SlackMatchesResimulation) {
  for (uint32_t Seed = 1; Seed <= 12; ++Seed) {
    SCOPED_TRACE("seed " + std::to_string(Seed));
    RandomDag D = makeRandomDag(Seed, /*PriorityLanes=*/false);
    Graph &G = D.G;
    SimResult Base = sim(G);
    CriticalPath P = criticalPath(G, Base);
    expectPathFitsModel(G, Base, P);

    SimOptions Opts;
    Opts.Order = &D.Topo; // Delays do not change the order.
    for (TaskId T : D.Topo) {
      int64_t &Gap = G.task(T).GapNs;
      const int64_t Saved = Gap;
      Gap = Saved + P.SlackNs[T];
      EXPECT_EQ(sim(G, Opts).MakespanNs, Base.MakespanNs)
          << "task " << T << " delayed by its slack " << P.SlackNs[T];
      Gap = Saved + P.SlackNs[T] + 1;
      EXPECT_GT(sim(G, Opts).MakespanNs, Base.MakespanNs)
          << "task " << T << " delayed by 1 ns more than its slack";
      Gap = Saved;
    }
  }
}

// With ByPriority lanes a delay may change the order a policy picks, so
// slack holds the simulated order fixed and only the model's invariants are
// checked, under two policies.
TEST(CriticalPathTest, PathFitsModelWithPriorityLanes) {
  std::unique_ptr<SchedulingPolicy> Shortest = createShortestFirstPolicy();
  for (uint32_t Seed = 1; Seed <= 20; ++Seed) {
    SCOPED_TRACE("seed " + std::to_string(Seed));
    RandomDag D = makeRandomDag(Seed, /*PriorityLanes=*/true);
    SimOptions Opts;
    Opts.Policy = Seed % 2 ? Shortest.get() : nullptr;
    SimResult R = sim(D.G, Opts);
    if (R.Start.empty())
      continue; // A random Sync wait deadlocked; SimulatorRandomTest covers it.
    expectPathFitsModel(D.G, R, criticalPath(D.G, R));
  }
}

TEST(CriticalPathTest, EmptyGraph) {
  Graph G;
  addLane(G, "main");
  SimResult R = sim(G);
  CriticalPath P = criticalPath(G, R);
  EXPECT_TRUE(P.Steps.empty());
  EXPECT_TRUE(P.SlackNs.empty());
}

TEST(CriticalPathTest, RejectsAForeignSimulation) {
  Graph G;
  LaneId L = addLane(G, "main");
  addTask(G, L, "a", 0, 10);
  llvm::Expected<CanonicalOrder> C = computeCanonicalOrder(G);
  ASSERT_TRUE(bool(C));
  llvm::Expected<CriticalPath> P = findCriticalPath(G, SimResult(), *C);
  ASSERT_FALSE(bool(P));
  EXPECT_EQ(llvm::toString(P.takeError()),
            "critical path: the simulation or order is not of this graph");
}

} // namespace
