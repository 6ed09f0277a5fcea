//===- SimulatorRandomTest.cpp - The engines agree on random DAGs ---------===//
//
// A differential test: the linear engine (with its own order and with the
// caller's), the event-driven engine and a naive fixed-point evaluation of the
// formulas in Simulator.h give identical results on random all-InOrder DAGs;
// with ByPriority lanes every schedule must satisfy the model's bounds, and
// must be the very one the event engine's first form (ReferenceEventReplay.h)
// finds. The event queue, on whose order those schedules hang, is checked
// against a sorted reference too.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Sim/EventQueue.h"
#include "RandomDag.h"
#include "ReferenceEventReplay.h"
#include "SimTestUtil.h"
#include "daydream/IR/BinaryFormat.h"
#include "daydream/Sim/SchedulingPolicy.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <random>
#include <set>
#include <tuple>

using namespace dd;
using namespace dd::test;

namespace {

// lib/Sim/EventQueue.h opens namespace dd::sim; the helper is meant here.
using dd::test::sim;

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

void expectSameAsReference(const Graph &G, SchedulingPolicy &Policy) {
  SimOptions Opts;
  Opts.Policy = &Policy;
  SimResult R = sim(G, Opts);
  Policy.prepare(G);
  ReferenceEventReplay Ref(G, Policy, R.OriginNs);
  Ref.run();
  EXPECT_EQ(R.Start, Ref.Start);
  EXPECT_EQ(R.End, Ref.End);
}

// Time for time the schedules of the event engine's first form, as built
// (dead tasks, edges in any order) and as a file holds the graph; every other
// graph with durations and gaps from a few values, zeros included, so that
// many ends and picks fall on one instant and tie-breaking decides picks.
TEST(SimulatorTest, EventEngineMatchesItsFirstForm) {
  std::unique_ptr<SchedulingPolicy> Policies[] = {createRecordedOrderPolicy(),
                                                  createShortestFirstPolicy(),
                                                  createNotePriorityPolicy()};
  for (uint32_t Seed = 1; Seed <= 400; ++Seed) {
    SCOPED_TRACE("seed " + std::to_string(Seed));
    RandomDag D = makeRandomDag(Seed, /*PriorityLanes=*/true);
    std::mt19937 Rng(Seed);
    if (Seed % 4)
      for (TaskId T = 0; T != D.G.numTaskSlots(); ++T) {
        D.G.task(T).DurationNs = int64_t(Rng() % 3) * 1000;
        D.G.task(T).GapNs = Rng() % 3 ? 0 : 1000;
      }
    // Some noted priorities, so that note-priority differs from the others.
    for (TaskId T = 0; T < D.G.numTaskSlots(); T += 7)
      if (D.G.isLive(T))
        D.G.addNote(T, PriorityNoteKey, std::to_string(Seed * T % 5));
    SchedulingPolicy &P = *Policies[Seed % 3];
    expectSameAsReference(D.G, P);
    expectSameAsReference(fileCopy(D.G), P);
  }
}

// The event-driven engine's results depend on the exact order in which its
// queue hands out events, ties included: many events with few distinct
// times, pushed and popped interleaved as the engine does, against a sorted
// reference.
TEST(SimulatorTest, EventQueuePopsByTimeThenKindThenPushOrder) {
  for (uint32_t Seed = 1; Seed <= 20; ++Seed) {
    SCOPED_TRACE("seed " + std::to_string(Seed));
    std::mt19937 Rng(Seed);
    sim::EventQueue Q;
    // (time, kind, push number, id): what pop() must return, smallest first.
    std::set<std::tuple<int64_t, int, uint64_t, uint32_t>> Ref;
    uint64_t Pushes = 0;
    int64_t Now = -5;
    for (unsigned Step = 0; Step != 3000; ++Step) {
      if (Ref.empty() || Rng() % 3 != 0) {
        // Never before the last pop, as in the engine; few distinct times
        // so that kind and push order decide most pops.
        int64_t Time = Now + int64_t(Rng() % 4);
        auto Kind = sim::EventKind(Rng() % 2);
        uint32_t Id = Rng() % 1000;
        Q.push(Time, Kind, Id);
        Ref.insert({Time, int(Kind), Pushes++, Id});
        continue;
      }
      ASSERT_EQ(Q.size(), Ref.size());
      sim::Event Ev = Q.pop();
      auto [Time, Kind, Seq, Id] = *Ref.begin();
      Ref.erase(Ref.begin());
      EXPECT_EQ(Ev.Time, Time);
      EXPECT_EQ(int(Ev.kind()), Kind);
      EXPECT_EQ(Ev.Id, Id) << "push " << Seq;
      Now = Ev.Time;
    }
    while (!Ref.empty()) {
      sim::Event Ev = Q.pop();
      EXPECT_EQ(Ev.Id, std::get<3>(*Ref.begin()));
      Ref.erase(Ref.begin());
    }
    EXPECT_TRUE(Q.empty());
  }
}

} // namespace
