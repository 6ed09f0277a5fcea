//===- Simulator.cpp - simulate(): pick an engine, summarize --------------===//
//
// The entry point of the simulator. It finds the time origin, runs a linear
// engine when every lane is InOrder (one pass, the common case after any pass
// that does not reorder work; the sweep engine when slot order is already
// topological) and the event-driven engine otherwise, then
// derives lane, makespan and iteration results from the simulated times in
// one more pass (Summary.cpp). The timing model itself is documented in
// Simulator.h.
//
//===----------------------------------------------------------------------===//

#include "Replay.h"

#include "daydream/IR/CanonicalOrder.h"
#include "daydream/IR/Graph.h"
#include "daydream/Sim/SchedulingPolicy.h"
#include "daydream/Sim/Simulator.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <limits>
#include <memory>

using namespace dd;
using namespace dd::sim;

TaskTimeObserver::~TaskTimeObserver() = default;

static int64_t timeOrigin(const Graph &G) {
  if (G.numTasks() == 0)
    return 0;
  const bool AllLive = G.numTasks() == G.numTaskSlots();
  int64_t T0 = std::numeric_limits<int64_t>::max();
  llvm::ArrayRef<Task> Tasks = G.taskSlots();
  for (TaskId T = 0, N = Tasks.size(); T != N; ++T)
    if (AllLive || G.isLive(T))
      T0 = std::min(T0, Tasks[T].StartNs);
  return T0;
}

static bool isIdentity(llvm::ArrayRef<TaskId> Order, size_t NumSlots) {
  if (Order.size() != NumSlots)
    return false;
  for (TaskId I = 0; I != NumSlots; ++I)
    if (Order[I] != I)
      return false;
  return true;
}

/// Runs an engine that fills R.Start, R.End and R.OriginNs; sets \p
/// Summarized if it filled the rest of \p R as well.
static llvm::Error runEngine(const Graph &G, const SimOptions &Opts,
                             SimResult &R, bool &Summarized) {
  bool AnyPriorityLane = llvm::any_of(G.lanes(), [](const Lane &L) {
    return L.Order == LaneOrder::ByPriority;
  });

  if (!AnyPriorityLane && !Opts.ForceEventDriven) {
    // A given order other than slot order is followed (and checked) as
    // given; slot order itself needs no order array at all.
    if (!Opts.Order || isIdentity(*Opts.Order, G.numTaskSlots())) {
      if (!Opts.TaskTimes &&
          replayWindowed(G, R, Opts.Observer, Opts.CriticalPath) &&
          (!Opts.Observer || R.Observed)) {
        R.Engine = SimEngine::Windowed;
        Summarized = true;
        return llvm::Error::success();
      }
      // Otherwise the times are kept, for the caller to measure what an
      // observer or the critical path did not.
      R = SimResult();
      if (replaySweep(G, R, Opts.LaneAndIterationResults)) {
        R.Engine = SimEngine::Sweep;
        Summarized = true;
        return llvm::Error::success();
      }
    }
    R = SimResult();
    R.OriginNs = timeOrigin(G);
    if (Opts.Order)
      return replayLinear(G, *Opts.Order, R.OriginNs, R.Start, R.End);
    llvm::Expected<CanonicalOrder> C = computeCanonicalOrder(G);
    if (!C)
      return C.takeError();
    return replayLinear(G, C->Order, R.OriginNs, R.Start, R.End);
  }

  R.OriginNs = timeOrigin(G);
  R.Engine = SimEngine::EventDriven;
  // The policy is consulted only for tasks on ByPriority lanes; preparing it
  // otherwise would be wasted work.
  std::unique_ptr<SchedulingPolicy> Default;
  SchedulingPolicy *Policy = Opts.Policy;
  if (AnyPriorityLane) {
    if (!Policy) {
      Default = createRecordedOrderPolicy();
      Policy = Default.get();
    }
    Policy->prepare(G);
  }
  return replayEvents(G, Policy, R.OriginNs, R.Start, R.End);
}

llvm::StringRef dd::engineName(SimEngine E) {
  switch (E) {
  case SimEngine::Windowed:
    return "windowed sweep";
  case SimEngine::Sweep:
    return "sweep";
  case SimEngine::Linear:
    return "linear";
  case SimEngine::EventDriven:
    return "event-driven";
  case SimEngine::DistributedWindowed:
    return "distributed windowed sweep";
  case SimEngine::DistributedSweep:
    return "distributed sweep";
  case SimEngine::DistributedLinear:
    return "distributed linear";
  case SimEngine::DistributedShares:
    return "distributed windowed sweep of shares";
  }
  llvm_unreachable("unknown engine");
}

llvm::Expected<SimResult> dd::simulate(const Graph &G, const SimOptions &Opts) {
  SimResult R;
  bool Summarized = false;
  if (llvm::Error Err = runEngine(G, Opts, R, Summarized))
    return std::move(Err);
  if (!Summarized)
    summarize(G, R);
  return std::move(R);
}
