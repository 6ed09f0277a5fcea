//===- DataParallel.h - What ddp-insert and p3 share ------------*- C++ -*-===//
//
// Both passes turn a single-GPU training trace into one rank of a
// data-parallel job: they find each training step's backward kernels, give
// them the model's gradient bytes, group those into buckets the way PyTorch
// DDP does, and time each all-reduce with the ring model. They differ only in
// how a bucket goes on the wire (whole, or in prioritized slices) and in what
// waits for it.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_PASSES_DATAPARALLEL_H
#define DAYDREAM_PASSES_DATAPARALLEL_H

#include "daydream/Device/GpuSpecs.h"
#include "daydream/IR/Graph.h"
#include "daydream/Pass/PassOptions.h"
#include "daydream/Transforms/KernelClass.h"
#include "daydream/Transforms/Primitives.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

namespace dd {
namespace dataparallel {

/// PyTorch's bucket_cap_mb counts MiB; every "-mb" option here does too.
constexpr double BytesPerMb = 1024.0 * 1024.0;
/// Ring bandwidth when neither gbps= nor the graph's GPU says: a 100 GB/s
/// link, between PCIe 5 x16 and one NVLink generation.
constexpr double FallbackGbps = 100.0;

struct Options {
  double ParamsMb = 0;
  double BucketMb = 25;
  double FirstBucketMb = 1;
  int64_t Gpus = 8;
  double Gbps = 0;
  double LatencyUs = 5;
  std::string Split = "duration";
};

void declareOptions(PassOptionParser &P, Options &O);

/// Bounds that keep every byte count and duration within 64 bits.
constexpr double MaxMb = 1e9;
constexpr double MinGbps = 1e-3;
constexpr int64_t MaxGpus = 1000000;
constexpr double MaxLatencyUs = 1e9;
/// The most all-reduces (buckets, or p3's slices) one backward pass may be
/// cut into: each is a task on every rank and iteration, so more is work
/// and memory without bound (params-mb=1e9 in 4 MiB slices is 2.5e8 tasks
/// a step); real jobs have tens to thousands.
constexpr double MaxAllReduces = 1e6;

llvm::Error validateOptions(const Options &O);

uint64_t mbToBytes(double Mb);

/// The model's parameter bytes: params-mb= where given, else what the
/// trace records (ParameterSizes.h); an error naming params-mb= if neither.
llvm::Expected<uint64_t> parameterBytes(const Graph &G, const Options &O);

/// The size in tenths of a MiB, rounded as printf's "%.1f" rounds (to
/// nearest, ties to even), so that names can be keyed by what they show.
uint64_t mbTenths(uint64_t Bytes);

/// "25.0 MB": the size in MiB with one decimal, as names show it.
std::string formatMb(uint64_t Bytes);

/// "ncclAllReduce (bucket 2, 25.0 MB)", or with \p NumSlices > 0
/// "ncclAllReduce (bucket 2 slice 1/7, 4.0 MB)" for 0-based \p Slice.
std::string allReduceName(size_t Bucket, size_t Slice, size_t NumSlices,
                          uint64_t Bytes);

/// Interns each distinct all-reduce name once. The names of a bucket repeat
/// from step to step, since sizes show only to 0.1 MiB; formatting and
/// interning one per inserted task would cost more than inserting it.
class AllReduceNames {
public:
  /// The id of allReduceName(Bucket, Slice, NumSlices, Bytes).
  StrId get(Graph &G, size_t Bucket, size_t Slice, size_t NumSlices,
            uint64_t Bytes);

private:
  llvm::DenseMap<std::tuple<uint64_t, uint64_t, uint64_t, uint64_t>, StrId> Ids;
};

/// The bandwidth option, or the per-GPU link of the GPU the trace ran on.
double ringGbps(const Graph &G, const Options &O);

/// Ring all-reduce (Patarasuk and Yuan): a reduce-scatter and an all-gather
/// of n-1 steps each move 2(n-1)/n of the data over every link, and each of
/// the 2(n-1) steps pays the link latency once. Bytes / (GB/s) is ns. The
/// network model's ring on one node (daydream/Comm/NetworkModel.h).
int64_t ringAllReduceNs(uint64_t Bytes, int64_t Gpus, double Gbps,
                        double LatencyUs);

/// One training step of the trace, as the passes need it.
struct TrainingStep {
  /// Backward kernels that stand for weight gradients, in the order they ran.
  std::vector<TaskId> Backward;
  /// Forward kernels that read weights, in the order they ran.
  std::vector<TaskId> Forward;
  /// The first optimizer-phase GPU task after backward, one per GPU lane.
  std::vector<TaskId> Optimizer;
  /// The first GPU task after backward, for steps without an optimizer.
  TaskId AfterBackward = NoId;
};

bool isStreamWork(TaskKind K);

/// The steps of \p G in time order, one per graph iteration (all of it, if
/// it has none); GPU work belongs to the iteration that launched it, since
/// a kernel launched late in one step may run after the next step's marker.
/// Backward and forward keep their weight-carrying kernels: GEMMs and
/// convolutions, or, where a step has none (an unrecognised library), every
/// kernel of the phase.
std::vector<TrainingStep> findSteps(const Graph &G);

/// The steps of \p G; an error if none has backward kernels, since a
/// data-parallel model of an inference trace would communicate nothing.
llvm::Expected<std::vector<TrainingStep>> findTrainingSteps(const Graph &G);

/// What waits for every all-reduce of a step in synchronous data
/// parallelism: its optimizer, or whatever the GPU does next.
/// The result points into \p S.
llvm::ArrayRef<TaskId> barrierConsumers(const TrainingStep &S);

/// Spreads \p Total bytes over \p Kernels, in proportion to duration or
/// evenly, rounding the running sum so the shares add up to \p Total.
std::vector<uint64_t> splitBytes(const Graph &G, llvm::ArrayRef<TaskId> Kernels,
                                 uint64_t Total, bool ByDuration);

/// A bucket: the kernels' gradients it holds end with kernel index Last.
struct Bucket {
  size_t Last = 0;
  uint64_t Bytes = 0;
  /// Gradient bytes produced up to and including this bucket.
  uint64_t EndBytes = 0;
};

/// DDP's rule (compute_bucket_assignment_by_size): gradients join the open
/// bucket in the order backward produces them, and it closes once it holds
/// at least its cap; the first bucket's cap is smaller so that communication
/// starts early.
std::vector<Bucket> makeBuckets(llvm::ArrayRef<uint64_t> Bytes,
                                uint64_t FirstCap, uint64_t Cap);

/// The communication lane on the GPU (and rank) of \p Producer.
LaneId commLane(Graph &G, llvm::StringRef Name, LaneOrder Order,
                TaskId Producer);

/// Appends an all-reduce to \p Lane that starts once \p Producer's gradients
/// exist and holds back \p Consumers. Cross-stream edges, since that is how
/// DDP orders its NCCL stream against the compute stream (CUDA events).
TaskId insertAllReduce(Graph &G, LaneId Lane, TaskId Producer, uint64_t Bytes,
                       StrId Name, int64_t DurationNs,
                       llvm::ArrayRef<TaskId> Consumers);

} // namespace dataparallel
} // namespace dd

#endif // DAYDREAM_PASSES_DATAPARALLEL_H
