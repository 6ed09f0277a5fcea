//===- Lowering.h - From trace events to a dependency graph -----*- C++ -*-===//
//
// The one place where dependencies are decided, whatever the trace format
// (Daydream, section 3, and the rules in docs/Import.md):
//   - program order on each CPU thread and stream order on each GPU stream
//     are lane order;
//   - a launch edge from each runtime call to the GPU work it launched, by
//     correlation id;
//   - sync edges into synchronizing calls (device, stream and event
//     synchronize, blocking copies) from the GPU work they waited for;
//   - cross-stream edges from cudaStreamWaitEvent records, or inferred from
//     timing where the trace has none;
//   - cross-thread edges where a thread resumed right after another thread's
//     work (the autograd thread and the main thread hand over this way);
//   - sync edges into calls that blocked on GPU work without saying so (a
//     launch waiting for room in a full launch queue);
//   - the self time of every CPU op and annotation (its time not covered by
//     a range or call inside it) as cpu-op tasks, less what was a wait for
//     another thread's work;
//   - untraced CPU time (no event covers it) as each CPU task's gap, counted
//     from when the task became ready, so a replay with no pass reproduces
//     the trace; GPU work keeps only the GPU's scheduling latency (a few
//     microseconds) as gap;
//   - launches inferred for GPU work the trace left without one;
//   - layers from the CPU op and annotation ranges enclosing each call, and
//     phases (forward, backward, optimizer) from their names and from where
//     their thread is in its step;
//   - iterations from ProfilerStep ranges, with a marker task at each start.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IMPORT_LOWERING_H
#define DAYDREAM_IMPORT_LOWERING_H

#include "daydream/IR/Graph.h"
#include "daydream/Import/TraceModel.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dd::import {

struct LoweringOptions {
  /// Add sync edges into synchronizing calls. Off only to show what they
  /// contribute (docs/Accuracy.md): the calls still get their modelled
  /// durations, what is left of them once the work they waited for ended,
  /// but nothing makes them wait.
  bool SyncEdges = true;
  /// Add cross-stream edges (recorded or inferred). Off only for the same
  /// ablation.
  bool CrossStreamEdges = true;
  /// Infer cross-stream and cross-thread edges from timing where the trace
  /// records none.
  bool InferDependencies = true;
  /// How close (ns) an end must be to a start to count as its cause when
  /// inferring.
  int64_t InferToleranceNs = 5000;
  /// A CPU task whose thread was idle at least this long (ns) before it is
  /// checked for a cross-thread cause.
  int64_t ThreadIdleNs = 50000;
  /// GPU work that started at most this long (ns) after it could (after its
  /// launch and its stream's previous work) keeps the delay as its gap: the
  /// GPU's scheduling latency between back-to-back work.
  int64_t GpuLatencyNs = 5000;
  /// A call lasting at least this long (ns) that returned right when
  /// earlier GPU work ended is taken to have waited for it (a full launch
  /// queue); typical launches take 5-10 us.
  int64_t BlockedCallNs = 50000;
  /// A call whose GPU work started at least this long (ns) before the call
  /// returned is split in two where the work started, so the work can start
  /// before the call ends (a pageable copy is staged while the call runs).
  int64_t SplitCallNs = 10000;
  /// A synchronizing call that went on at least this long (ns) after the
  /// work it waited for ended is split there, so that the replay keeps what
  /// it did after the wait (SplitSyncWaits.cpp); a synchronize's own
  /// wake-up, 1-3 us, stays in its duration.
  int64_t SyncRestNs = 5000;
  /// The time every lane is free from, if earlier than the trace's first
  /// task: the job's first task when the ranks of a job are lowered one by
  /// one, so that the gap before each rank's first task on a lane counts
  /// from the job's start, as the simulator's time origin does.
  int64_t OriginNs = INT64_MAX;
};

/// What the lowering did, for the importer's summary line and for tests.
struct LoweringStats {
  uint64_t Tasks = 0, Edges = 0, Lanes = 0, Iterations = 0;
  uint64_t LaunchEdges = 0, SyncEdges = 0, CrossStreamEdges = 0;
  uint64_t InferredCrossStream = 0, InferredCrossThread = 0;
  uint64_t InferredBlockedCalls = 0;  ///< calls found waiting for GPU work
  uint64_t UnmatchedActivities = 0;   ///< GPU work with no launching call
  uint64_t DuplicateCorrelations = 0; ///< calls sharing a correlation id
  uint64_t NestedCalls = 0;           ///< calls inside calls, merged
  uint64_t SplitCalls = 0;            ///< calls split where their work began
  uint64_t OverlappingTasks = 0; ///< tasks overlapping their lane predecessor
  uint64_t CyclesBroken = 0;     ///< edges dropped to break cycles
  /// cpu-op tasks: the self time of CPU ops, annotations and modules (the
  /// time inside a range not covered by a range or call within it), and of
  /// how many ranges.
  uint64_t CpuOpTasks = 0, CpuOpRanges = 0;
  /// Ranges that overlapped a range they start in without nesting in it,
  /// clipped to its end; ranges that run across a step boundary on the
  /// step's thread, whose self time is split there. The first of each.
  uint64_t ClippedRanges = 0, RangesAcrossSteps = 0;
  std::string ClippedNote, AcrossStepsNote;
  /// Self time cut where it was a wait for another thread's work
  /// (HandOverWaits.cpp).
  uint64_t HandOverWaits = 0;
  /// GPU work without a launch given one on the thread that launches its
  /// stream's work, and the launch latency that placed it (the trace's
  /// median; -1 if none was needed).
  uint64_t InferredLaunches = 0;
  /// Synchronizing calls split where the work they waited for ended.
  uint64_t SyncWaitsSplit = 0;
  int64_t LaunchLatencyNs = -1;
  /// What was dropped to break cycles (the first few).
  std::vector<std::string> CycleNotes;
};

/// Lowers \p M into a graph. Consumes the model (its strings move into the
/// graph). Errors only when the trace has nothing to lower.
llvm::Expected<Graph> lowerTrace(TraceModel &&M, const LoweringOptions &Opts,
                                 LoweringStats &Stats);

} // namespace dd::import

#endif // DAYDREAM_IMPORT_LOWERING_H
