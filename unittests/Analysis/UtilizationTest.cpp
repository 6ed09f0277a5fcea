//===- UtilizationTest.cpp - Utilization against the plain computation ----===//
//
// predictedUtilization() and recordedUtilization() merge each lane's
// intervals as they arrive when a lane's tasks come in time order, and sort
// only the lanes whose tasks do not; the kernels of a device's only lane are
// measured as they come without being kept, unless communication needs them.
// Both must give exactly what collecting every interval and taking
// IntervalUnions gives, on random graphs whose lanes come in order, out of
// order, with empty and dead tasks, with and without communication, and
// predictedAndRecordedUtilization() what the two give apart.
//
//===----------------------------------------------------------------------===//

#include "daydream/Analysis/Utilization.h"
#include "../IR/GraphBuilder.h"
#include "UtilizationTestUtil.h"
#include "daydream/IR/Graph.h"
#include "daydream/Sim/Simulator.h"

#include "llvm/ADT/STLExtras.h"

#include "gtest/gtest.h"

#include <limits>
#include <map>
#include <random>

using namespace dd;
using namespace dd::test;

namespace {

/// The figures of Utilization.h computed the plain way: every interval
/// collected by group, each group one IntervalUnion.
RunUtilization reference(const Graph &G, const RunUtilization &Shape,
                         llvm::function_ref<Interval(TaskId)> TimeOf) {
  std::vector<std::vector<Interval>> ByLane(G.numLanes());
  std::map<int32_t, std::vector<Interval>> KernelsByDevice;
  std::vector<Interval> AllKernels, Communication;
  for (const Lane &L : G.lanes())
    if (L.Kind == LaneKind::GpuStream)
      KernelsByDevice[L.Device];
  for (TaskId T = 0; T != G.numTaskSlots(); ++T) {
    if (!G.isLive(T))
      continue;
    const Task &Tk = G.task(T);
    Interval I = TimeOf(T);
    ByLane[Tk.Lane].push_back(I);
    if (Tk.Kind == TaskKind::Kernel) {
      KernelsByDevice[G.lane(Tk.Lane).Device].push_back(I);
      AllKernels.push_back(I);
    }
    if (Tk.Kind == TaskKind::Collective ||
        G.lane(Tk.Lane).Kind == LaneKind::CommChannel)
      Communication.push_back(I);
  }
  RunUtilization U;
  U.Run = Shape.Run;
  for (auto &[Device, Kernels] : KernelsByDevice) {
    IntervalUnion Busy(std::move(Kernels));
    GpuUtilization Gpu;
    Gpu.Device = Device;
    Gpu.ComputeNs = Busy.length();
    for (const llvm::Optional<Interval> &W : Shape.Iterations)
      Gpu.IterationComputeNs.push_back(
          W ? llvm::Optional<int64_t>(Busy.lengthWithin(*W)) : llvm::None);
    U.Gpus.push_back(std::move(Gpu));
  }
  for (std::vector<Interval> &Tasks : ByLane)
    U.LaneBusyNs.push_back(IntervalUnion(std::move(Tasks)).length());
  IntervalUnion Comm(std::move(Communication));
  U.CommunicationNs = Comm.length();
  U.OverlappedCommunicationNs =
      Comm.overlapWith(IntervalUnion(std::move(AllKernels)));
  return U;
}

/// Random lanes of every kind over three devices; each lane's tasks in time
/// order or shuffled, some empty, some overlapping, a few dead. Without
/// \p Comm, no communication lane and no collective, and most devices with
/// one lane.
Graph randomGraph(std::mt19937 &Rng, bool Comm = true) {
  auto Pick = [&](uint32_t N) { return uint32_t(Rng() % N); };
  Graph G;
  const unsigned NumLanes = 1 + Pick(6);
  for (unsigned L = 0; L != NumLanes; ++L) {
    LaneId Id =
        addLane(G, "l" + std::to_string(L), LaneKind(Pick(Comm ? 3 : 2)));
    G.lane(Id).Device = int32_t(Comm ? Pick(3) : L + Pick(2));
  }
  std::vector<int64_t> Clock(NumLanes, 0);
  std::vector<uint8_t> Shuffled(NumLanes);
  for (unsigned L = 0; L != NumLanes; ++L)
    Shuffled[L] = Pick(3) == 0;
  const unsigned N = 1 + Pick(80);
  for (unsigned I = 0; I != N; ++I) {
    LaneId L = Pick(NumLanes);
    int64_t Start = Shuffled[L] ? Pick(2000) : (Clock[L] += Pick(40));
    int64_t Dur = Pick(4) ? Pick(60) : 0;
    TaskKind K = TaskKind(Pick(NumTaskKinds));
    if (!Comm && K == TaskKind::Collective)
      K = TaskKind::Kernel;
    addTask(G, L, "t", Start, Dur, K);
  }
  for (unsigned I = 0; I != N / 15; ++I)
    G.removeTask(Pick(N));
  G.iterationsMut() = {{0, 500, G.intern("a")},
                       {400, -1, G.intern("b")},
                       {900, 300, G.intern("c")},
                       {1000, 0, G.intern("d")}};
  return G;
}

/// The recorded run: first recorded start to last recorded end.
Interval recordedRun(const Graph &G) {
  Interval Run{std::numeric_limits<int64_t>::max(),
               std::numeric_limits<int64_t>::min()};
  for (TaskId T = 0; T != G.numTaskSlots(); ++T)
    if (G.isLive(T)) {
      Run.Begin = std::min(Run.Begin, G.task(T).StartNs);
      Run.End = std::max(Run.End, G.task(T).StartNs + G.task(T).DurationNs);
    }
  return Run.Begin > Run.End ? Interval{0, 0} : Run;
}

TEST(UtilizationTest, RecordedMatchesPlainUnions) {
  std::mt19937 Rng(11);
  for (int Round = 0; Round != 600; ++Round) {
    SCOPED_TRACE("round " + std::to_string(Round));
    Graph G = randomGraph(Rng, /*Comm=*/Round % 2);
    RunUtilization U = recordedUtilization(G);
    RunUtilization Shape = U;
    Shape.Run = recordedRun(G);
    expectSameUtilization(
        U, reference(G, Shape, [&](TaskId T) {
          const Task &Tk = G.task(T);
          return Interval{Tk.StartNs, Tk.StartNs + Tk.DurationNs};
        }));
  }
}

TEST(UtilizationTest, PredictedMatchesPlainUnions) {
  std::mt19937 Rng(12);
  for (int Round = 0; Round != 600; ++Round) {
    SCOPED_TRACE("round " + std::to_string(Round));
    Graph G = randomGraph(Rng, /*Comm=*/Round % 2);
    // Simulated times that follow lane order on most lanes, as a replay's do.
    SimResult R;
    R.Start.assign(G.numTaskSlots(), -1);
    R.End.assign(G.numTaskSlots(), -1);
    for (LaneId L = 0; L != G.numLanes(); ++L) {
      int64_t Clock = 0;
      const bool Shuffled = Rng() % 4 == 0;
      for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T)) {
        R.Start[T] = Shuffled ? int64_t(Rng() % 3000) : (Clock += Rng() % 50);
        R.End[T] = R.Start[T] + int64_t(Rng() % 70);
      }
    }
    R.MakespanNs = 3100;
    R.Iterations.resize(2);
    R.Iterations[0].PredictedStartNs = 10;
    R.Iterations[0].PredictedNs = 700;
    R.Iterations[1].PredictedNs = -1;
    RunUtilization U = predictedUtilization(G, R);
    expectSameUtilization(U, reference(G, U, [&](TaskId T) {
                            return Interval{R.Start[T], R.End[T]};
                          }));
    // Both runs in one walk.
    auto [P, Rec] = predictedAndRecordedUtilization(G, R);
    expectSameUtilization(P, U);
    expectSameUtilization(Rec, recordedUtilization(G));
  }
}

} // namespace
