//===- InferredDependencies.cpp - Edges read off the timing ---------------===//
//
// Many traces do not record why something waited. Two patterns are read off
// the timing instead, and counted in the import summary:
//   - cross-stream: GPU work that started well after both its launch and the
//     previous work on its stream, right when work on another stream of the
//     same device ended, waited for that work (an event wait the trace did
//     not record, e.g. without cuda_sync events); if its thread called
//     cudaStreamWaitEvent since the stream's previous work was issued, the
//     latest end on another stream since the work could have started is
//     taken, however long before (the event's wait takes a few us);
//   - cross-thread: a CPU thread that resumed after a long idle time (or an
//     autograd engine thread that began) right after work on another
//     thread ended was handed control by it (the main thread starting the
//     autograd thread and waiting for it to finish; HandOverWaits.cpp makes
//     the idle time of a thread that waited inside a range);
//   - blocked calls: an API call that took far longer than such calls take
//     and returned right when earlier GPU work ended was waiting for it. A
//     launch blocks like this when the launch queue is full, so a GPU-bound
//     loop's CPU side is paced by its kernels; the sync edge lets a what-if
//     that speeds the kernels up speed the CPU up too.
// Replay reproduces the trace with or without these edges, because a task's
// gap counts from when it became ready; what they change is how a what-if
// propagates.
//
//===----------------------------------------------------------------------===//

#include "LoweringContext.h"
#include "SortRuns.h"

#include "llvm/ADT/DenseSet.h"

#include <algorithm>

using namespace dd;
using namespace dd::import;
using namespace dd::import::lowering;

namespace {

/// How far back a search for a cause walks among equal-time candidates.
constexpr int MaxCandidates = 16;

struct Ending {
  int64_t EndNs;
  uint32_t Index;
};

bool byEnd(const Ending &A, const Ending &B) { return A.EndNs < B.EndNs; }

/// The latest entry of \p Sorted ending at or before \p T and not after
/// \p Floor, accepted by \p Ok, or NoId.
template <typename OkFn>
uint32_t latestEndingBefore(const std::vector<Ending> &Sorted, int64_t T,
                            int64_t Floor, OkFn Ok) {
  auto It = std::upper_bound(Sorted.begin(), Sorted.end(), Ending{T, 0}, byEnd);
  for (int N = 0; It != Sorted.begin() && N != MaxCandidates; ++N) {
    --It;
    if (It->EndNs < Floor)
      break;
    if (Ok(It->Index))
      return It->Index;
  }
  return NoId;
}

} // namespace

void lowering::addCrossThreadEdges(Context &C) {
  if (!C.Opts.InferDependencies)
    return;
  Graph &G = C.G;
  std::vector<Ending> CpuEnds;
  for (TaskId T = 0; T != G.numTaskSlots(); ++T)
    if (G.lane(G.task(T).Lane).Kind == LaneKind::CpuThread)
      CpuEnds.push_back(Ending{C.RecordedEnd[T], T});
  stableSortRuns(CpuEnds, byEnd);
  std::vector<char> AutogradLane(G.numLanes(), 0);
  for (uint32_t Th = 0; Th != C.ThreadLane.size(); ++Th)
    if (C.ThreadLane[Th] != NoId)
      AutogradLane[C.ThreadLane[Th]] = C.AutogradThread[Th];
  for (const Ending &E : CpuEnds) {
    TaskId T = E.Index;
    const Task &Tk = G.task(T);
    // An autograd engine thread's first task is idle from the start: it
    // began when another thread (the main one, in backward()) woke it.
    // Other threads' first tasks resumed nothing the trace shows.
    TaskId Prev = G.prevOnLane(T);
    if (Prev == NoId && !AutogradLane[Tk.Lane])
      continue;
    int64_t Free = Prev == NoId ? C.T0 : C.RecordedEnd[Prev];
    if (Tk.StartNs - Free < C.Opts.ThreadIdleNs)
      continue;
    // Something on another thread ended while this one idled: the latest
    // such end is taken as what it waited for.
    TaskId Cause =
        latestEndingBefore(CpuEnds, Tk.StartNs, Free + 1, [&](uint32_t U) {
          return G.task(U).Lane != Tk.Lane;
        });
    if (Cause == NoId)
      continue;
    C.addEdge(Cause, T, EdgeKind::ProgramOrder, Inferred);
    ++C.Stats.InferredCrossThread;
  }
}

