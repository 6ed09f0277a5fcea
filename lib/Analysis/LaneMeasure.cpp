//===- LaneMeasure.cpp - One run's per-lane figures, task by task ---------===//
//
// See LaneMeasure.h: the setup, and the second walk for lanes whose tasks
// came out of order.
//
//===----------------------------------------------------------------------===//

#include "LaneMeasure.h"

#include <map>

using namespace dd;

std::vector<uint8_t> dd::meterableLanes(const Graph &G) {
  const size_t NumLanes = G.numLanes();
  std::vector<uint8_t> Meter(NumLanes, 0);
  std::map<int32_t, unsigned> LanesOfDevice;
  for (const Lane &L : G.lanes()) {
    if (L.Kind == LaneKind::CommChannel)
      return Meter;
    ++LanesOfDevice[L.Device];
  }
  for (LaneId L = 0; L != NumLanes; ++L)
    Meter[L] = LanesOfDevice[G.lane(L).Device] == 1;
  return Meter;
}

LaneMeasure::LaneMeasure(const Graph &G, TimeSource Source,
                         llvm::ArrayRef<int64_t> Times,
                         llvm::ArrayRef<uint8_t> Meter)
    : G(G), Source(Source), Lanes(G.numLanes()), MeterOf(G.numLanes(), nullptr),
      IsCommLane(G.numLanes()), Sorted(G.numLanes(), 1),
      LastBegin(G.numLanes(), std::numeric_limits<int64_t>::min()),
      Open(G.numLanes()) {
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    IsCommLane[L] = G.lane(L).Kind == LaneKind::CommChannel;
    if (Meter[L]) {
      Lanes[L].KernelMeter.emplace(Times);
      MeterOf[L] = Lanes[L].KernelMeter.getPointer();
    }
  }
}

std::vector<LaneIntervals> LaneMeasure::finish() {
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    Lanes[L].BusyNs += Open[L].length();
    if (!Sorted[L])
      Lanes[L].KernelMeter.reset();
    else if (MeterOf[L])
      MeterOf[L]->finish();
  }
  if (AnyUnsorted)
    measureUnsorted();
  return std::move(Lanes);
}

void LaneMeasure::measureUnsorted() {
  const size_t NumLanes = G.numLanes();
  std::vector<std::vector<Interval>> All(NumLanes), Kernels(NumLanes),
      Communication(NumLanes);
  llvm::ArrayRef<Task> Tasks = G.taskSlots();
  for (TaskId T = 0, N = Tasks.size(); T != N; ++T) {
    const LaneId L = Tasks[T].Lane;
    if (Sorted[L] || !G.isLive(T))
      continue;
    const Interval I = Source.of(T, Tasks[T]);
    All[L].push_back(I);
    if (Tasks[T].Kind == TaskKind::Kernel)
      Kernels[L].push_back(I);
    if (Tasks[T].Kind == TaskKind::Collective || IsCommLane[L])
      Communication[L].push_back(I);
  }
  for (LaneId L = 0; L != NumLanes; ++L)
    if (!Sorted[L]) {
      Lanes[L].BusyNs = IntervalUnion(std::move(All[L])).length();
      IntervalUnion K(std::move(Kernels[L]));
      Lanes[L].Kernels.assign(K.intervals().begin(), K.intervals().end());
      IntervalUnion C(std::move(Communication[L]));
      Lanes[L].Communication.assign(C.intervals().begin(), C.intervals().end());
    }
}
