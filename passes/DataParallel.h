//===- DataParallel.h - What ddp-insert and p3 share ------------*- C++ -*-===//
//
// Both passes turn a single-GPU training trace into one rank of a
// data-parallel job: they find each training step's backward kernels, give
// them the model's gradient bytes, group those into buckets the way PyTorch
// DDP does, and time each all-reduce with the ring model. They differ only in
// how a bucket goes on the wire (whole, or in prioritized slices) and in what
// waits for it. Header-only so that the two pass files can share it without a
// new library target.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_PASSES_DATAPARALLEL_H
#define DAYDREAM_PASSES_DATAPARALLEL_H

#include "daydream/IR/Graph.h"
#include "daydream/Pass/PassOptions.h"
#include "daydream/Transforms/GpuSpecs.h"
#include "daydream/Transforms/KernelClass.h"
#include "daydream/Transforms/Primitives.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"

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

inline void declareOptions(PassOptionParser &P, Options &O) {
  P.add("params-mb", O.ParamsMb,
        "gradient MiB per step, i.e. the model's trainable parameter bytes "
        "(required)");
  P.add("bucket-mb", O.BucketMb, "bucket size cap in MiB (DDP bucket_cap_mb)");
  P.add("first-bucket-mb", O.FirstBucketMb,
        "cap of the first bucket in MiB (DDP's 1 MiB); 0: same as bucket-mb");
  P.add("gpus", O.Gpus, "data-parallel ranks in the ring (1: insert nothing)");
  P.add("gbps", O.Gbps,
        "ring link bandwidth in GB/s; 0: the graph GPU's per-GPU link, else "
        "100");
  P.add("latency-us", O.LatencyUs, "latency of one ring step in us");
  P.add("split", O.Split,
        "how gradient bytes spread over backward GEMM/conv kernels: "
        "duration|even");
}

inline llvm::Error optionError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// Bounds that keep every byte count and duration within 64 bits.
constexpr double MaxMb = 1e9;
constexpr double MinGbps = 1e-3;
constexpr int64_t MaxGpus = 1000000;
constexpr double MaxLatencyUs = 1e9;

inline llvm::Error validateOptions(const Options &O) {
  if (O.ParamsMb > MaxMb || O.BucketMb > MaxMb || O.FirstBucketMb > MaxMb)
    return optionError("params-mb, bucket-mb and first-bucket-mb must be at "
                       "most 1e9 (MiB)");
  if (O.Gpus > MaxGpus)
    return optionError("gpus must be at most 1000000");
  if (O.Gbps > 0 && O.Gbps < MinGbps)
    return optionError("gbps must be 0 (from the GPU) or at least 0.001");
  if (O.LatencyUs > MaxLatencyUs)
    return optionError("latency-us must be at most 1e9");
  if (!(O.ParamsMb > 0))
    return optionError("params-mb= is required and must be positive: the "
                       "trace does not record parameter sizes (ResNet-50 "
                       "in fp32: params-mb=97.5)");
  if (!(O.BucketMb > 0))
    return optionError("bucket-mb must be positive");
  if (O.FirstBucketMb < 0)
    return optionError("first-bucket-mb must not be negative");
  if (O.Gpus < 1)
    return optionError("gpus must be at least 1");
  if (O.Gbps < 0)
    return optionError("gbps must not be negative");
  if (O.LatencyUs < 0)
    return optionError("latency-us must not be negative");
  if (O.Split != "duration" && O.Split != "even")
    return optionError("split must be 'duration' or 'even', not '" + O.Split +
                       "'");
  return llvm::Error::success();
}

inline uint64_t mbToBytes(double Mb) {
  return uint64_t(std::llround(Mb * BytesPerMb));
}

/// "25.0 MB": the size in MiB with one decimal, as names show it.
inline std::string formatMb(uint64_t Bytes) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << llvm::format("%.1f MB", double(Bytes) / BytesPerMb);
  return OS.str();
}

/// The bandwidth option, or the per-GPU link of the GPU the trace ran on.
inline double ringGbps(const Graph &G, const Options &O) {
  if (O.Gbps > 0)
    return O.Gbps;
  if (const GpuSpec *S = findGraphGpu(G))
    return S->LinkGBps;
  return FallbackGbps;
}

