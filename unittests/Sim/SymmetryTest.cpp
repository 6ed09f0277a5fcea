//===- SymmetryTest.cpp - Identical ranks simulated once, exactly ---------===//
//
// Random jobs: every rank is one random two-lane program (a CPU thread
// launching kernels on a stream) that meets the other ranks at barriers;
// some ranks are perturbed (one duration changed) so that there are several
// groups. Simulating the reduced graph and expanding its results must give
// exactly what simulating every rank gives.
//
//===----------------------------------------------------------------------===//

#include "daydream/Sim/Symmetry.h"
#include "../IR/GraphBuilder.h"
#include "SimTestUtil.h"

#include "gtest/gtest.h"

#include <random>

using namespace dd;
using namespace dd::test;

namespace {

struct Program {
  std::vector<int64_t> CpuDur, GpuDur, Gap;
  std::vector<bool> Barrier; ///< kernel I is a collective member
};

Program randomProgram(std::mt19937_64 &Rng, size_t N) {
  Program P;
  for (size_t I = 0; I != N; ++I) {
    P.CpuDur.push_back(1 + int64_t(Rng() % 20));
    P.GpuDur.push_back(1 + int64_t(Rng() % 50));
    P.Gap.push_back(int64_t(Rng() % 5));
    P.Barrier.push_back(Rng() % 4 == 0);
  }
  return P;
}

/// Builds a job of \p Ranks copies of \p P, rank \p Odd (if any) with one
/// kernel \p Extra longer, joined at every barrier position.
void buildJob(Graph &G, const Program &P, unsigned Ranks, int Odd,
              int64_t Extra) {
  LaneId Coll = addLane(G, "collectives world", LaneKind::CommChannel);
  std::vector<TaskId> Barriers;
  for (size_t I = 0; I != P.Barrier.size(); ++I)
    if (P.Barrier[I])
      Barriers.push_back(
          addTask(G, Coll, "all_reduce", 0, 7, TaskKind::Collective));
  for (unsigned R = 0; R != Ranks; ++R) {
    LaneId Cpu = addLane(G, "main"),
           Gpu = addLane(G, "stream", LaneKind::GpuStream);
    G.lane(Cpu).Rank = G.lane(Gpu).Rank = int32_t(R);
    G.iterationsMut().push_back(
        Iteration{0, 1000, G.intern("step"), int32_t(R)});
    size_t B = 0;
    int64_t T = 0;
    for (size_t I = 0; I != P.CpuDur.size(); ++I) {
      TaskId L = addTask(G, Cpu, "launch", T, P.CpuDur[I], TaskKind::Runtime,
                         P.Gap[I]);
      T += P.CpuDur[I] + P.Gap[I];
      int64_t Dur = P.GpuDur[I] + (int(R) == Odd && I == 0 ? Extra : 0);
      if (P.Barrier[I]) {
        TaskId A = addTask(G, Gpu, "arrive", T, 0, TaskKind::Marker);
        TaskId K = addTask(G, Gpu, "nccl", T, 0, TaskKind::Collective);
        G.addEdge(L, A, EdgeKind::Launch);
        G.addEdge(A, Barriers[B], EdgeKind::Comm);
        G.addEdge(Barriers[B++], K, EdgeKind::Sync);
      } else {
        TaskId K = addTask(G, Gpu, "kernel", T, Dur, TaskKind::Kernel);
        G.addEdge(L, K, EdgeKind::Launch);
      }
    }
  }
}

TEST(SymmetryTest, ReducedEqualsFull) {
  std::mt19937_64 Rng(7);
  for (int Trial = 0; Trial != 50; ++Trial) {
    Program P = randomProgram(Rng, 2 + Rng() % 30);
    unsigned Ranks = 2 + Rng() % 6;
    int Odd = Rng() % 2 ? int(Rng() % Ranks) : -1;
    Graph Full, Reduced;
    buildJob(Full, P, Ranks, Odd, 13);
    buildJob(Reduced, P, Ranks, Odd, 13);
    SymmetryReduction S = reduceBySymmetry(Reduced);
    EXPECT_EQ(S.Ranks, Ranks);
    // The perturbed kernel is the first; at a barrier position it has no
    // duration of its own, and the odd rank is then like the others.
    bool Differs = Odd >= 0 && !P.Barrier[0];
    EXPECT_EQ(S.Classes, Differs ? 2u : 1u) << "trial " << Trial;
    SimResult A = sim(Full), B = sim(Reduced);
    expandResults(S, B);
    EXPECT_EQ(A.MakespanNs, B.MakespanNs) << "trial " << Trial;
    ASSERT_EQ(A.Iterations.size(), B.Iterations.size());
    for (size_t I = 0; I != A.Iterations.size(); ++I) {
      EXPECT_EQ(A.Iterations[I].PredictedNs, B.Iterations[I].PredictedNs)
          << "trial " << Trial << " iteration " << I;
      EXPECT_EQ(A.Iterations[I].PredictedStartNs,
                B.Iterations[I].PredictedStartNs);
    }
    for (LaneId L = 0; L != Full.numLanes(); ++L) {
      EXPECT_EQ(A.Lanes[L].BusyNs, B.Lanes[L].BusyNs) << "lane " << L;
      EXPECT_EQ(A.Lanes[L].NumTasks, B.Lanes[L].NumTasks) << "lane " << L;
    }
  }
}

// An edge from one rank to another makes both ranks their own group.
TEST(SymmetryTest, CrossRankEdgeKeepsRanksApart) {
  std::mt19937_64 Rng(3);
  Program P = randomProgram(Rng, 5);
  Graph G;
  buildJob(G, P, 3, -1, 0);
  // Rank 0's first task (the lane order puts it first among rank 0's) to
  // rank 1's first task.
  TaskId From = G.laneHead(1), To = G.laneHead(3);
  G.addEdge(From, To, EdgeKind::Data);
  SymmetryReduction S = reduceBySymmetry(G);
  EXPECT_EQ(S.Ranks, 3u);
  EXPECT_EQ(S.Classes, 3u);
  EXPECT_FALSE(S.used());
}

// By-priority lanes are not reduced: their policy may read ids and notes.
TEST(SymmetryTest, ByPriorityLaneIsNotReduced) {
  std::mt19937_64 Rng(5);
  Program P = randomProgram(Rng, 5);
  Graph G;
  buildJob(G, P, 4, -1, 0);
  G.lane(0).Order = LaneOrder::ByPriority;
  SymmetryReduction S = reduceBySymmetry(G);
  EXPECT_FALSE(S.used());
  EXPECT_EQ(G.numTasks(), G.numTaskSlots());
}

} // namespace
