//===- SimulatorRandomTest.cpp - The engines agree on random DAGs ---------===//
//
// A differential test: the linear engine (with its own order and with the
// caller's), the event-driven engine and a naive fixed-point evaluation of the
// formulas in Simulator.h give identical results on random all-InOrder DAGs;
// with ByPriority lanes every schedule must satisfy the model's bounds.
//
//===----------------------------------------------------------------------===//

#include "RandomDag.h"
#include "SimTestUtil.h"
#include "daydream/Sim/SchedulingPolicy.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <tuple>

using namespace dd;
using namespace dd::test;

namespace {

/// The formulas of Simulator.h for InOrder lanes, evaluated the naive way:
/// start from times too early and re-apply every rule until nothing moves.
/// On a DAG the least fixed point is the replay.
void fixedPoint(const Graph &G, int64_t T0, std::vector<int64_t> &Start,
                std::vector<int64_t> &End) {
  const size_t N = G.numTaskSlots();
  const int64_t Early = T0 - (int64_t(1) << 40);
  Start.assign(N, -1);
  End.assign(N, Early);
  for (bool Changed = true; Changed;) {
    // S is first the ready time (lane free, start predecessors ended), then
    // the start: ready time plus gap.
    std::vector<int64_t> S(N), E(N);
    for (TaskId T = 0; T != N; ++T) {
      TaskId P = G.prevOnLane(T);
      S[T] = P == NoId ? T0 : End[P];
    }
    for (const Edge &Ed : G.edgeSlots())
      if (G.isLive(Ed) && Ed.Kind != EdgeKind::Sync)
        S[Ed.Dst] = std::max(S[Ed.Dst], End[Ed.Src]);
    for (TaskId T = 0; T != N; ++T) {
      S[T] += G.task(T).GapNs;
      E[T] = S[T] + G.task(T).DurationNs;
    }
    for (const Edge &Ed : G.edgeSlots())
      if (G.isLive(Ed) && Ed.Kind == EdgeKind::Sync)
        E[Ed.Dst] = std::max(E[Ed.Dst], End[Ed.Src]);
    Changed = false;
    for (TaskId T = 0; T != N; ++T) {
      if (!G.isLive(T))
        continue;
      Changed |= E[T] != End[T];
      Start[T] = S[T];
      End[T] = E[T];
    }
  }
  for (TaskId T = 0; T != N; ++T)
    if (!G.isLive(T))
      End[T] = -1;
}

void expectSameResults(const SimResult &A, const SimResult &B) {
  EXPECT_EQ(A.OriginNs, B.OriginNs);
  EXPECT_EQ(A.MakespanNs, B.MakespanNs);
  EXPECT_EQ(A.Start, B.Start);
  EXPECT_EQ(A.End, B.End);
  ASSERT_EQ(A.Lanes.size(), B.Lanes.size());
  for (size_t L = 0; L != A.Lanes.size(); ++L) {
    EXPECT_EQ(A.Lanes[L].BusyNs, B.Lanes[L].BusyNs);
    EXPECT_EQ(A.Lanes[L].NumTasks, B.Lanes[L].NumTasks);
  }
  ASSERT_EQ(A.Iterations.size(), B.Iterations.size());
  for (size_t I = 0; I != A.Iterations.size(); ++I) {
    EXPECT_EQ(A.Iterations[I].PredictedNs, B.Iterations[I].PredictedNs);
    EXPECT_EQ(A.Iterations[I].PredictedStartNs,
              B.Iterations[I].PredictedStartNs);
  }
}

// Linear engine (own order and caller's order), event-driven engine and the
// naive fixed point agree exactly on all-InOrder graphs.
TEST(SimulatorTest, EnginesAgreeOnRandomDags) {
  for (uint32_t Seed = 1; Seed <= 20; ++Seed) {
    SCOPED_TRACE("seed " + std::to_string(Seed));
    RandomDag D = makeRandomDag(Seed, /*PriorityLanes=*/false);
    SimResult Linear = sim(D.G);

    SimOptions WithOrder;
    WithOrder.Order = &D.Topo;
    expectSameResults(Linear, sim(D.G, WithOrder));

    SimOptions Events;
    Events.ForceEventDriven = true;
    expectSameResults(Linear, sim(D.G, Events));

    std::vector<int64_t> Start, End;
    fixedPoint(D.G, Linear.OriginNs, Start, End);
    EXPECT_EQ(Linear.Start, Start);
    EXPECT_EQ(Linear.End, End);
    EXPECT_GT(Linear.MakespanNs, 0);
  }
}

// With ByPriority lanes there is no second engine to compare with, so check
// what any valid schedule satisfies: a task starts its gap after it is ready
// (exactly so on an InOrder lane), every end rule holds exactly, and a
// ByPriority lane runs one task at a time, each starting its gap after both
// the lane fell free and the task was ready.
TEST(SimulatorTest, PriorityScheduleIsValidOnRandomDags) {
  std::unique_ptr<SchedulingPolicy> Shortest = createShortestFirstPolicy();
  for (uint32_t Seed = 1; Seed <= 20; ++Seed) {
    SCOPED_TRACE("seed " + std::to_string(Seed));
    RandomDag D = makeRandomDag(Seed, /*PriorityLanes=*/true);
    const Graph &G = D.G;
    SimOptions Opts;
    Opts.Policy = Seed % 2 ? Shortest.get() : nullptr;
    SimResult R = sim(G, Opts);
    if (R.Start.empty())
      continue;

    // Ready: every start predecessor ended (T0 without one). Latest end of
    // the end predecessors: the least a task's end can be besides its
    // duration.
    const size_t N = G.numTaskSlots();
    std::vector<int64_t> Ready(N, R.OriginNs), SyncEnd(N, R.OriginNs);
    for (const Edge &E : G.edgeSlots()) {
      if (!G.isLive(E))
        continue;
      std::vector<int64_t> &Bound = E.Kind == EdgeKind::Sync ? SyncEnd : Ready;
      Bound[E.Dst] = std::max(Bound[E.Dst], R.End[E.Src]);
    }
    for (TaskId T = 0; T != N; ++T) {
      if (!G.isLive(T))
        continue;
      const Task &Tk = G.task(T);
      EXPECT_EQ(R.End[T], std::max(R.Start[T] + Tk.DurationNs, SyncEnd[T]))
          << "end of task " << T;
      if (G.lane(Tk.Lane).Order != LaneOrder::InOrder)
        continue;
      TaskId P = G.prevOnLane(T);
      int64_t Free = P == NoId ? R.OriginNs : R.End[P];
      EXPECT_EQ(R.Start[T], std::max(Free, Ready[T]) + Tk.GapNs)
          << "start of task " << T;
    }
    for (LaneId L = 0; L != G.numLanes(); ++L) {
      std::vector<TaskId> OnLane;
      for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T))
        OnLane.push_back(T);
      // Run order. Ties in start are zero-length tasks ending where the next
      // begins, and only the first of those can have a positive gap.
      auto Key = [&](TaskId T) {
        return std::make_tuple(R.Start[T], R.End[T], -G.task(T).GapNs);
      };
      std::sort(OnLane.begin(), OnLane.end(),
                [&](TaskId A, TaskId B) { return Key(A) < Key(B); });
      for (size_t I = 0; I != OnLane.size(); ++I) {
        TaskId T = OnLane[I];
        int64_t Free = I ? R.End[OnLane[I - 1]] : R.OriginNs;
        EXPECT_GE(R.Start[T], std::max(Free, Ready[T]) + G.task(T).GapNs)
            << "start of task " << T;
      }
    }
  }
}

} // namespace