/// Ring all-reduce (Patarasuk and Yuan): a reduce-scatter and an all-gather
/// of n-1 steps each move 2(n-1)/n of the data over every link, and each of
/// the 2(n-1) steps pays the link latency once. Bytes / (GB/s) is ns.
inline int64_t ringAllReduceNs(uint64_t Bytes, int64_t Gpus, double Gbps,
                               double LatencyUs) {
  double N = double(Gpus);
  double TransferNs = 2 * (N - 1) / N * double(Bytes) / Gbps;
  double LatencyNs = 2 * (N - 1) * LatencyUs * 1000;
  return std::llround(TransferNs + LatencyNs);
}

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

inline bool isStreamWork(TaskKind K) {
  return K == TaskKind::Kernel || K == TaskKind::Memcpy ||
         K == TaskKind::Memset;
}

/// When each task's step began: a kernel launched late in one step may run
/// after the next step's marker, so GPU work counts from its launch.
inline std::vector<int64_t> stepClock(const Graph &G) {
  std::vector<int64_t> Clock(G.numTaskSlots());
  for (TaskId T = 0; T != G.numTaskSlots(); ++T)
    Clock[T] = G.task(T).StartNs;
  for (const Edge &E : G.edgeSlots())
    if (E.Kind == EdgeKind::Launch && G.isLive(E) &&
        !isGpuWork(G.task(E.Src).Kind))
      Clock[E.Dst] = G.task(E.Src).StartNs;
  return Clock;
}

/// Weight-carrying kernels of one phase: GEMMs and convolutions, or, where a
/// step has none (an unrecognised library), every kernel of the phase.
inline std::vector<TaskId> weightKernels(const Graph &G, KernelClassifier &KC,
                                         llvm::ArrayRef<TaskId> Work, Phase P) {
  std::vector<TaskId> All, Weights;
  for (TaskId T : Work) {
    if (G.task(T).Kind != TaskKind::Kernel || G.task(T).Phase != P)
      continue;
    All.push_back(T);
    if (isComputeBound(KC.classOf(T)))
      Weights.push_back(T);
  }
  return Weights.empty() ? All : Weights;
}

/// What the passes need of one step's GPU work \p Work (in start order);
/// \p FollowingTask is the first GPU task after the step, or NoId.
inline TrainingStep describeStep(const Graph &G, KernelClassifier &KC,
                                 llvm::ArrayRef<TaskId> Work,
                                 TaskId FollowingTask) {
  TrainingStep S;
  S.Backward = weightKernels(G, KC, Work, Phase::Backward);
  S.Forward = weightKernels(G, KC, Work, Phase::Forward);
  size_t LastBackward = Work.size();
  for (size_t I = 0; I != Work.size(); ++I)
    if (G.task(Work[I]).Kind == TaskKind::Kernel &&
        G.task(Work[I]).Phase == Phase::Backward)
      LastBackward = I;
  if (LastBackward == Work.size())
    return S;
  // An optimizer-phase task before backward is zero_grad, not the step.
  std::vector<bool> LaneSeen(G.numLanes(), false);
  for (TaskId T : Work.drop_front(LastBackward + 1))
    if (G.task(T).Phase == Phase::Optimizer && !LaneSeen[G.task(T).Lane]) {
      LaneSeen[G.task(T).Lane] = true;
      S.Optimizer.push_back(T);
    }
  S.AfterBackward =
      LastBackward + 1 < Work.size() ? Work[LastBackward + 1] : FollowingTask;
  return S;
}

/// The steps of \p G in time order, one per graph iteration (all of it, if
/// it has none); GPU work belongs to the iteration that launched it.
inline std::vector<TrainingStep> findSteps(const Graph &G) {
  std::vector<int64_t> Clock = stepClock(G);
  std::vector<int64_t> Starts;
  for (const Iteration &I : G.iterations())
    Starts.push_back(I.StartNs);
  llvm::sort(Starts);
  std::vector<std::tuple<size_t, int64_t, TaskId>> Work;
  for (TaskId T = 0; T != G.numTaskSlots(); ++T)
    if (G.isLive(T) && isStreamWork(G.task(T).Kind))
      Work.emplace_back(llvm::upper_bound(Starts, Clock[T]) - Starts.begin(),
                        G.task(T).StartNs, T);
  llvm::sort(Work);

  KernelClassifier KC(G);
  std::vector<TrainingStep> Steps;
  std::vector<TaskId> StepWork;
  for (size_t I = 0; I != Work.size(); ++I) {
    StepWork.push_back(std::get<2>(Work[I]));
    bool StepEnds = I + 1 == Work.size() ||
                    std::get<0>(Work[I + 1]) != std::get<0>(Work[I]);
    if (!StepEnds)
      continue;
    TaskId Following = I + 1 == Work.size() ? NoId : std::get<2>(Work[I + 1]);
    Steps.push_back(describeStep(G, KC, StepWork, Following));
    StepWork.clear();
  }
  return Steps;
}

