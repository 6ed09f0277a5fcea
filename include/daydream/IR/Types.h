//===- Types.h - Value types of the in-memory trace graph ------*- C++ -*-===//
//
// The plain structs that the in-memory Graph stores in flat arrays, and the
// enums that classify lanes, tasks and edges. They mirror the FlatBuffers
// schema (lib/IR/ddir.fbs) field for field, so loading and writing are
// straight copies; static_asserts in lib/IR/BinaryReader.cpp keep the enum
// values in step with the schema.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IR_TYPES_H
#define DAYDREAM_IR_TYPES_H

#include "llvm/ADT/Optional.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dd {

using TaskId = uint32_t;
using LaneId = uint32_t;
using StrId = uint32_t;
using LayerId = uint32_t;
using AttrId = uint32_t;

/// The "no such index" value of every id type.
constexpr uint32_t NoId = ~0u;

enum class LaneKind : uint8_t { CpuThread = 0, GpuStream = 1, CommChannel = 2 };

/// How a lane picks its next task. InOrder lanes run their tasks in the
/// recorded order; ByPriority lanes run whichever ready task the simulator's
/// scheduling policy ranks first.
enum class LaneOrder : uint8_t { InOrder = 0, ByPriority = 1 };

enum class TaskKind : uint8_t {
  CpuOp = 0,
  Runtime = 1,
  Kernel = 2,
  Memcpy = 3,
  Memset = 4,
  Sync = 5,
  Collective = 6,
  Marker = 7,
};

enum class Phase : uint8_t {
  Other = 0,
  Forward = 1,
  Backward = 2,
  Optimizer = 3
};

/// Edge kinds. All kinds but Sync are finish-to-start (the destination starts
/// after the source ends); Sync is finish-to-finish (the destination, a
/// synchronizing call, cannot end before the source ends).
enum class EdgeKind : uint8_t {
  ProgramOrder = 0,
  StreamOrder = 1,
  Launch = 2,
  Sync = 3,
  CrossStream = 4,
  Data = 5,
  Comm = 6,
};

constexpr unsigned NumLaneKinds = 3;
constexpr unsigned NumLaneOrders = 2;
constexpr unsigned NumTaskKinds = 8;
constexpr unsigned NumPhases = 4;

/// The element type a kernel computes in, as far as the trace tells
/// (Transforms/Precision.h reads it from names and op input types): it picks
/// the peak that bounds the kernel. TF32 is FP32 data on tensor cores.
enum class DType : uint8_t {
  Unknown = 0,
  FP64 = 1,
  FP32 = 2,
  TF32 = 3,
  FP16 = 4,
  BF16 = 5,
  FP8 = 6,
  INT8 = 7
};
constexpr unsigned NumDTypes = 8;
constexpr unsigned NumEdgeKinds = 7;

/// Bits of Task::Flags.
enum TaskFlags : uint16_t {
  /// Made by a pass rather than recorded: its times are modelled.
  TF_Synthetic = 1u << 0,
};
/// Every bit TaskFlags defines; the verifier refuses others.
constexpr uint16_t KnownTaskFlags = TF_Synthetic;

/// Direction of a memcpy (TaskAttrs::CopyKind), as CUPTI numbers them.
enum class CopyKind : uint8_t {
  Unknown = 0,
  HostToDevice = 1,
  DeviceToHost = 2,
  DeviceToDevice = 8,
  PeerToPeer = 10,
};

struct Task {
  int64_t StartNs = 0;
  int64_t DurationNs = 0;
  int64_t GapNs = 0;
  StrId Name = NoId;
  LaneId Lane = NoId;
  LayerId Layer = NoId;
  uint32_t Correlation = 0;
  AttrId Attrs = NoId;
  TaskKind Kind = TaskKind::CpuOp;
  dd::Phase Phase = dd::Phase::Other;
  uint16_t Flags = 0;
};

struct TaskAttrs {
  uint64_t Bytes = 0;
  uint64_t Flops = 0;
  uint32_t Grid[3] = {0, 0, 0};
  uint32_t Block[3] = {0, 0, 0};
  uint32_t SharedMemBytes = 0;
  uint16_t RegistersPerThread = 0;
  uint8_t CopyKind = 0;
  /// The DType of a kernel's arithmetic; 0 (unknown) for other tasks.
  uint8_t DType = 0;

  bool operator==(const TaskAttrs &O) const;
};

struct TaskNote {
  TaskId Task = NoId;
  StrId Key = NoId;
  StrId Value = NoId;
};

struct Edge {
  TaskId Src = NoId;
  TaskId Dst = NoId;
  EdgeKind Kind = EdgeKind::ProgramOrder;
};

struct Lane {
  int64_t NativeId = 0;
  StrId Name = NoId;
  int32_t Rank = -1;
  int32_t Device = -1;
  LaneKind Kind = LaneKind::CpuThread;
  LaneOrder Order = LaneOrder::InOrder;
};

struct Layer {
  StrId Name = NoId;
  LayerId Parent = NoId;
};

struct Iteration {
  int64_t StartNs = 0;
  /// The recorded duration, or -1 if the trace did not record one.
  int64_t MeasuredNs = -1;
  StrId Name = NoId;
  /// The rank whose step this is in a multi-rank job; -1 for a step of the
  /// whole graph (a single-rank trace). A task belongs only to iterations of
  /// its lane's rank, or to job-wide ones.
  int32_t Rank = -1;
};

