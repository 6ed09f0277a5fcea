//===- DataParallel.cpp - What ddp-insert and p3 share --------------------===//
//
// See DataParallel.h.
//
//===----------------------------------------------------------------------===//

#include "DataParallel.h"

using namespace dd;
using namespace dd::dataparallel;

void dataparallel::declareOptions(PassOptionParser &P, Options &O) {
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

llvm::Error dataparallel::optionError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

llvm::Error dataparallel::validateOptions(const Options &O) {
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

uint64_t dataparallel::mbToBytes(double Mb) {
  return uint64_t(std::llround(Mb * BytesPerMb));
}

std::string dataparallel::formatMb(uint64_t Bytes) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << llvm::format("%.1f MB", double(Bytes) / BytesPerMb);
  return OS.str();
}

double dataparallel::ringGbps(const Graph &G, const Options &O) {
  if (O.Gbps > 0)
    return O.Gbps;
  if (const GpuSpec *S = findGraphGpu(G))
    return S->LinkGBps;
  return FallbackGbps;
}

int64_t dataparallel::ringAllReduceNs(uint64_t Bytes, int64_t Gpus, double Gbps,
                                      double LatencyUs) {
  double N = double(Gpus);
  double TransferNs = 2 * (N - 1) / N * double(Bytes) / Gbps;
  double LatencyNs = 2 * (N - 1) * LatencyUs * 1000;
  return std::llround(TransferNs + LatencyNs);
}

bool dataparallel::isStreamWork(TaskKind K) {
  return K == TaskKind::Kernel || K == TaskKind::Memcpy ||
         K == TaskKind::Memset;
}

std::vector<int64_t> dataparallel::stepClock(const Graph &G) {
  std::vector<int64_t> Clock(G.numTaskSlots());
  for (TaskId T = 0; T != G.numTaskSlots(); ++T)
    Clock[T] = G.task(T).StartNs;
  for (const Edge &E : G.edgeSlots())
    if (E.Kind == EdgeKind::Launch && G.isLive(E) &&
        !isGpuWork(G.task(E.Src).Kind))
      Clock[E.Dst] = G.task(E.Src).StartNs;
  return Clock;
}

std::vector<TaskId> dataparallel::weightKernels(const Graph &G,
                                                KernelClassifier &KC,
                                                llvm::ArrayRef<TaskId> Work,
                                                Phase P) {
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

TrainingStep dataparallel::describeStep(const Graph &G, KernelClassifier &KC,
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

std::vector<TrainingStep> dataparallel::findSteps(const Graph &G) {
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

llvm::Expected<std::vector<TrainingStep>>
dataparallel::findTrainingSteps(const Graph &G) {
  std::vector<TrainingStep> Steps = findSteps(G);
  for (const TrainingStep &S : Steps)
    if (!S.Backward.empty())
      return std::move(Steps);
  return optionError("the graph has no backward-phase GPU kernels; a "
                     "data-parallel model needs a training trace");
}

std::vector<TaskId> dataparallel::barrierConsumers(const TrainingStep &S) {
  if (!S.Optimizer.empty())
    return S.Optimizer;
  if (S.AfterBackward != NoId)
    return {S.AfterBackward};
  return {};
}

std::vector<uint64_t> dataparallel::splitBytes(const Graph &G,
                                               llvm::ArrayRef<TaskId> Kernels,
                                               uint64_t Total,
                                               bool ByDuration) {
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

std::vector<Bucket> dataparallel::makeBuckets(llvm::ArrayRef<uint64_t> Bytes,
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

LaneId dataparallel::commLane(Graph &G, llvm::StringRef Name, LaneOrder Order,
                              TaskId Producer) {
  const Lane &GpuLane = G.lane(G.task(Producer).Lane);
  int32_t Device = GpuLane.Device, Rank = GpuLane.Rank;
  LaneId L = findOrAddLane(G, LaneKind::CommChannel, Name, Device, Order);
  G.lane(L).Order = Order;
  if (G.lane(L).Rank < 0)
    G.lane(L).Rank = Rank;
  return L;
}

TaskId dataparallel::insertAllReduce(Graph &G, LaneId Lane, TaskId Producer,
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
