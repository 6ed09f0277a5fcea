//===- SimHeadline.cpp - The figures dd-sim's summary leads with ----------===//
//
// The critical path of the simulated run (CriticalPath.h) split by where it
// runs, and the GPUs' compute utilization and communication overlap
// (Utilization.h): the few numbers that say what bounds an iteration. The
// printer passes print<critical-path> and print<utilization> give the full
// reports.
//
//===----------------------------------------------------------------------===//

#include "daydream/Analysis/Utilization.h"
#include "daydream/IR/CanonicalOrder.h"
#include "daydream/IR/Graph.h"
#include "daydream/Sim/CriticalPath.h"
#include "daydream/Sim/Simulator.h"
#include "daydream/Sim/Symmetry.h"
#include "daydream/Tools/SimReport.h"

#include <map>
#include <set>

using namespace dd;

llvm::Expected<SimHeadline> dd::computeHeadline(const Graph &G,
                                                const SimResult &R,
                                                const CanonicalOrder *Order) {
  SimHeadline H;
  // The totals only: neither the path's steps nor any slack is shown.
  auto Path = summarizeCriticalPath(G, R, Order);
  if (!Path)
    return Path.takeError();
  const CriticalPathBreakdown &B = Path->Time;
  H.CriticalPathNs = R.MakespanNs;
  H.CriticalPathTasks = Path->NumSteps;
  H.OnGpuNs = B.ByLaneKind[size_t(LaneKind::GpuStream)];
  H.OnCpuNs = B.ByLaneKind[size_t(LaneKind::CpuThread)];
  H.OnCommNs = B.ByLaneKind[size_t(LaneKind::CommChannel)];
  H.GapNs = B.GapNs;

  RunUtilization U = predictedUtilization(G, R);
  for (const GpuUtilization &Gpu : U.Gpus)
    H.GpuComputeNs.push_back({Gpu.Device, Gpu.ComputeNs});
  H.CommunicationNs = U.CommunicationNs;
  H.OverlappedCommunicationNs = U.OverlappedCommunicationNs;
  return H;
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
