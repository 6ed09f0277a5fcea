//===- Dependencies.cpp - Launch and synchronization edges ----------------===//
//
// Launch edges come from correlation ids. A call whose work started well
// before it returned was split there (buildTasks): its first part launches
// the work. A copy or memset call that lasted until its GPU work was done was
// blocking (cudaMemcpy, or an async copy to pageable memory): its rest gets a
// sync edge from the work; if it was too short to split, the work depends on
// what preceded the call on its thread, and the call waits for the work.
// Synchronize calls get sync edges from the work they waited for: from the
// trace's synchronization records where it has them (Kineto cuda_sync, CUPTI
// SYNCHRONIZATION), otherwise from timing.
//
//===----------------------------------------------------------------------===//

#include "LoweringContext.h"

#include <algorithm>

using namespace dd;
using namespace dd::import;
using namespace dd::import::lowering;

namespace {

/// The last activity on stream \p S issued before \p T, or NoId.
uint32_t lastIssuedBefore(const Context &C, uint32_t S, int64_t T) {
  const std::vector<uint32_t> &On = C.StreamActivities[S];
  auto It = std::partition_point(On.begin(), On.end(),
                                 [&](uint32_t A) { return C.IssueNs[A] < T; });
  return It == On.begin() ? NoId : *std::prev(It);
}

/// The first activity on stream \p S issued at or after \p T, or NoId.
uint32_t firstIssuedFrom(const Context &C, uint32_t S, int64_t T) {
  const std::vector<uint32_t> &On = C.StreamActivities[S];
  auto It = std::partition_point(On.begin(), On.end(),
                                 [&](uint32_t A) { return C.IssueNs[A] < T; });
  return It == On.end() ? NoId : *It;
}

bool isBlocking(const ApiCall &Call, const GpuActivity &Act) {
  return (Call.Kind == ApiKind::Memcpy || Call.Kind == ApiKind::Memset) &&
         Act.StartNs >= Call.StartNs && Act.EndNs <= Call.EndNs;
}

} // namespace

void lowering::addLaunchEdges(Context &C) {
  const TraceModel &M = C.M;
  for (uint32_t A = 0; A != M.Activities.size(); ++A) {
    uint32_t Call = C.ActivityCall[A];
    if (Call == NoId)
      continue;
    TaskId CallTask = C.CallTask[Call], ActTask = C.ActivityTask[A];
    TaskId Rest = C.CallRest[Call];
    if (Rest != NoId) {
      // Split call: its first part launched the work; a blocking call's
      // rest waits for it.
      C.addEdge(CallTask, ActTask, EdgeKind::Launch, Recorded);
      if (isBlocking(M.Calls[Call], M.Activities[A])) {
        C.addEdge(ActTask, Rest, EdgeKind::Sync, Recorded);
        ++C.Stats.SyncEdges;
      }
    } else if (isBlocking(M.Calls[Call], M.Activities[A])) {
      // The call staged the work while it ran: the delay from before the
      // call to the work is the call's time, kept whole.
      C.addEdge(C.G.prevOnLane(CallTask), ActTask, EdgeKind::Launch, Recorded);
      C.addEdge(ActTask, CallTask, EdgeKind::Sync, Recorded);
      C.markCpuPaced(ActTask);
      ++C.Stats.SyncEdges;
    } else {
      C.addEdge(CallTask, ActTask, EdgeKind::Launch, Recorded);
    }
    ++C.Stats.LaunchEdges;
  }
}

void lowering::addSyncEdges(Context &C) {
  const TraceModel &M = C.M;
  llvm::DenseMap<uint32_t, const SyncRecord *> RecordOf;
  for (const SyncRecord &R : M.Syncs)
    if (R.Kind != ApiKind::StreamWaitEvent)
      RecordOf.try_emplace(R.Correlation, &R);

  auto Link = [&](uint32_t Act, TaskId Sync, uint8_t Doubt) {
    if (Act == NoId)
      return;
    C.addEdge(C.ActivityTask[Act], Sync, EdgeKind::Sync, Doubt);
    ++C.Stats.SyncEdges;
  };
  for (uint32_t I = 0; I != M.Calls.size(); ++I) {
    const ApiCall &Call = M.Calls[I];
    if (C.CallRoot[I] != I ||
        (Call.Kind != ApiKind::DeviceSync && Call.Kind != ApiKind::StreamSync &&
         Call.Kind != ApiKind::EventSync))
      continue;
    TaskId Task = C.CallTask[I];
    auto Rec = RecordOf.find(Call.Correlation);
    const SyncRecord *R = Rec == RecordOf.end() ? nullptr : Rec->second;

    if (Call.Kind == ApiKind::DeviceSync) {
      // Everything issued before the call, on every stream of the device.
      for (uint32_t S = 0; S != M.Streams.size(); ++S)
        if (!R || R->Device < 0 || M.Streams[S].Device == R->Device)
          Link(lastIssuedBefore(C, S, Call.StartNs), Task, Recorded);
      continue;
    }
    if (R && Call.Kind == ApiKind::StreamSync && R->Stream >= 0) {
      uint32_t S = M.findStream(R->Device, R->Stream);
      if (S != NoId)
        Link(lastIssuedBefore(C, S, Call.StartNs), Task, Recorded);
      continue;
    }
    if (R && Call.Kind == ApiKind::EventSync) {
      // The event's work: what its stream had been given when it was
      // recorded. No record id means the event was never recorded.
      auto Recd = C.CallByCorrelation.find(R->EventRecordCorrelation);
      uint32_t S = M.findStream(R->Device, R->WaitOnStream);
      if (R->EventRecordCorrelation && Recd != C.CallByCorrelation.end() &&
          S != NoId)
        Link(lastIssuedBefore(C, S, M.Calls[Recd->second].StartNs), Task,
             Recorded);
      continue;
    }
    // No record: the call waited for the work whose end is the latest one
    // issued before it and ending while it ran.
    uint32_t Best = NoId;
    for (uint32_t S = 0; S != M.Streams.size(); ++S) {
      uint32_t A = lastIssuedBefore(C, S, Call.StartNs);
      if (A == NoId)
        continue;
      int64_t End = M.Activities[A].EndNs;
      if (End >= Call.StartNs && End <= Call.EndNs + C.Opts.InferToleranceNs &&
          (Best == NoId || End > M.Activities[Best].EndNs))
        Best = A;
    }
    Link(Best, Task, Heuristic);
  }
}

void lowering::addCrossStreamEdges(Context &C) {
  const TraceModel &M = C.M;
  for (const SyncRecord &R : M.Syncs) {
    if (R.Kind != ApiKind::StreamWaitEvent || !R.EventRecordCorrelation)
      continue;
    auto Wait = C.CallByCorrelation.find(R.Correlation);
    auto Recd = C.CallByCorrelation.find(R.EventRecordCorrelation);
    uint32_t Waiting = M.findStream(R.Device, R.Stream);
    uint32_t Waited = M.findStream(R.Device, R.WaitOnStream);
    if (Wait == C.CallByCorrelation.end() ||
        Recd == C.CallByCorrelation.end() || Waiting == NoId || Waited == NoId)
      continue;
    uint32_t Src = lastIssuedBefore(C, Waited, M.Calls[Recd->second].StartNs);
    uint32_t Dst = firstIssuedFrom(C, Waiting, M.Calls[Wait->second].StartNs);
    if (Src == NoId || Dst == NoId)
      continue;
    C.addEdge(C.ActivityTask[Src], C.ActivityTask[Dst], EdgeKind::CrossStream,
              Recorded);
    ++C.Stats.CrossStreamEdges;
  }
}
