//===- InferredLaunches.cpp - A launch for GPU work the trace left without
//--===//
//
// Some traces lose part of their runtime events (a buffer that overflowed, a
// launch path the profiler does not hook), leaving kernels with no call of
// their correlation id. Held only by their stream, such kernels replay as
// early as their stream allows, which shortens the steps they are in and
// ties them to nothing a pass changes on the CPU. Each gets an inferred
// launch instead:
//   - the launching thread is the one that launched the stream's work just
//     before it (or, for a stream's first work, just after it);
//   - the launch happened the trace's typical launch latency before the
//     work started: the median, over work launched onto an idle stream, of
//     its start less its call's start (DefaultLaunchLatencyNs where no work
//     is linked);
//   - the edge comes from the last task on that thread that began by then
//     and ended before the work began (a task still running when the work
//     began cannot be what it waited for).
// The work keeps its whole recorded delay after that task as its gap
// (computeGaps), so the replay is unchanged and the work moves with the CPU
// as a launched kernel does. The import's summary counts these launches.
//
//===----------------------------------------------------------------------===//

#include "LoweringContext.h"

#include <algorithm>

using namespace dd;
using namespace dd::import;
using namespace dd::import::lowering;

namespace {

/// Call start to kernel start where the trace shows none: a launch call of
/// about 5 us and the GPU's scheduling latency of about 5 us
/// (LoweringOptions::GpuLatencyNs).
constexpr int64_t DefaultLaunchLatencyNs = 10000;
/// How far back the search for a finished task walks.
constexpr int MaxWalkBack = 64;

/// The median delay from a call's start to its work's start, over work
/// that found its stream idle; -1 if there is none.
int64_t typicalLaunchLatency(const Context &C) {
  const TraceModel &M = C.M;
  std::vector<int64_t> Delays;
  for (const std::vector<uint32_t> &On : C.StreamActivities) {
    int64_t Free = INT64_MIN;
    for (uint32_t A : On) {
      const GpuActivity &Act = M.Activities[A];
      uint32_t Call = C.ActivityCall[A];
      if (Call != NoId && Free <= M.Calls[Call].EndNs &&
          Act.StartNs >= M.Calls[Call].StartNs)
        Delays.push_back(Act.StartNs - M.Calls[Call].StartNs);
      Free = std::max(Free, Act.EndNs);
    }
  }
  if (Delays.empty())
    return -1;
  auto Mid = Delays.begin() + Delays.size() / 2;
  std::nth_element(Delays.begin(), Mid, Delays.end());
  return *Mid;
}

} // namespace

void lowering::inferLaunches(Context &C) {
  const TraceModel &M = C.M;
  Graph &G = C.G;
  if (!C.Opts.InferDependencies || C.Stats.UnmatchedActivities == 0)
    return;
  int64_t Latency = typicalLaunchLatency(C);
  C.Stats.LaunchLatencyNs = Latency < 0 ? DefaultLaunchLatencyNs : Latency;

  // Each thread lane's tasks, in order of start (the order they were made).
  std::vector<std::vector<TaskId>> LaneTasks(G.numLanes());
  for (TaskId T = 0; T != G.numTaskSlots(); ++T)
    if (G.lane(G.task(T).Lane).Kind == LaneKind::CpuThread &&
        G.task(T).Kind != TaskKind::Marker)
      LaneTasks[G.task(T).Lane].push_back(T);

  for (const std::vector<uint32_t> &On : C.StreamActivities) {
    // The thread that launched the stream's work before each activity, or
    // after it for the work before the first launch.
    std::vector<uint32_t> Launcher(On.size(), NoId);
    uint32_t Last = NoId;
    for (size_t K = 0; K != On.size(); ++K) {
      if (C.ActivityCall[On[K]] != NoId)
        Last = M.Calls[C.ActivityCall[On[K]]].Thread;
      Launcher[K] = Last;
    }
    for (size_t K = On.size(); K-- > 0;) {
      if (C.ActivityCall[On[K]] != NoId)
        Last = M.Calls[C.ActivityCall[On[K]]].Thread;
      if (Launcher[K] == NoId)
        Launcher[K] = Last;
    }
    for (size_t K = 0; K != On.size(); ++K) {
      uint32_t A = On[K];
      if (C.ActivityCall[A] != NoId || Launcher[K] == NoId ||
          C.ThreadLane[Launcher[K]] == NoId)
        continue;
      const GpuActivity &Act = M.Activities[A];
      const std::vector<TaskId> &Tasks = LaneTasks[C.ThreadLane[Launcher[K]]];
      int64_t LaunchNs = Act.StartNs - C.Stats.LaunchLatencyNs;
      auto It = std::upper_bound(
          Tasks.begin(), Tasks.end(), LaunchNs,
          [&](int64_t T, TaskId Id) { return T < G.task(Id).StartNs; });
      TaskId From = NoId;
      for (int N = 0; It != Tasks.begin() && N != MaxWalkBack; ++N) {
        --It;
        if (C.RecordedEnd[*It] <= Act.StartNs) {
          From = *It;
          break;
        }
      }
      if (From == NoId)
        continue;
      TaskId Work = C.ActivityTask[A];
      C.addEdge(From, Work, EdgeKind::Launch, Inferred);
      C.markCpuPaced(Work);
      Task &W = G.task(Work);
      if (W.Layer == NoId) {
        W.Layer = G.task(From).Layer;
        W.Phase = G.task(From).Phase;
      }
      ++C.Stats.InferredLaunches;
    }
  }
}
