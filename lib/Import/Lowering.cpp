//===- Lowering.cpp - From trace events to a dependency graph -------------===//
//
// Runs the lowering steps in order and adds the edges to the graph, breaking
// any dependency cycle by dropping its most doubtful edge (an inferred one
// before a heuristic one before a recorded one) with a note naming the
// events. Cycles only arise from inconsistent traces (clock skew, reused
// correlation ids); breaking them keeps the import going, never loops.
// The tasks end up numbered in canonical order, so that writing the graph
// does not order it again.
//
//===----------------------------------------------------------------------===//

#include "LoweringContext.h"
#include "daydream/IR/CanonicalOrder.h"
#include "daydream/IR/TaskFieldBounds.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace dd;
using namespace dd::import;
using namespace dd::import::lowering;

/// Cycles broken before the lowering gives up (each costs linear passes).
static constexpr unsigned MaxCyclesBroken = 1000;

llvm::Error lowering::commitEdges(Context &C) {
  Graph &G = C.G;
  // Left out on request (an ablation): the edges were still found, so
  // synchronizing calls keep their modelled durations; nothing makes them
  // wait.
  std::vector<char> Dropped(C.Edges.size(), 0);
  for (size_t I = 0; I != C.Edges.size(); ++I)
    Dropped[I] =
        (C.Edges[I].Kind == EdgeKind::Sync && !C.Opts.SyncEdges) ||
        (C.Edges[I].Kind == EdgeKind::CrossStream && !C.Opts.CrossStreamEdges);
  for (unsigned Round = 0;; ++Round) {
    G.clearEdges();
    for (size_t I = 0; I != C.Edges.size(); ++I)
      if (!Dropped[I])
        G.addEdge(C.Edges[I].Src, C.Edges[I].Dst, C.Edges[I].Kind);
    // The canonical order doubles as the cycle check; numbering the tasks
    // by it spares the writer from computing it again.
    llvm::Expected<CanonicalOrder> Order = computeCanonicalOrder(G);
    if (Order) {
      if (!Order->IsIdentity)
        G.permuteTasks(Order->NewId);
      return llvm::Error::success();
    }
    llvm::consumeError(Order.takeError());
    std::vector<TaskId> Cycle = findCycle(G);
    if (Round == MaxCyclesBroken)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "more than %u dependency cycles; the trace is inconsistent",
          MaxCyclesBroken);
    // The most doubtful edge between consecutive tasks of the cycle.
    size_t Worst = C.Edges.size();
    for (size_t K = 0; K != Cycle.size(); ++K) {
      TaskId From = Cycle[K], To = Cycle[(K + 1) % Cycle.size()];
      for (size_t I = 0; I != C.Edges.size(); ++I)
        if (!Dropped[I] && C.Edges[I].Src == From && C.Edges[I].Dst == To &&
            (Worst == C.Edges.size() ||
             C.Edges[I].Doubt > C.Edges[Worst].Doubt))
          Worst = I;
    }
    if (Worst == C.Edges.size())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "dependency cycle through lane order "
          "alone at '%s'",
          G.str(G.task(Cycle.front()).Name).str().c_str());
    Dropped[Worst] = 1;
    ++C.Stats.CyclesBroken;
    const PendingEdge &E = C.Edges[Worst];
    if (C.Stats.CycleNotes.size() < 10)
      C.Stats.CycleNotes.push_back(
          llvm::formatv("dropped {0} edge '{1}' (start {2} ns) -> '{3}' "
                        "(start {4} ns) to break a dependency cycle",
                        toString(E.Kind), G.str(G.task(E.Src).Name),
                        G.task(E.Src).StartNs, G.str(G.task(E.Dst).Name),
                        G.task(E.Dst).StartNs)
              .str());
  }
}

/// The first event whose times lie outside what a graph may hold
/// (TaskFieldBounds.h): a time more than 2^61 ns from the epoch, or a trace
/// whose events span more than 2^60 ns, since every duration and gap the
/// lowering forms is at most that span. Beyond those a time is garbage, and
/// the lowering's sums (an end plus a tolerance) could overflow.
static llvm::Error checkTimes(const TraceModel &M) {
  auto Out = [](int64_t T) { return !validStartNs(T); };
  auto Fail = [](const char *What, int64_t T) {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "%s at %lld ns: times beyond 2^61 ns from the epoch are not "
        "supported",
        What, static_cast<long long>(T));
  };
  int64_t First = INT64_MAX, Last = INT64_MIN;
  auto Span = [&](int64_t A, int64_t B) {
    First = std::min({First, A, B});
    Last = std::max({Last, A, B});
  };
  for (const CpuRange &R : M.Ranges) {
    if (Out(R.StartNs) || Out(R.EndNs))
      return Fail("a CPU range", Out(R.StartNs) ? R.StartNs : R.EndNs);
    Span(R.StartNs, R.EndNs);
  }
  for (const ApiCall &C : M.Calls) {
    if (Out(C.StartNs) || Out(C.EndNs))
      return Fail("an API call", Out(C.StartNs) ? C.StartNs : C.EndNs);
    Span(C.StartNs, C.EndNs);
  }
  for (const GpuActivity &A : M.Activities) {
    if (Out(A.StartNs) || Out(A.EndNs))
      return Fail("GPU work", Out(A.StartNs) ? A.StartNs : A.EndNs);
    Span(A.StartNs, A.EndNs);
  }
  for (const MemoryRecord &R : M.Memory)
    if (Out(R.TimeNs))
      return Fail("a memory event", R.TimeNs);
  // Both ends are within +-2^61, so the difference fits.
  if (First <= Last && Last - First > MaxTaskNs)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the trace's events span %lld ns (from %lld to %lld ns), past the "
        "limit of 2^60 ns",
        static_cast<long long>(Last - First), static_cast<long long>(First),
        static_cast<long long>(Last));
  return llvm::Error::success();
}