/// What a block of memory holds: TBD's breakdown (Zhu et al., IISWC 2018),
/// see Analysis/MemoryBreakdown.h for how a recorded block is classified.
enum class MemoryCategory : uint8_t {
  Weights,
  WeightGradients,
  OptimizerState,
  Activations,
  Workspace,
  Other,
};
constexpr unsigned NumMemoryCategories = 6;
/// MemoryEvent::Category of an event classified by the breakdown's rules.
constexpr uint8_t CategoryByRule = 0xff;

/// Bits of MemoryEvent::Flags. A pass never changes a recorded event's
/// bytes or time: it adds modelled events and retires recorded ones, so
/// that the recording's own memory can still be told beside the what-if's.
enum MemoryEventFlags : uint8_t {
  /// Made by a pass: part of the what-if, not of the recording.
  MEF_Modelled = 1u << 0,
  /// Recorded, but not part of the what-if (a pass replaced it).
  MEF_Replaced = 1u << 1,
};
constexpr uint8_t KnownMemoryEventFlags = MEF_Modelled | MEF_Replaced;

/// An allocation (Bytes > 0) or free (Bytes < 0) at TimeNs, with the
/// allocator's running totals after it. Kept beside the tasks rather than as
/// tasks: it takes no time and orders nothing, so it has no place in the
/// dependency graph, only on the timeline.
struct MemoryEvent {
  int64_t TimeNs = 0;
  int64_t Bytes = 0;
  /// Running totals after the event, -1 if unknown.
  int64_t TotalAllocated = -1;
  int64_t TotalReserved = -1;
  uint64_t Address = 0;
  /// The CPU thread lane that allocated, or NoId if unknown.
  LaneId Lane = NoId;
  /// -1 for host memory.
  int32_t Device = -1;
  /// The task the event moves with, or NoId for a recorded event, which
  /// moves with the task around it on its lane in recorded time (the rule
  /// in MemoryBreakdown.h). Passes that make or move events name the task.
  TaskId Task = NoId;
  /// A MemoryCategory for a block a pass made or changed (its allocation
  /// names it), or CategoryByRule for the breakdown's rules.
  uint8_t Category = CategoryByRule;
  /// MemoryEventFlags.
  uint8_t Flags = 0;

  bool operator==(const MemoryEvent &O) const;
  bool operator!=(const MemoryEvent &O) const { return !(*this == O); }
};

/// A GPU (or other accelerator) the trace ran on. Zero means "not known".
struct Device {
  int32_t Index = 0;
  std::string Name;
  int32_t SmCount = 0;
  uint64_t MemoryBytes = 0;
  double PeakFp32Tflops = 0;
  double PeakFp16Tflops = 0;
  double PeakBf16Tflops = 0;
  double MemoryBandwidthGBps = 0;
};

struct RankInfo {
  int32_t Rank = 0;
  int32_t WorldSize = 0;
  std::string Host;
  /// -1, or the rank whose tasks this one shares: a rank stored as a copy
  /// has its own lanes and iterations but no tasks (RankCopies.h).
  int32_t CopyOf = -1;
};

/// One run of a pass pipeline that changed the graph (provenance): what a
/// report needs to say the graph is a prediction, and of what.
struct PipelineRun {
  /// The pipeline as `dd-opt -print-pipeline-passes` prints it.
  std::string Pipeline;
  /// The tool and its version ("dd-opt 0.1.0").
  std::string Tool;
  /// The input's file name as given ("<stdin>" for a pipe).
  std::string Input;
};

struct Metadata {
  std::string Producer;
  std::string SourceFormat;
  std::vector<Device> Devices;
  std::vector<RankInfo> Ranks;
  /// The pipelines that made this graph from the producer's, oldest first;
  /// empty for a graph as recorded.
  std::vector<PipelineRun> Pipelines;

  /// Whether a pipeline that changes graphs ran on this one: its times are
  /// then a prediction, compared with the recorded iterations as a change.
  bool isPrediction() const { return !Pipelines.empty(); }
};

/// Spellings used by the text form, the tools and the reports.
llvm::StringRef toString(LaneKind K);
llvm::StringRef toString(LaneOrder O);
llvm::StringRef toString(TaskKind K);
llvm::StringRef toString(Phase P);
llvm::StringRef toString(DType D);
llvm::StringRef toString(EdgeKind K);
/// "weights", "weight-gradients", "optimizer-state", "activations",
/// "workspace", "other".
llvm::StringRef toString(MemoryCategory C);

llvm::Optional<LaneKind> parseLaneKind(llvm::StringRef S);
llvm::Optional<LaneOrder> parseLaneOrder(llvm::StringRef S);
llvm::Optional<TaskKind> parseTaskKind(llvm::StringRef S);
llvm::Optional<Phase> parsePhase(llvm::StringRef S);
llvm::Optional<DType> parseDType(llvm::StringRef S);
llvm::Optional<EdgeKind> parseEdgeKind(llvm::StringRef S);
llvm::Optional<MemoryCategory> parseMemoryCategory(llvm::StringRef S);

/// True for tasks that run on a GPU (kernels, copies, sets, collectives).
bool isGpuWork(TaskKind K);

} // namespace dd

#endif // DAYDREAM_IR_TYPES_H
