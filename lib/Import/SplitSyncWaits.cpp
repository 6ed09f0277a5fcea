//===- SplitSyncWaits.cpp - What a synchronizing call did after its wait --===//
//
// A synchronizing call (a synchronize, a blocking copy, a launch that
// waited for room in the queue) has a sync edge from the GPU work it waited
// for, and the simulator ends it no earlier than that work. What the call
// did after the work ended is CPU time all the same: a blocking copy to
// pageable memory copies the data out of its staging buffer, a synchronize
// wakes its thread. Kept as the call's own duration it would overlap the
// wait (the simulator ends a call at the later of its start plus its
// duration and the end of what it waits for), and a replay would lose it.
// So where it is at least LoweringOptions::SyncRestNs, the call is split
// where the work ended: the call keeps the wait, and "<name> (after wait)"
// follows it on the lane with the rest; what depended on the call's end
// depends on the rest's. Shorter rests (a synchronize's 1-3 us) are left
// to the call's duration, as before.
//
//===----------------------------------------------------------------------===//

#include "LoweringContext.h"

#include <algorithm>

using namespace dd;
using namespace dd::import;
using namespace dd::import::lowering;

void lowering::splitSyncWaits(Context &C) {
  Graph &G = C.G;
  size_t N = G.numTaskSlots();
  // When what each task waits for ends (latest, as recorded).
  std::vector<int64_t> WaitEnd(N, INT64_MIN);
  bool Any = false;
  for (const PendingEdge &E : C.Edges)
    if (E.Kind == EdgeKind::Sync) {
      WaitEnd[E.Dst] = std::max(WaitEnd[E.Dst], C.RecordedEnd[E.Src]);
      Any = true;
    }
  if (!Any)
    return;
  std::vector<TaskId> RestOf;
  for (TaskId T = 0; T != N; ++T) {
    const Task &Tk = G.task(T);
    if (WaitEnd[T] <= Tk.StartNs ||
        C.RecordedEnd[T] - WaitEnd[T] < C.Opts.SyncRestNs)
      continue;
    Task Rest = Tk;
    Rest.Name =
        C.M.Strings.intern((C.M.Strings.get(Tk.Name) + " (after wait)").str());
    Rest.Correlation = 0;
    Rest.StartNs = WaitEnd[T];
    Rest.DurationNs = C.RecordedEnd[T] - WaitEnd[T];
    if (RestOf.empty())
      RestOf.assign(N, NoId);
    RestOf[T] = G.insertTaskAfter(T, Rest);
    C.RecordedEnd.push_back(C.RecordedEnd[T]);
    C.RecordedEnd[T] = WaitEnd[T];
    ++C.Stats.SyncWaitsSplit;
  }
  if (RestOf.empty())
    return;
  for (PendingEdge &E : C.Edges)
    if (RestOf[E.Src] != NoId)
      E.Src = RestOf[E.Src];
}