/// The trace's rank must be one of its world (distributedInfo), as the
/// graph's verifier requires.
static llvm::Error checkRanks(const TraceModel &M) {
  for (const RankInfo &R : M.Meta.Ranks)
    if (R.WorldSize > 0 && R.Rank >= R.WorldSize)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "rank %d is outside its world of %d (distributedInfo)", R.Rank,
          R.WorldSize);
  return llvm::Error::success();
}

/// Whether the built tasks' durations and gaps add up to what a graph may
/// hold (MaxTotalNs): each is within the trace's span, but many lanes of
/// long tasks can still add up past it.
static llvm::Error checkTotalTime(const Graph &G) {
  TimeTotal Total;
  for (TaskId T = 0, E = G.numTasks(); T != E; ++T)
    if (!Total.add(G.task(T)))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "the trace's task durations and gaps add up to more than 2^61 ns "
          "(at task %u of %u)",
          unsigned(T), unsigned(E));
  return llvm::Error::success();
}

/// Declares, without properties, each device that lanes or memory events
/// name but the trace's metadata left out (a trace listing some of its GPUs),
/// so that the graph states every device it uses (the verifier's rule).
/// A front-end's second declaration of an index, or one of a negative index
/// (a damaged file's; the Kineto reader counts them), is dropped: the
/// verifier allows one declaration a device.
static void declareUsedDevices(Graph &G) {
  std::vector<Device> &Devices = G.metadata().Devices;
  if (Devices.empty())
    return;
  llvm::SmallDenseSet<int64_t, 8> Known;
  llvm::erase_if(Devices, [&](const Device &D) {
    return D.Index < 0 || !Known.insert(D.Index).second;
  });
  auto Declare = [&](int32_t Index) {
    if (Index >= 0 && Known.insert(Index).second) {
      Device D;
      D.Index = Index;
      Devices.push_back(D);
    }
  };
  for (LaneId L = 0; L != G.numLanes(); ++L)
    Declare(G.lane(L).Device);
  for (const MemoryEvent &E : G.memoryEvents())
    Declare(E.Device);
}

/// Correlation ids the lowering's hash maps reserve (DenseMap's empty and
/// tombstone keys) are taken as no correlation: no tracer issues them, so
/// only garbage holds them.
static void dropReservedCorrelations(TraceModel &M) {
  auto Fix = [](uint32_t &Corr) {
    // ~0U is DenseMapInfo<unsigned>'s empty key, ~0U - 1 its tombstone.
    if (Corr >= ~0U - 1)
      Corr = 0;
  };
  for (ApiCall &Call : M.Calls)
    Fix(Call.Correlation);
  for (GpuActivity &A : M.Activities)
    Fix(A.Correlation);
  for (SyncRecord &R : M.Syncs) {
    Fix(R.Correlation);
    Fix(R.EventRecordCorrelation);
  }
}

/// Whether \p M has anything the lowering makes tasks of: API calls, GPU
/// work, or CPU ranges (a CPU-only trace).
static bool hasWork(const TraceModel &M) {
  if (!M.Calls.empty() || !M.Activities.empty())
    return true;
  for (const CpuRange &R : M.Ranges)
    if (R.Kind != RangeKind::Step && R.EndNs > R.StartNs)
      return true;
  return false;
}

llvm::Expected<Graph> dd::import::lowerTrace(TraceModel &&M,
                                             const LoweringOptions &Opts,
                                             LoweringStats &Stats) {
  if (!hasWork(M)) {
    // Say what was read instead, so that a trace whose every event was
    // passed over tells why.
    const ImportStats &S = M.Stats;
    std::string Why;
    if (S.Events)
      Why = (llvm::Twine(" (") + llvm::Twine(S.Events) + " events read: " +
             llvm::Twine(S.SkippedPython) + " python_function and " +
             llvm::Twine(S.SkippedOther) + " of other kinds passed over, " +
             llvm::Twine(S.MissingFields) + " lacking a required field, " +
             llvm::Twine(S.InvalidFields) + " holding an invalid one)")
                .str();
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "no API calls, GPU activity or CPU operators to import" + Why);
  }
  if (llvm::Error E = checkTimes(M))
    return std::move(E);
  if (llvm::Error E = checkRanks(M))
    return std::move(E);
  dropReservedCorrelations(M);
  Context C(M, Opts, Stats);
  indexEvents(C);
  attribute(C);
  findKernelFacts(C);
  findSelfTime(C);
  cutHandOverWaits(C);
  buildTasks(C);
  addLaunchEdges(C);
  inferLaunches(C);
  addSyncEdges(C);
  addCrossStreamEdges(C);
  addCrossStreamInferred(C);
  addBlockedCallsInferred(C);
  addCrossThreadEdges(C);
  splitSyncWaits(C);
  computeGaps(C);
  Graph &G = C.G;
  if (llvm::Error E = checkTotalTime(G))
    return std::move(E);
  G.metadata() = std::move(M.Meta);
  G.strings() = std::move(M.Strings);
  declareUsedDevices(G);
  if (llvm::Error E = commitEdges(C))
    return std::move(E);

  Stats.Tasks = G.numTasks();
  Stats.Edges = G.countLiveEdges();
  Stats.Lanes = G.numLanes();
  Stats.CpuOpTasks = C.Pieces.size();
  return std::move(G);
}
