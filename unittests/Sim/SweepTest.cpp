//===- SweepTest.cpp - The sweep engines against the indexed ones ---------===//
//
// A graph laid out as a file holds it (every task live, slot order
// topological, edges sorted by source) is simulated and its critical path
// found by sweeps over slot order that build no adjacency. The same graph
// with one dead task appended keeps every id but goes down the indexed
// paths, so the two must agree exactly, time for time and step for step, on
// many random graphs.
//
//===----------------------------------------------------------------------===//

#include "RandomDag.h"
#include "SimTestUtil.h"
#include "daydream/IR/BinaryFormat.h"
#include "daydream/IR/CanonicalOrder.h"
#include "daydream/Sim/CriticalPath.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace dd;
using namespace dd::test;

namespace {

/// The same graph off the sweep paths: a dead task at the end.
void addDeadTask(Graph &G) {
  Task Copy = G.task(0);
  G.removeTask(G.addTask(Copy));
}

/// summarizeCriticalPath(), with and without an order, against the
/// breakdown of the whole path.
void expectSummaryOfPath(const Graph &G, const SimResult &R) {
  CriticalPath P = criticalPath(G, R);
  CriticalPathBreakdown B = breakDown(G, P);
  llvm::Expected<CanonicalOrder> C = computeCanonicalOrder(G);
  ASSERT_TRUE(bool(C));
  const CanonicalOrder *Given = &*C;
  for (const CanonicalOrder *Order : {Given, (const CanonicalOrder *)nullptr}) {
    llvm::Expected<CriticalPathSummary> S = summarizeCriticalPath(G, R, Order);
    ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
    EXPECT_EQ(S->NumSteps, P.Steps.size());
    EXPECT_EQ(S->Time.GapNs, B.GapNs);
    for (unsigned K = 0; K != NumTaskKinds; ++K)
      EXPECT_EQ(S->Time.ByTaskKind[K], B.ByTaskKind[K]);
    for (unsigned K = 0; K != NumPhases; ++K)
      EXPECT_EQ(S->Time.ByPhase[K], B.ByPhase[K]);
    for (unsigned K = 0; K != NumLaneKinds; ++K)
      EXPECT_EQ(S->Time.ByLaneKind[K], B.ByLaneKind[K]);
  }
}

TEST(SweepTest, MatchesIndexedEnginesOnRandomDags) {
  for (uint32_t Seed = 0; Seed != 200; ++Seed) {
    SCOPED_TRACE("seed " + std::to_string(Seed));
    RandomDag D = makeRandomDag(Seed, /*PriorityLanes=*/false);
    Graph Fast = fileCopy(D.G);
    Graph Slow = fileCopy(D.G);
    addDeadTask(Slow);
    const size_t N = Fast.numTaskSlots();
    ASSERT_EQ(Slow.numTasks(), N);

    SimResult RF = sim(Fast), RS = sim(Slow);
    ASSERT_EQ(RF.Start.size(), N);
    for (TaskId T = 0; T != N; ++T)
      EXPECT_TIMES(RF, T, RS.Start[T], RS.End[T]);
    EXPECT_EQ(RF.OriginNs, RS.OriginNs);
    EXPECT_EQ(RF.MakespanNs, RS.MakespanNs);
    ASSERT_EQ(RF.Iterations.size(), RS.Iterations.size());
    for (size_t I = 0; I != RF.Iterations.size(); ++I) {
      EXPECT_EQ(RF.Iterations[I].PredictedStartNs,
                RS.Iterations[I].PredictedStartNs);
      EXPECT_EQ(RF.Iterations[I].PredictedNs, RS.Iterations[I].PredictedNs);
    }
    // The order handed in is the identity here, which the sweep may use.
    llvm::Expected<CanonicalOrder> C = computeCanonicalOrder(Fast);
    ASSERT_TRUE(bool(C));
    EXPECT_TRUE(C->IsIdentity);
    SimOptions WithOrder;
    WithOrder.Order = &C->Order;
    SimResult RO = sim(Fast, WithOrder);
    EXPECT_EQ(RO.End, RF.End);

    CriticalPath PF = criticalPath(Fast, RF), PS = criticalPath(Slow, RS);
    ASSERT_EQ(PF.Steps.size(), PS.Steps.size());
    for (size_t I = 0; I != PF.Steps.size(); ++I) {
      EXPECT_EQ(PF.Steps[I].Task, PS.Steps[I].Task) << "step " << I;
      EXPECT_EQ(PF.Steps[I].GapNs, PS.Steps[I].GapNs) << "step " << I;
      EXPECT_EQ(PF.Steps[I].WorkNs, PS.Steps[I].WorkNs) << "step " << I;
      EXPECT_EQ(PF.Steps[I].Blocked, PS.Steps[I].Blocked) << "step " << I;
    }
    for (TaskId T = 0; T != N; ++T)
      EXPECT_EQ(PF.SlackNs[T], PS.SlackNs[T]) << "slack of task " << T;

    // Without an order: none is needed on Fast, one is computed for Slow.
    for (const Graph *G : {&Fast, &Slow}) {
      const CriticalPath &With = G == &Fast ? PF : PS;
      llvm::Expected<CriticalPath> Without =
          findCriticalPath(*G, G == &Fast ? RF : RS, nullptr);
      ASSERT_TRUE(bool(Without)) << llvm::toString(Without.takeError());
      EXPECT_EQ(Without->SlackNs, With.SlackNs);
      ASSERT_EQ(Without->Steps.size(), With.Steps.size());
      for (size_t I = 0; I != With.Steps.size(); ++I)
        EXPECT_EQ(Without->Steps[I].Task, With.Steps[I].Task);
    }

    // The summary keeps no path, but adds up to the same.
    for (const Graph *G : {&Fast, &Slow})
      expectSummaryOfPath(*G, G == &Fast ? RF : RS);
  }
}

/// What visitCriticalPath() hands over, kept.
struct Collected final : CriticalPathVisitor {
  std::vector<CriticalStep> Steps; // last to first, as handed over
  std::vector<int64_t> SlackNs;
  std::vector<uint8_t> Seen;