void lowering::addBlockedCallsInferred(Context &C) {
  if (!C.Opts.InferDependencies)
    return;
  const TraceModel &M = C.M;
  std::vector<Ending> Ends;
  Ends.reserve(M.Activities.size());
  for (uint32_t A = 0; A != M.Activities.size(); ++A)
    Ends.push_back(Ending{M.Activities[A].EndNs, A});
  stableSortRuns(Ends, byEnd);
  for (uint32_t I = 0; I != M.Calls.size(); ++I) {
    const ApiCall &Call = M.Calls[I];
    if (C.CallRoot[I] != I || Call.Kind == ApiKind::DeviceSync ||
        Call.Kind == ApiKind::StreamSync || Call.Kind == ApiKind::EventSync ||
        Call.EndNs - Call.StartNs < C.Opts.BlockedCallNs)
      continue;
    // The work that ended last before the call returned, issued before the
    // call began (so the call cannot be what made it run).
    uint32_t Cause = latestEndingBefore(
        Ends, Call.EndNs, Call.EndNs - C.Opts.InferToleranceNs,
        [&](uint32_t A) {
          return C.IssueNs[A] < Call.StartNs &&
                 M.Activities[A].EndNs > Call.StartNs;
        });
    if (Cause == NoId)
      continue;
    TaskId Waiter = C.CallRest[I] != NoId ? C.CallRest[I] : C.CallTask[I];
    C.addEdge(C.ActivityTask[Cause], Waiter, EdgeKind::Sync, Inferred);
    ++C.Stats.InferredBlockedCalls;
  }
}

void lowering::addCrossStreamInferred(Context &C) {
  if (!C.Opts.InferDependencies)
    return;
  const TraceModel &M = C.M;
  llvm::DenseSet<TaskId> HasRecordedWait;
  for (const PendingEdge &E : C.Edges)
    if (E.Kind == EdgeKind::CrossStream)
      HasRecordedWait.insert(E.Dst);

  // Activities of each device by end time. Keyed by int64_t: DenseMap
  // reserves INT32_MAX and INT32_MIN of an int32_t key, and a trace may
  // name any device.
  llvm::DenseMap<int64_t, std::vector<Ending>> ByDevice;
  for (uint32_t A = 0; A != M.Activities.size(); ++A)
    ByDevice[M.Streams[M.Activities[A].Stream].Device].push_back(
        Ending{M.Activities[A].EndNs, A});
  for (auto &KV : ByDevice)
    stableSortRuns(KV.second, byEnd);

  // Each thread's cudaStreamWaitEvent calls, by start: work issued right
  // after one (since its stream's previous work) was made to wait for
  // something, even where the trace does not say for what.
  std::vector<std::vector<int64_t>> WaitCalls(M.Threads.size());
  for (const ApiCall &Call : M.Calls)
    if (Call.Kind == ApiKind::StreamWaitEvent)
      WaitCalls[Call.Thread].push_back(Call.StartNs);
  auto WaitedSince = [&](uint32_t Thread, int64_t From, int64_t To) {
    const std::vector<int64_t> &W = WaitCalls[Thread];
    auto It = std::lower_bound(W.begin(), W.end(), From);
    return It != W.end() && *It < To;
  };

  int64_t Tol = C.Opts.InferToleranceNs;
  for (uint32_t S = 0; S != M.Streams.size(); ++S) {
    const std::vector<uint32_t> &On = C.StreamActivities[S];
    const std::vector<Ending> &Device = ByDevice[M.Streams[S].Device];
    for (size_t K = 0; K != On.size(); ++K) {
      uint32_t A = On[K];
      const GpuActivity &Act = M.Activities[A];
      int64_t Ready = K ? M.Activities[On[K - 1]].EndNs : INT64_MIN;
      bool AfterWaitCall = false;
      if (uint32_t Call = C.ActivityCall[A]; Call != NoId) {
        // A blocking copy (done within its call, not split) may start as
        // soon as its call does: its launch edge comes from before the call.
        const ApiCall &Cl = M.Calls[Call];
        bool Blocking =
            C.CallRest[Call] == NoId &&
            (Cl.Kind == ApiKind::Memcpy || Cl.Kind == ApiKind::Memset) &&
            Act.StartNs >= Cl.StartNs && Act.EndNs <= Cl.EndNs;
        Ready = std::max(Ready, Blocking ? Cl.StartNs : Cl.EndNs);
        AfterWaitCall = WaitedSince(
            Cl.Thread, K ? C.IssueNs[On[K - 1]] : INT64_MIN, Cl.StartNs);
      }
      if (Act.StartNs <= Ready + Tol ||
          HasRecordedWait.count(C.ActivityTask[A]))
        continue;
      // After a wait call, the work waited for ended at any time since the
      // work could have started; otherwise right before it started.
      int64_t Floor = AfterWaitCall ? Ready : Act.StartNs - Tol;
      uint32_t Cause =
          latestEndingBefore(Device, Act.StartNs, Floor, [&](uint32_t B) {
            return M.Activities[B].Stream != S;
          });
      if (Cause == NoId)
        continue;
      C.addEdge(C.ActivityTask[Cause], C.ActivityTask[A], EdgeKind::CrossStream,
                Inferred);
      ++C.Stats.InferredCrossStream;
    }
  }
}
