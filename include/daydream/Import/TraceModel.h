//===- TraceModel.h - Trace events, before dependencies ---------*- C++ -*-===//
//
// What every importer front-end (Kineto JSON, Nsight Systems SQLite, and
// dd-trace's CUPTI records) extracts from its format: CPU ranges, API
// calls, GPU activities, synchronization records, iteration ranges, memory
// events and device metadata, in flat arrays, with names interned in the
// string table the graph will own. Front-ends only read; one lowering
// (Lowering.h) turns any TraceModel into a Graph with the same dependency,
// layer and phase rules, whatever the source format.
//
// Times are integer nanoseconds on the trace's clock. Front-ends need not
// sort anything: the lowering does.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IMPORT_TRACEMODEL_H
#define DAYDREAM_IMPORT_TRACEMODEL_H

#include "daydream/IR/StringTable.h"
#include "daydream/IR/Types.h"

#include "llvm/ADT/DenseMap.h"

#include <cstdint>
#include <vector>

namespace dd::import {

/// A CPU thread of the traced process: (process id, thread id).
struct ThreadInfo {
  int64_t Pid = 0;
  int64_t Tid = 0;
  StrId Name = NoId; ///< thread name if the trace gives one, else NoId
};

/// A GPU stream: (device, stream id).
struct StreamInfo {
  int32_t Device = 0;
  int64_t Stream = 0;
  StrId Name = NoId;
};

/// What a CPU range is; it decides how the lowering uses it.
enum class RangeKind : uint8_t {
  Op,         ///< cpu_op / Operator: attribution and layers
  Annotation, ///< user_annotation, NVTX range: attribution and layers
  Module,     ///< an nn.Module frame: attribution and layers
  Step,       ///< ProfilerStep#N: an iteration, not a layer
};

/// A named CPU time range on one thread (ops nest).
struct CpuRange {
  int64_t StartNs = 0;
  int64_t EndNs = 0;
  uint32_t Thread = 0; ///< index into TraceModel::Threads
  StrId Name = NoId;
  RangeKind Kind = RangeKind::Op;
  /// The op's "Input Dims" and "Input type" as the trace wrote them
  /// (`[[3, 224, 224], []]`, `["float", "Scalar"]`), NoId where not
  /// recorded (record_shapes off). Kept as the notes `input-dims` and
  /// `input-types` of the op's first cpu-op task.
  StrId InputDims = NoId;
  StrId InputTypes = NoId;
};

/// What a runtime or driver API call does, as far as dependencies go.
enum class ApiKind : uint8_t {
  Other,           ///< no GPU work, no waiting (cudaGetDevice, ...)
  Launch,          ///< launches a kernel (cudaLaunchKernel, cuLaunchKernel,
                   ///< hipLaunchKernel)
  Memcpy,          ///< starts a copy; blocking or not is decided from timing
  Memset,          ///< starts a memset
  DeviceSync,      ///< cudaDeviceSynchronize: waits for all work on the device
  StreamSync,      ///< cudaStreamSynchronize: waits for one stream
  EventSync,       ///< cudaEventSynchronize: waits for one recorded event
  EventRecord,     ///< cudaEventRecord: marks a point in a stream
  StreamWaitEvent, ///< cudaStreamWaitEvent: a stream waits for an event
};

/// A runtime/driver API call on a CPU thread.
struct ApiCall {
  int64_t StartNs = 0;
  int64_t EndNs = 0;
  uint32_t Thread = 0; ///< index into TraceModel::Threads
  StrId Name = NoId;
  uint32_t Correlation = 0; ///< 0 if none
  ApiKind Kind = ApiKind::Other;
};

/// A kernel, copy, set or collective on a GPU stream.
struct GpuActivity {
  int64_t StartNs = 0;
  int64_t EndNs = 0;
  uint32_t Stream = 0; ///< index into TraceModel::Streams
  StrId Name = NoId;
  uint32_t Correlation = 0; ///< the launching call's correlation, 0 if none
  TaskKind Kind = TaskKind::Kernel;
  bool HasAttrs = false;
  TaskAttrs Attrs;
  /// A collective's process group as the trace names it (Kineto's
  /// "Process Group Name", or "Process Group ID" in older traces) and its
  /// members as written ("[0, 2]"); NoId where not recorded, which means
  /// the whole world. The lowering keeps both as the kernel's notes
  /// `group` and `group-ranks`; the job's importer parses and checks them.
  StrId Group = NoId;
  StrId GroupRanks = NoId;
  /// Kineto's "Group size" of a collective kernel (2024+ traces), 0 where
  /// not recorded; kept as the note `group-size`, which the job's importer
  /// checks against the ranks it matches the collective across.
  int64_t GroupSize = 0;
};

/// What a synchronization record (Kineto cuda_sync, CUPTI
/// SYNCHRONIZATION) says a call waited for. Optional: without one the
/// lowering infers the dependency from timing.
struct SyncRecord {
  uint32_t Correlation = 0; ///< the synchronizing (or waiting) call
  ApiKind Kind = ApiKind::Other;
  int32_t Device = -1;
  int64_t Stream = -1;       ///< the stream synchronized, or the waiting stream
  int64_t WaitOnStream = -1; ///< the stream whose event is waited for
  uint32_t EventRecordCorrelation = 0; ///< the cudaEventRecord waited for
};

/// An allocation (Bytes > 0) or free (Bytes < 0).
struct MemoryRecord {
  int64_t TimeNs = 0;
  int64_t Bytes = 0;
  int64_t TotalAllocated = -1;
  int64_t TotalReserved = -1;
  uint64_t Address = 0;
  int32_t Device = -1; ///< -1 for host memory
  uint32_t Thread = 0;
};

/// Counts of what a front-end read and what it passed over, for the
/// one-line summary and for tests.
struct ImportStats {
  uint64_t Events = 0;        ///< events read
  uint64_t SkippedPython = 0; ///< python_function events left out
  uint64_t SkippedOther = 0;  ///< events of categories not used
  uint64_t MissingFields = 0; ///< events lacking a required field
  uint64_t InvalidFields = 0; ///< events whose field holds what cannot be
                              ///< (a memory event of zero bytes)
  uint64_t Pieces = 0; ///< documents a piece-wise parse cut the trace into;
                       ///< 0 if parsed whole (KinetoOptions::PieceBytes)
  uint64_t TracerOverheadNs = 0; ///< CPU time the tracer itself took
                                 ///< (CUPTI OVERHEAD records; dd-trace)
  uint64_t DroppedRecords = 0;   ///< records the tracer lost (no buffer free)
};

struct TraceModel {
  Metadata Meta;
  StringTable Strings;
  std::vector<ThreadInfo> Threads;
  std::vector<StreamInfo> Streams;
  std::vector<CpuRange> Ranges;
  std::vector<ApiCall> Calls;
  std::vector<GpuActivity> Activities;
  std::vector<SyncRecord> Syncs;
  std::vector<MemoryRecord> Memory;
  ImportStats Stats;
  /// What the front-end passed over and why, one line each, already naming
  /// the file (the importer prints them as warnings).
  std::vector<std::string> Warnings;

  /// Index of thread (Pid, Tid), adding it if new. O(1) amortized.
  uint32_t thread(int64_t Pid, int64_t Tid);
  /// Index of stream (Device, Stream), adding it if new.
  uint32_t stream(int32_t Device, int64_t Stream);
  /// Index of stream \p Stream on \p Device (any device if negative), or
  /// NoId; adds nothing.
  uint32_t findStream(int32_t Device, int64_t Stream) const;

private:
  llvm::DenseMap<std::pair<int64_t, int64_t>, uint32_t> ThreadIndex,
      StreamIndex;
};

/// Classifies a runtime/driver API by name (CUDA runtime, driver and HIP
/// spellings).
ApiKind classifyApi(llvm::StringRef Name);

} // namespace dd::import

#endif // DAYDREAM_IMPORT_TRACEMODEL_H