  explicit Collected(size_t N) : SlackNs(N, -2), Seen(N, 0) {}
  void step(const CriticalStep &S) override { Steps.push_back(S); }
  void slack(TaskId First, llvm::ArrayRef<int64_t> Run) override {
    for (size_t I = 0; I != Run.size(); ++I) {
      EXPECT_EQ(Seen[First + I]++, 0) << "slack of task " << First + I;
      SlackNs[First + I] = Run[I];
    }
  }
};

/// visitCriticalPath() hands over findCriticalPath()'s steps, last to
/// first, and its slack, every slot once, and frees the end times.
void expectVisitOfPath(const Graph &G, const SimResult &R) {
  const CriticalPath P = criticalPath(G, R);
  llvm::Expected<CanonicalOrder> C = computeCanonicalOrder(G);
  ASSERT_TRUE(bool(C));
  const CanonicalOrder *Given = &*C;
  for (const CanonicalOrder *Order : {Given, (const CanonicalOrder *)nullptr}) {
    SimResult Copy = R;
    Collected V(G.numTaskSlots());
    llvm::Error E = visitCriticalPath(G, Copy, Order, V);
    ASSERT_FALSE(bool(E)) << llvm::toString(std::move(E));
    EXPECT_TRUE(Copy.End.empty());
    EXPECT_EQ(V.SlackNs, P.SlackNs);
    ASSERT_EQ(V.Steps.size(), P.Steps.size());
    for (size_t I = 0; I != P.Steps.size(); ++I) {
      const CriticalStep &A = V.Steps[P.Steps.size() - 1 - I], &B = P.Steps[I];
      EXPECT_EQ(A.Task, B.Task) << "step " << I;
      EXPECT_EQ(A.GapNs, B.GapNs) << "step " << I;
      EXPECT_EQ(A.WorkNs, B.WorkNs) << "step " << I;
      EXPECT_EQ(A.Blocked, B.Blocked) << "step " << I;
    }
  }
}

// Visiting, on the sweeps and off them, finds what finding does.
TEST(SweepTest, VisitMatchesFoundPath) {
  for (uint32_t Seed = 0; Seed != 200; ++Seed) {
    SCOPED_TRACE("seed " + std::to_string(Seed));
    const bool Priority = Seed % 4 == 3;
    RandomDag D = makeRandomDag(Seed, Priority);
    Graph Fast = fileCopy(D.G);
    Graph Slow = fileCopy(D.G);
    addDeadTask(Slow);
    for (const Graph *G : {&Fast, &Slow})
      expectVisitOfPath(*G, sim(*G));
  }
}

TEST(SweepTest, VisitRejectsForeignSimulation) {
  Graph G = fileCopy(makeRandomDag(1, false).G);
  SimResult R = sim(G);
  R.End.pop_back();
  Collected V(G.numTaskSlots());
  llvm::Error E = visitCriticalPath(G, R, nullptr, V);
  ASSERT_TRUE(bool(E));
  EXPECT_EQ(llvm::toString(std::move(E)),
            "critical path: the simulation is not of this graph");
}

// With priority lanes the summary is the whole path's breakdown.
TEST(SweepTest, SummaryWithPriorityLanes) {
  for (uint32_t Seed = 0; Seed != 50; ++Seed) {
    SCOPED_TRACE("seed " + std::to_string(Seed));
    Graph G = fileCopy(makeRandomDag(Seed, /*PriorityLanes=*/true).G);
    expectSummaryOfPath(G, sim(G));
  }
}

} // namespace