/// The steps of \p G; an error if none has backward kernels, since a
/// data-parallel model of an inference trace would communicate nothing.
inline llvm::Expected<std::vector<TrainingStep>>
findTrainingSteps(const Graph &G) {
  std::vector<TrainingStep> Steps = findSteps(G);
  for (const TrainingStep &S : Steps)
    if (!S.Backward.empty())
      return std::move(Steps);
  return optionError("the graph has no backward-phase GPU kernels; a "
                     "data-parallel model needs a training trace");
}

/// What waits for every all-reduce of a step in synchronous data
/// parallelism: its optimizer, or whatever the GPU does next.
inline std::vector<TaskId> barrierConsumers(const TrainingStep &S) {
  if (!S.Optimizer.empty())
    return S.Optimizer;
  if (S.AfterBackward != NoId)
    return {S.AfterBackward};
  return {};
}

/// Spreads \p Total bytes over \p Kernels, in proportion to duration or
/// evenly, rounding the running sum so the shares add up to \p Total.
inline std::vector<uint64_t> splitBytes(const Graph &G,
                                        llvm::ArrayRef<TaskId> Kernels,
                                        uint64_t Total, bool ByDuration) {
  std::vector<double> Weight;
  double Sum = 0;
  for (TaskId T : Kernels) {
    Weight.push_back(ByDuration ? double(G.task(T).DurationNs) : 1.0);
    Sum += Weight.back();
  }
  if (Sum <= 0) {
    Weight.assign(Kernels.size(), 1.0);
    Sum = double(Kernels.size());
  }
  std::vector<uint64_t> Bytes;
  double Running = 0;
  uint64_t Given = 0;
  for (double W : Weight) {
    Running += W;
    uint64_t Upto = uint64_t(std::llround(double(Total) * Running / Sum));
    Upto = std::min(std::max(Upto, Given), Total);
    Bytes.push_back(Upto - Given);
    Given = Upto;
  }
  if (!Bytes.empty())
    Bytes.back() += Total - Given;
  return Bytes;
}

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
inline std::vector<Bucket> makeBuckets(llvm::ArrayRef<uint64_t> Bytes,
                                       uint64_t FirstCap, uint64_t Cap) {
  std::vector<Bucket> Buckets;
  uint64_t Open = 0, Produced = 0;
  for (size_t I = 0; I != Bytes.size(); ++I) {
    Open += Bytes[I];
    Produced += Bytes[I];
    uint64_t Limit = Buckets.empty() && FirstCap > 0 ? FirstCap : Cap;
    if (Open > 0 && (Open >= Limit || I + 1 == Bytes.size())) {
      Buckets.push_back(Bucket{I, Open, Produced});
      Open = 0;
    }
  }
  return Buckets;
}

/// The communication lane on the GPU (and rank) of \p Producer.
inline LaneId commLane(Graph &G, llvm::StringRef Name, LaneOrder Order,
                       TaskId Producer) {
  const Lane &GpuLane = G.lane(G.task(Producer).Lane);
  int32_t Device = GpuLane.Device, Rank = GpuLane.Rank;
  LaneId L = findOrAddLane(G, LaneKind::CommChannel, Name, Device, Order);
  G.lane(L).Order = Order;
  if (G.lane(L).Rank < 0)
    G.lane(L).Rank = Rank;
  return L;
}

/// Appends an all-reduce to \p Lane that starts once \p Producer's gradients
/// exist and holds back \p Consumers. Cross-stream edges, since that is how
/// DDP orders its NCCL stream against the compute stream (CUDA events).
inline TaskId insertAllReduce(Graph &G, LaneId Lane, TaskId Producer,
                              uint64_t Bytes, llvm::StringRef Name,
                              int64_t DurationNs,
                              llvm::ArrayRef<TaskId> Consumers) {
  const Task &P = G.task(Producer);
  Task T;
  T.StartNs = P.StartNs + P.DurationNs;
  T.DurationNs = DurationNs;
  T.Name = G.intern(Name);
  T.Kind = TaskKind::Collective;
  T.Phase = Phase::Backward;
  T.Flags = TF_Synthetic;
  TaskId Id = insertTask(G, T, Lane, NoId, {Producer}, Consumers,
                         EdgeKind::CrossStream);
  TaskAttrs A;
  A.Bytes = Bytes;
  G.setAttrs(Id, A);
  return Id;
}

} // namespace dataparallel
} // namespace dd

#endif // DAYDREAM_PASSES_DATAPARALLEL_H
