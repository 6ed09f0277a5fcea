//===- LoweringContext.h - State shared by the lowering steps ---*- C++ -*-===//
//
// The lowering runs as a few passes over sorted event arrays (calls per
// thread, activities per stream); this is the state they hand each other.
// Private to lib/Import.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_IMPORT_LOWERINGCONTEXT_H
#define DAYDREAM_LIB_IMPORT_LOWERINGCONTEXT_H

#include "daydream/IR/Graph.h"
#include "daydream/Import/Lowering.h"
#include "daydream/Import/TraceModel.h"

#include "llvm/ADT/DenseMap.h"

#include <vector>

namespace dd::import::lowering {

/// A stretch of a CPU range's self time: [StartNs, EndNs) of range Range.
struct SelfPiece {
  int64_t StartNs, EndNs;
  uint32_t Range;
};

struct PendingEdge {
  TaskId Src, Dst;
  EdgeKind Kind;
  /// Which edge to drop first if edges form a cycle: the highest.
  uint8_t Doubt;
};

/// How sure the lowering is of an edge (the Doubt of PendingEdge).
enum : uint8_t { Recorded = 0, Heuristic = 1, Inferred = 2 };

struct Context {
  TraceModel &M;
  const LoweringOptions &Opts;
  LoweringStats &Stats;
  Graph G;

  /// For each call (M.Calls, sorted by thread and start): the call it was
  /// merged into when nested inside another call on its thread, else itself.
  std::vector<uint32_t> CallRoot;
  /// Layer and phase of each call.
  std::vector<LayerId> CallLayer;
  std::vector<Phase> CallPhase;
  /// The innermost range enclosing each root call (the op that launched
  /// its work), NoId if none.
  std::vector<uint32_t> CallRange;
  /// Per range (M.Ranges, sorted by thread and start; NoId, Other and the
  /// recorded end for ProfilerSteps): its layer, the chain of ranges
  /// enclosing it with itself innermost; its phase; and its end, clipped to
  /// its parent's where it overlapped the parent without nesting in it.
  std::vector<LayerId> RangeLayer;
  std::vector<Phase> RangePhase;
  std::vector<int64_t> RangeEnd;
  /// The range each range nests in, NoId for a thread's outermost.
  std::vector<uint32_t> RangeParent;
  /// The self time of the ranges: where a range is the innermost on its
  /// thread and no call runs, split at its thread's step boundaries; sorted
  /// by thread, then start. Each becomes a cpu-op task.
  std::vector<SelfPiece> Pieces;
  /// Whether each thread (M.Threads) is an autograd engine's (its first
  /// range is a backward node; Attribution.cpp).
  std::vector<char> AutogradThread;
  /// The lane of each thread (M.Threads), NoId for threads without one.
  std::vector<LaneId> ThreadLane;
  /// Task of each root call / activity.
  std::vector<TaskId> CallTask, ActivityTask;
  /// A call whose GPU work started well before the call returned is split
  /// where the work started (see buildTasks): CallTask is then the part up
  /// to that point, which launches the work, and CallRest the remainder;
  /// NoId for calls not split.
  std::vector<TaskId> CallRest;
  /// What the trace says of each activity's arithmetic (KernelFacts.cpp):
  /// its DType, and the FLOPs and bytes of its share of its op's work (0
  /// where unknown).
  std::vector<DType> ActivityDType;
  std::vector<double> ActivityFlops, ActivityBytes;
  /// Launching call of each activity (a root call), or NoId.
  std::vector<uint32_t> ActivityCall;
  /// Root call by correlation id.
  llvm::DenseMap<uint32_t, uint32_t> CallByCorrelation;
  /// Activities of each stream in stream order (indices into M.Activities).
  std::vector<std::vector<uint32_t>> StreamActivities;
  /// The time each activity was issued: its launching call's start, or its
  /// own start when no call launched it. Non-decreasing along a stream.
  std::vector<int64_t> IssueNs;
  /// Recorded end of every task, indexed by TaskId (durations of
  /// synchronizing calls are shortened later; the recorded end stays here).
  std::vector<int64_t> RecordedEnd;
  std::vector<PendingEdge> Edges;
  /// GPU work whose delay after what it depends on is CPU time, kept whole
  /// as its gap (computeGaps): the work of a blocking copy not split
  /// (staged by its call, which started after its launch edge's source)
  /// and work given an inferred launch. Indexed by TaskId; empty or short
  /// where none.
  std::vector<char> CpuPacedWork;
  void markCpuPaced(TaskId T) {
    if (CpuPacedWork.size() <= T)
      CpuPacedWork.resize(G.numTaskSlots(), 0);
    CpuPacedWork[T] = 1;
  }
  int64_t T0 = 0;

  Context(TraceModel &M, const LoweringOptions &Opts, LoweringStats &Stats)
      : M(M), Opts(Opts), Stats(Stats) {}

  void addEdge(TaskId Src, TaskId Dst, EdgeKind K, uint8_t Doubt) {
    if (Src != NoId && Dst != NoId && Src != Dst)
      Edges.push_back(PendingEdge{Src, Dst, K, Doubt});
  }
};

/// Sorts the events and links calls and activities by correlation.
void indexEvents(Context &C);
/// Layers and phases of ranges, and of calls from the ranges enclosing
/// them.
void attribute(Context &C);
/// The precision of each kernel, from its name or its op's input types,
/// and its share of its op's FLOPs and bytes (KernelFacts.cpp).
void findKernelFacts(Context &C);
/// The ranges' self time as pieces (SelfTime.cpp).
void findSelfTime(Context &C);
/// Self time that was a wait for another thread, cut off its piece
/// (HandOverWaits.cpp).
void cutHandOverWaits(Context &C);
/// Creates lanes, tasks (with marker tasks at iteration starts) and
/// iterations.
void buildTasks(Context &C);
/// Launch edges for GPU work whose launch the trace does not record
/// (InferredLaunches.cpp).
void inferLaunches(Context &C);
/// Launch, sync, cross-stream and cross-thread edges.
void addLaunchEdges(Context &C);
void addSyncEdges(Context &C);
void addCrossStreamEdges(Context &C);
/// Edges read off the timing where the trace records no cause.
void addCrossStreamInferred(Context &C);
void addBlockedCallsInferred(Context &C);
void addCrossThreadEdges(Context &C);
/// Splits synchronizing calls where what they waited for ended, if they
/// went on long after (SplitSyncWaits.cpp).
void splitSyncWaits(Context &C);
/// Gaps of CPU tasks, counted from when each became ready.
void computeGaps(Context &C);
/// Adds the pending edges to the graph, dropping the most doubtful edge of
/// any cycle until none is left.
llvm::Error commitEdges(Context &C);

} // namespace dd::import::lowering

#endif // DAYDREAM_LIB_IMPORT_LOWERINGCONTEXT_H