namespace {

/// A random graph as a file holds it whose edges reach at most \p Reach
/// tasks forward, as a trace's do (a launch and its kernel, a stream's next
/// work): the windowed sweep takes it.
Graph localDag(uint32_t Seed, uint32_t Reach) {
  std::mt19937 Rng(Seed);
  auto Pick = [&](uint32_t N) { return static_cast<uint32_t>(Rng() % N); };
  Graph G;
  const unsigned NumLanes = 1 + Pick(5);
  for (unsigned L = 0; L != NumLanes; ++L)
    addLane(G, "lane" + std::to_string(L), static_cast<LaneKind>(Pick(3)),
            LaneOrder::InOrder);
  const unsigned N = 300 + Pick(300);
  for (unsigned I = 0; I != N; ++I) {
    addTask(G, Pick(NumLanes), "t" + std::to_string(I),
            /*Start=*/100 * int64_t(I) + Pick(100),
            /*Dur=*/Pick(4) ? 1000 + Pick(20000) : 0, TaskKind::CpuOp,
            /*Gap=*/Pick(3) ? 0 : Pick(6));
  }
  for (unsigned I = 0; I != 2 * N; ++I) {
    TaskId A = Pick(N), B = A + 1 + Pick(Reach);
    if (B < N)
      G.addEdge(A, B, static_cast<EdgeKind>(Pick(NumEdgeKinds)));
  }
  G.iterationsMut() = {{5000, -1, G.intern("a")},
                       {20000, 4000, G.intern("b")},
                       {30000, -1, G.intern("c")}};
  return fileCopy(G);
}

TEST(SweepTest, WithoutTaskTimesTheSummaryIsTheSame) {
  for (uint32_t Seed = 0; Seed != 200; ++Seed) {
    SCOPED_TRACE("seed " + std::to_string(Seed));
    // Reach 1 to 64: windows of 2 to 128 slots, reused many times over.
    Graph G = localDag(Seed, 1 + Seed % 64);
    SimResult Full = sim(G);
    SimOptions Lean;
    Lean.TaskTimes = false;
    SimResult R = sim(G, Lean);
    EXPECT_TRUE(R.Start.empty() && R.End.empty()) << "windowed sweep not taken";
    EXPECT_EQ(R.OriginNs, Full.OriginNs);
    EXPECT_EQ(R.MakespanNs, Full.MakespanNs);
    ASSERT_EQ(R.Lanes.size(), Full.Lanes.size());
    for (size_t L = 0; L != R.Lanes.size(); ++L) {
      EXPECT_EQ(R.Lanes[L].BusyNs, Full.Lanes[L].BusyNs);
      EXPECT_EQ(R.Lanes[L].NumTasks, Full.Lanes[L].NumTasks);
    }
    ASSERT_EQ(R.Iterations.size(), Full.Iterations.size());
    for (size_t I = 0; I != R.Iterations.size(); ++I) {
      EXPECT_EQ(R.Iterations[I].PredictedStartNs,
                Full.Iterations[I].PredictedStartNs);
      EXPECT_EQ(R.Iterations[I].PredictedNs, Full.Iterations[I].PredictedNs);
    }
  }
}

// The windowed sweep adds up the critical path forward as it goes; its
// totals must be what walking back over the kept times finds.
TEST(SweepTest, CriticalPathTotalsOnTheWay) {
  for (uint32_t Seed = 0; Seed != 200; ++Seed) {
    SCOPED_TRACE("seed " + std::to_string(Seed));
    Graph G = localDag(Seed, 1 + Seed % 64);
    SimOptions Lean;
    Lean.TaskTimes = false;
    Lean.CriticalPath = true;
    SimResult R = sim(G, Lean);
    ASSERT_TRUE(R.CriticalPath.hasValue()) << "windowed sweep not taken";
    EXPECT_TRUE(R.Start.empty());
    const SimResult Full = sim(G);
    EXPECT_FALSE(Full.CriticalPath.hasValue()) << "not asked for";
    llvm::Expected<CriticalPathSummary> S =
        summarizeCriticalPath(G, Full, nullptr);
    ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
    const CriticalPathTotals Want = CriticalPathTotals::of(*S);
    EXPECT_EQ(R.CriticalPath->NumSteps, Want.NumSteps);
    EXPECT_EQ(R.CriticalPath->GapNs, Want.GapNs);
    for (unsigned K = 0; K != NumLaneKinds; ++K)
      EXPECT_EQ(R.CriticalPath->ByLaneKind[K], Want.ByLaneKind[K])
          << "lane kind " << K;
  }
}

TEST(SweepTest, WithoutTaskTimesFarEdgesKeepTheArrays) {
  // An edge across the whole graph: a window would be the graph itself.
  Graph G = localDag(3, 4);
  G.addEdge(0, TaskId(G.numTaskSlots() - 1), EdgeKind::Data);
  G = fileCopy(G);
  SimOptions Lean;
  Lean.TaskTimes = false;
  SimResult R = sim(G, Lean), Full = sim(G);
  EXPECT_EQ(R.Start.size(), G.numTaskSlots());
  EXPECT_EQ(R.MakespanNs, Full.MakespanNs);
}

} // namespace

namespace {

TEST(SweepTest, WithoutLaneAndIterationResultsTheTimesAreTheSame) {
  for (uint32_t Seed = 0; Seed != 50; ++Seed) {
    SCOPED_TRACE("seed " + std::to_string(Seed));
    Graph G = fileCopy(makeRandomDag(Seed, /*PriorityLanes=*/false).G);
    SimResult Full = sim(G);
    SimOptions Lean;
    Lean.LaneAndIterationResults = false;
    SimResult R = sim(G, Lean);
    EXPECT_TRUE(R.Lanes.empty() && R.Iterations.empty())
        << "the sweep credited lanes and iterations after all";
    EXPECT_EQ(R.Start, Full.Start);
    EXPECT_EQ(R.End, Full.End);
    EXPECT_EQ(R.OriginNs, Full.OriginNs);
    EXPECT_EQ(R.MakespanNs, Full.MakespanNs);
  }
}

} // namespace
