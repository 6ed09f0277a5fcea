//===- SimHeadline.cpp - The figures dd-sim's summary leads with ----------===//
//
// The critical path of the simulated run (CriticalPath.h) split by where it
// runs, and the GPUs' compute utilization and communication overlap
// (Utilization.h): the few numbers that say what bounds an iteration. The
// printer passes print<critical-path> and print<utilization> give the full
// reports.
//
//===----------------------------------------------------------------------===//

#include "SimReport.h"
#include "daydream/Analysis/Utilization.h"
#include "daydream/IR/CanonicalOrder.h"
#include "daydream/IR/Graph.h"
#include "daydream/Sim/CriticalPath.h"
#include "daydream/Sim/Simulator.h"
#include "daydream/Sim/Symmetry.h"

#include <map>
#include <set>

using namespace dd;

void dd::requestHeadline(const Graph &G, SimOptions &SO,
                         llvm::Optional<UtilizationObserver> &Observer) {
  SO.CriticalPath = true;
  if (!utilizationFromLanesLikely(G)) {
    Observer.emplace(G);
    SO.Observer = &*Observer;
  }
}

llvm::Expected<llvm::Optional<SimHeadline>>
dd::computeHeadline(const Graph &G, const SimResult &R,
                    const CanonicalOrder *Order,
                    UtilizationObserver *Observed) {
  // Utilization from the lanes' sums where they do, else as the observer
  // measured it, else from the task times; if the simulation kept none,
  // the caller simulates again keeping them.
  SimHeadline H;
  const bool Times = R.Start.size() == G.numTaskSlots();
  llvm::Optional<RunUtilization> U = utilizationFromLanes(G, R);
  H.UtilizationFrom = "the lanes' sums";
  if (!U && Observed && R.Observed) {
    U = Observed->result(R);
    H.UtilizationFrom = "the observer";
  }
  if (!U && Times) {
    U = predictedUtilization(G, R);
    H.UtilizationFrom = "the task times";
  }
  if (!U || (!R.CriticalPath && !Times))
    return llvm::None;

  // The totals only: neither the path's steps nor any slack is shown.
  llvm::Optional<CriticalPathTotals> Path = R.CriticalPath;
  H.PathFrom = "the sweep";
  if (!Path) {
    H.PathFrom = "the task times";
    auto Found = summarizeCriticalPath(G, R, Order);
    if (!Found)
      return Found.takeError();
    Path = CriticalPathTotals::of(*Found);
  }
  H.CriticalPathNs = R.MakespanNs;
  H.CriticalPathTasks = Path->NumSteps;
  H.OnGpuNs = Path->ByLaneKind[size_t(LaneKind::GpuStream)];
  H.OnCpuNs = Path->ByLaneKind[size_t(LaneKind::CpuThread)];
  H.OnCommNs = Path->ByLaneKind[size_t(LaneKind::CommChannel)];
  H.GapNs = Path->GapNs;
  for (const GpuUtilization &Gpu : U->Gpus)
    H.GpuComputeNs.push_back({Gpu.Device, Gpu.ComputeNs});
  H.CommunicationNs = U->CommunicationNs;
  H.OverlappedCommunicationNs = U->OverlappedCommunicationNs;
  return llvm::Optional<SimHeadline>(std::move(H));
}

void dd::expandHeadline(const SymmetryReduction &S, const Graph &G,
                        SimHeadline &H) {
  // A left-out rank's GPU is as busy as its representative's; the critical
  // path and the communication overlap (a share) are the same either way.
  std::map<int32_t, int64_t> Compute(H.GpuComputeNs.begin(),
                                     H.GpuComputeNs.end());
  std::set<int32_t> Simulated; // devices with GPU work left in the graph
  for (LaneId L = 0; L != G.numLanes(); ++L)
    if (G.lane(L).Kind == LaneKind::GpuStream && G.laneHead(L) != NoId)
      Simulated.insert(G.lane(L).Device);
  for (auto [To, From] : S.LaneCopies) {
    const Lane &L = G.lane(To);
    if (L.Kind != LaneKind::GpuStream || Simulated.count(L.Device))
      continue;
    auto It = Compute.find(G.lane(From).Device);
    if (It != Compute.end())
      Compute[L.Device] = It->second;
  }
  H.GpuComputeNs.assign(Compute.begin(), Compute.end());
}
