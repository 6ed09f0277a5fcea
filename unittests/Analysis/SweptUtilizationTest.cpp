//===- SweptUtilizationTest.cpp - Utilization measured on the way ---------===//
//
// dd-sim's headline measures utilization without a walk of its own over
// the tasks: from the lanes' sums (utilizationFromLanes()) where every GPU
// ran its kernels on one lane and nothing communicated, or with an observer
// the windowed sweep shows every task's times (UtilizationObserver). Both
// must give what predictedUtilization() gives from the kept times, on
// random jobs with one or two streams a GPU, with and without communication
// lanes and collectives; and each must decline where it cannot, the
// simulator then keeping the times. Each way is taken on some of the jobs,
// so that none of the comparisons can pass by never being made.
//
//===----------------------------------------------------------------------===//

#include "../IR/GraphBuilder.h"
#include "../Sim/SimTestUtil.h"
#include "UtilizationTestUtil.h"
#include "daydream/Analysis/Utilization.h"

#include "gtest/gtest.h"

#include <memory>
#include <random>

using namespace dd;
using namespace dd::test;

namespace {

/// A random job laid out as a file holds it, whose edges reach at most 32
/// tasks forward (the windowed sweep takes it): a CPU thread, one or two
/// GPU streams on each of up to three devices, maybe a communication lane,
/// and tasks of several kinds, maybe collectives.
Graph randomJob(uint32_t Seed) {
  std::mt19937 Rng(Seed);
  auto Pick = [&](uint32_t N) { return static_cast<uint32_t>(Rng() % N); };
  Graph G;
  std::vector<LaneId> Lanes{addLane(G, "cpu")};
  const unsigned Devices = 1 + Pick(3);
  const bool TwoStreams = Pick(3) == 0;
  for (unsigned D = 0; D != Devices; ++D)
    for (unsigned S = 0; S != (TwoStreams && D == 0 ? 2u : 1u); ++S) {
      LaneId L = addLane(G, "stream", LaneKind::GpuStream);
      G.lane(L).Device = int32_t(D);
      Lanes.push_back(L);
    }
  if (Pick(4) == 0)
    Lanes.push_back(addLane(G, "nccl", LaneKind::CommChannel));
  const bool Collectives = Pick(3) == 0;
  const TaskKind Kinds[] = {TaskKind::CpuOp,  TaskKind::Runtime,
                            TaskKind::Kernel, TaskKind::Kernel,
                            TaskKind::Memcpy, TaskKind::Collective};
  const unsigned N = 300 + Pick(300);
  for (unsigned I = 0; I != N; ++I) {
    TaskKind K = Kinds[Pick(Collectives ? 6 : 5)];
    addTask(G, Lanes[Pick(Lanes.size())], "t", 100 * int64_t(I) + Pick(100),
            Pick(5) ? 500 + Pick(5000) : 0, K, Pick(3) ? 0 : Pick(40));
  }
  for (unsigned I = 0; I != 2 * N; ++I) {
    TaskId A = Pick(N), B = A + 1 + Pick(32);
    if (B < N)
      G.addEdge(A, B, static_cast<EdgeKind>(Pick(NumEdgeKinds)));
  }
  return fileCopy(G);
}

bool communicates(const Graph &G) {
  for (TaskId T = 0; T != G.numTaskSlots(); ++T)
    if (G.task(T).Kind == TaskKind::Collective ||
        G.lane(G.task(T).Lane).Kind == LaneKind::CommChannel)
      return true;
  return false;
}

TEST(SweptUtilizationTest, MatchesTheWalkOverKeptTimes) {
  unsigned Observed = 0, Declined = 0, FromLanes = 0, NotFromLanes = 0;
  for (uint32_t Seed = 0; Seed != 300; ++Seed) {
    SCOPED_TRACE("seed " + std::to_string(Seed));
    Graph G = randomJob(Seed);
    const SimResult Full = sim(G);
    const RunUtilization Ref = predictedUtilization(G, Full);

    UtilizationObserver U(G);
    SimOptions Lean;
    Lean.TaskTimes = false;
    Lean.Observer = &U;
    SimResult R = sim(G, Lean);
    if (R.Observed) {
      ++Observed;
      EXPECT_TRUE(R.Start.empty()) << "times kept though observed";
      expectSameUtilization(U.result(R), Ref, /*Iterations=*/false);
    } else {
      // Only a collective after metering began is refused; the times are
      // then kept for the caller.
      ++Declined;
      EXPECT_FALSE(U.complete());
      EXPECT_EQ(R.Start, Full.Start);
      EXPECT_EQ(R.End, Full.End);
    }

    llvm::Optional<RunUtilization> Sums = utilizationFromLanes(G, Full);
    const bool OneLaneEach = utilizationFromLanesLikely(G);
    if (Sums) {
      ++FromLanes;
      EXPECT_TRUE(OneLaneEach);
      EXPECT_FALSE(communicates(G));
      expectSameUtilization(*Sums, Ref, /*Iterations=*/false);
    } else {
      ++NotFromLanes;
      EXPECT_TRUE(!OneLaneEach || communicates(G));
    }
  }
  EXPECT_GT(Observed, 0u);
  EXPECT_GT(Declined, 0u);
  EXPECT_GT(FromLanes, 0u);
  EXPECT_GT(NotFromLanes, 0u);
}

TEST(SweptUtilizationTest, ObserversOfProcessesMergeIntoTheWhole) {
  // A simulation split over processes shows each process's observer its
  // own lanes' tasks; process 0's merges what the others pack. The merged
  // figures must be one observer's, which must be the walk's.
  unsigned Compared = 0, Declined = 0;
  for (uint32_t Seed = 0; Seed != 200; ++Seed) {
    SCOPED_TRACE("seed " + std::to_string(Seed));
    Graph G = randomJob(Seed);
    const SimResult Full = sim(G);
    SimOptions Lean;
    Lean.TaskTimes = false;
    UtilizationObserver Whole(G);
    Lean.Observer = &Whole;
    const SimResult R = sim(G, Lean);
    for (unsigned Processes : {2u, 3u, 6u}) {
      std::vector<std::unique_ptr<UtilizationObserver>> Each;
      // A device's lanes may all be below one process, which then sends up
      // its union's length, or on several.
      std::vector<uint32_t> Owner;
      for (LaneId L = 0; L != G.numLanes(); ++L)
        Owner.push_back(L % Processes);
      for (unsigned P = 0; P != Processes; ++P) {
        Each.push_back(std::make_unique<UtilizationObserver>(G));
        Each.back()->laneOwners(Owner, P);
      }
      // Each lane's tasks to one observer, in runs of consecutive tasks.
      for (TaskId T = 0; T != G.numTaskSlots(); ++T) {
        UtilizationObserver &O = *Each[G.task(T).Lane % Processes];
        O.ran(T, llvm::makeArrayRef(Full.Start[T]),
              llvm::makeArrayRef(Full.End[T]));
      }
      // Up the tree first, from the leaves: process P's kernels go to
      // (P - 1) / 2, with those of the processes below it.
      ASSERT_TRUE(Each[0]->mergesUp());
      for (unsigned P = Processes - 1; P != 0; --P) {
        std::vector<int64_t> Up;
        Each[P]->packUp(Up);
        EXPECT_TRUE(Each[(P - 1) / 2]->mergeUp(Up));
      }
      for (unsigned P = 1; P != Processes; ++P) {
        std::vector<int64_t> Packed;
        Each[P]->pack(Packed);
        EXPECT_TRUE(Each[0]->merge(Packed));
      }
      Each[0]->finish(Full.OriginNs);
      ASSERT_EQ(Each[0]->complete(), R.Observed);
      if (!R.Observed) {
        ++Declined;
        continue;
      }
      ++Compared;
      expectSameUtilization(Each[0]->result(R), predictedUtilization(G, Full),
                            /*Iterations=*/false);
    }
  }
  EXPECT_GT(Compared, 0u);
  EXPECT_GT(Declined, 0u);
}

} // namespace
