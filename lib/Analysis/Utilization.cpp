//===- Utilization.cpp - How busy a run keeps GPUs, threads, links --------===//
//
// One walk over the live tasks collects their intervals by lane, by device
// (kernels) and for communication; each group becomes an IntervalUnion, so
// the whole computation is O(n log n) in tasks plus O(log n) per iteration
// window. The simulated and recorded runs differ only in where a task's
// interval and the iteration windows come from.
//
//===----------------------------------------------------------------------===//

#include "daydream/Analysis/Utilization.h"

#include "daydream/IR/Graph.h"
#include "daydream/Sim/Simulator.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <limits>
#include <map>

using namespace dd;

namespace {

bool isCommunication(const Graph &G, const Task &T) {
  return T.Kind == TaskKind::Collective ||
         G.lane(T.Lane).Kind == LaneKind::CommChannel;
}

RunUtilization measure(const Graph &G, Interval Run,
                       std::vector<llvm::Optional<Interval>> Iterations,
                       llvm::function_ref<Interval(TaskId)> TimeOf) {
  std::vector<std::vector<Interval>> ByLane(G.numLanes());
  // Ordered, so devices come out by index.
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
    if (isCommunication(G, Tk))
      Communication.push_back(I);
  }

  RunUtilization U;
  U.Run = Run;
  U.Iterations = std::move(Iterations);
  for (auto &[Device, Kernels] : KernelsByDevice) {
    IntervalUnion Busy(std::move(Kernels));
    GpuUtilization Gpu;
    Gpu.Device = Device;
    Gpu.ComputeNs = Busy.length();
    for (const llvm::Optional<Interval> &W : U.Iterations)
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

} // namespace

llvm::Optional<double> RunUtilization::meanIterationNs() const {
  int64_t Sum = 0, N = 0;
  for (const llvm::Optional<Interval> &W : Iterations)
    if (W && W->length() > 0) {
      Sum += W->length();
      ++N;
    }
  if (N == 0)
    return llvm::None;
  return double(Sum) / double(N);
}

llvm::Optional<double>
RunUtilization::samplesPerSecond(int64_t BatchSize) const {
  llvm::Optional<double> Mean = meanIterationNs();
  if (!Mean || BatchSize <= 0)
    return llvm::None;
  return double(BatchSize) * 1e9 / *Mean;
}

RunUtilization dd::predictedUtilization(const Graph &G, const SimResult &R) {
  std::vector<llvm::Optional<Interval>> Windows;
  for (const IterationResult &I : R.Iterations)
    Windows.push_back(
        I.PredictedNs < 0
            ? llvm::None
            : llvm::Optional<Interval>(Interval{
                  I.PredictedStartNs, I.PredictedStartNs + I.PredictedNs}));
  return measure(G, Interval{R.OriginNs, R.OriginNs + R.MakespanNs},
                 std::move(Windows), [&](TaskId T) {
                   return Interval{R.Start[T], R.End[T]};
                 });
}

RunUtilization dd::recordedUtilization(const Graph &G) {
  Interval Run{std::numeric_limits<int64_t>::max(),
               std::numeric_limits<int64_t>::min()};
  for (TaskId T = 0; T != G.numTaskSlots(); ++T)
    if (G.isLive(T)) {
      const Task &Tk = G.task(T);
      Run.Begin = std::min(Run.Begin, Tk.StartNs);
      Run.End = std::max(Run.End, Tk.StartNs + Tk.DurationNs);
    }
  if (Run.Begin > Run.End)
    Run = Interval{0, 0}; // no live tasks
  std::vector<llvm::Optional<Interval>> Windows;
  for (const Iteration &I : G.iterations())
    Windows.push_back(I.MeasuredNs < 0
                          ? llvm::None
                          : llvm::Optional<Interval>(
                                Interval{I.StartNs, I.StartNs + I.MeasuredNs}));
  return measure(G, Run, std::move(Windows), [&](TaskId T) {
    const Task &Tk = G.task(T);
    return Interval{Tk.StartNs, Tk.StartNs + Tk.DurationNs};
  });
}
