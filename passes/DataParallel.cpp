//===- DataParallel.cpp - What ddp-insert and p3 share --------------------===//
//
// See DataParallel.h.
//
//===----------------------------------------------------------------------===//

#include "DataParallel.h"
#include "ParameterSizes.h"

#include "daydream/Comm/NetworkModel.h"
#include "daydream/IR/TaskFieldBounds.h"

#include "llvm/Support/FormatVariadic.h"

#include <limits>

using namespace dd;
using namespace dd::dataparallel;

void dataparallel::declareOptions(PassOptionParser &P, Options &O) {
  P.add("params-mb", O.ParamsMb,
        "gradient MiB per step, i.e. the model's trainable parameter bytes; "
        "0: from the trace's AccumulateGrad input shapes");
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
  if (!(O.ParamsMb >= 0))
    return optionError("params-mb must not be negative");
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
  if (O.ParamsMb / O.BucketMb > MaxAllReduces)
    return optionError("params-mb / bucket-mb is " +
                       llvm::formatv("{0:f0}", O.ParamsMb / O.BucketMb).str() +
                       " buckets; at most 1e6 are modelled");
  if (O.Split != "duration" && O.Split != "even")
    return optionError("split must be 'duration' or 'even', not '" + O.Split +
                       "'");
  return llvm::Error::success();
}

llvm::Expected<uint64_t> dataparallel::parameterBytes(const Graph &G,
                                                      const Options &O) {
  if (O.ParamsMb > 0)
    return mbToBytes(O.ParamsMb);
  if (llvm::Optional<RecordedParameters> P = recordedParameters(G))
    return P->Bytes;
  return optionError("params-mb= is required: the trace records no parameter "
                     "shapes (AccumulateGrad's input dims, recorded with "
                     "record_shapes=True); ResNet-50 in fp32: params-mb=97.5");
}

uint64_t dataparallel::mbToBytes(double Mb) {
  return uint64_t(std::llround(Mb * BytesPerMb));
}

uint64_t dataparallel::mbTenths(uint64_t Bytes) {
  // Integer arithmetic: a byte count in MiB is an exact binary fraction, so
  // a tie (k + 0.05 MiB) really is one and goes to even, as in printf.
  constexpr uint64_t Mb = uint64_t(BytesPerMb), Half = Mb / 2;
  uint64_t Scaled = Bytes * 10, Tenths = Scaled / Mb, Rest = Scaled % Mb;
  if (Rest > Half || (Rest == Half && Tenths % 2 == 1))
    ++Tenths;
  return Tenths;
}

std::string dataparallel::formatMb(uint64_t Bytes) {
  uint64_t Tenths = mbTenths(Bytes);
  return std::to_string(Tenths / 10) + "." + std::to_string(Tenths % 10) +
         " MB";
}

std::string dataparallel::allReduceName(size_t Bucket, size_t Slice,
                                        size_t NumSlices, uint64_t Bytes) {
  std::string Name = "ncclAllReduce (bucket " + std::to_string(Bucket);
  if (NumSlices > 0)
    Name +=
        " slice " + std::to_string(Slice + 1) + "/" + std::to_string(NumSlices);
  return Name + ", " + formatMb(Bytes) + ")";
}

StrId AllReduceNames::get(Graph &G, size_t Bucket, size_t Slice,
                          size_t NumSlices, uint64_t Bytes) {
  auto [It, New] =
      Ids.try_emplace({Bucket, Slice, NumSlices, mbTenths(Bytes)}, NoId);
  if (New)
    It->second = G.intern(allReduceName(Bucket, Slice, NumSlices, Bytes));
  return It->second;
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
  // The network model's ring on one level (docs/Network.md).
  comm::Topology Ring = comm::singleNode(Gpus, comm::Link{Gbps, LatencyUs});
  return roundNs(comm::collectiveTimeNs(comm::CollectiveKind::AllReduce,
                                        comm::Algorithm::Ring, double(Bytes),
                                        Gpus, Ring));
}

bool dataparallel::isStreamWork(TaskKind K) {
  return K == TaskKind::Kernel || K == TaskKind::Memcpy ||
         K == TaskKind::Memset;
}

namespace {

/// The step a clock reading falls in: how many iterations began at or
/// before it. Readings come mostly in time order, so the previous answer is
/// tried before a binary search.
class StepFinder {
public:
  explicit StepFinder(const Graph &G) {
    for (const Iteration &I : G.iterations())
      Starts.push_back(I.StartNs);
    llvm::sort(Starts);
  }

  size_t numSteps() const { return Starts.size() + 1; }

  uint32_t stepAt(int64_t Ns) {
    bool AfterStart = Last == 0 || Starts[Last - 1] <= Ns;
    bool BeforeNext = Last == Starts.size() || Ns < Starts[Last];
    if (!AfterStart || !BeforeNext)
      Last = uint32_t(llvm::upper_bound(Starts, Ns) - Starts.begin());
    return Last;
  }

private:
  std::vector<int64_t> Starts;
  uint32_t Last = 0;
};

/// What describing a step needs of a task, copied while the task is at
/// hand so that describing does not walk the task array again.
struct WorkItem {
  TaskId Id;
  Phase P;
  bool IsKernel;
  /// A GEMM or convolution of forward or backward.
  bool CarriesWeights;
};

/// Live GPU stream work grouped by step (a counting sort: steps are few),
/// in start order within a step, ties broken by id.
struct WorkBySteps {
  std::vector<WorkItem> Work;
  /// Step S's work is Work[Begin[S], Begin[S + 1]).
  std::vector<uint32_t> Begin;
};

/// Marks a task that several live launch edges reach.
constexpr TaskId SeveralLaunchers = NoId - 1;

/// The CPU task that launched each task, or NoId. One pass over the edges
/// that leaves the tasks they join alone (those are read in task order
/// later, while at hand); only tasks launched several times need a second
/// look, where the last edge from the CPU wins.
std::vector<TaskId> launchers(const Graph &G) {
  std::vector<TaskId> By(G.numTaskSlots(), NoId);
  bool Several = false;
  for (const Edge &E : G.edgeSlots())
    if (E.Kind == EdgeKind::Launch && G.isLive(E)) {
      Several |= By[E.Dst] != NoId;
      By[E.Dst] = By[E.Dst] == NoId ? E.Src : SeveralLaunchers;
    }
  if (!Several)
    return By;
  llvm::DenseMap<TaskId, TaskId> LastFromCpu;
  for (const Edge &E : G.edgeSlots())
    if (E.Kind == EdgeKind::Launch && G.isLive(E) &&
        By[E.Dst] == SeveralLaunchers && !isGpuWork(G.task(E.Src).Kind))
      LastFromCpu[E.Dst] = E.Src;
  for (TaskId &L : By)
    if (L == SeveralLaunchers)
      L = NoId;
  for (auto [Dst, Src] : LastFromCpu)
    By[Dst] = Src;
  return By;
}

/// When the step of GPU task \p T began: a kernel launched late in one
/// step may run after the next step's marker, so it counts from its launch.
int64_t stepClock(llvm::ArrayRef<Task> Tasks, TaskId T, TaskId Launcher) {
  if (Launcher != NoId && !isGpuWork(Tasks[Launcher].Kind))
    return Tasks[Launcher].StartNs;
  return Tasks[T].StartNs;
}

WorkItem describeWork(const Task &Tk, TaskId T, KernelClassifier &KC) {
  bool IsKernel = Tk.Kind == TaskKind::Kernel;
  bool Phased = Tk.Phase == Phase::Forward || Tk.Phase == Phase::Backward;
  return WorkItem{T, Tk.Phase, IsKernel,
                  IsKernel && Phased && isComputeBound(KC.classOf(T))};
}

WorkBySteps groupWorkBySteps(const Graph &G, KernelClassifier &KC) {
  StepFinder Finder(G);
  // Who launched task T, until the loop passes T; behind the loop, the step
  // of each work item so far (there are no more of them than tasks passed).
  std::vector<uint32_t> LauncherOrStep = launchers(G);
  WorkBySteps W;
  W.Begin.assign(Finder.numSteps() + 1, 0);
  // Work comes in id order, which is time order on each lane and, mostly,
  // step order: then it is already grouped, and a step needs sorting only
  // where its lanes interleave.
  std::vector<int64_t> LastStart(Finder.numSteps(),
                                 std::numeric_limits<int64_t>::min());
  std::vector<bool> Unsorted(Finder.numSteps(), false);
  bool Grouped = true;
  // Room for every task, of which only the work's share is ever touched.
  W.Work.reserve(G.numTaskSlots());
  llvm::ArrayRef<Task> Tasks = G.taskSlots();
  for (TaskId T = 0; T != Tasks.size(); ++T) {
    const Task &Tk = Tasks[T];
    if (!G.isLive(T) || !isStreamWork(Tk.Kind))
      continue;
    uint32_t S = Finder.stepAt(stepClock(Tasks, T, LauncherOrStep[T]));
    if (!W.Work.empty() && S < LauncherOrStep[W.Work.size() - 1])
      Grouped = false;
    LauncherOrStep[W.Work.size()] = S;
    W.Work.push_back(describeWork(Tk, T, KC));
    ++W.Begin[S + 1];
    if (Tk.StartNs < LastStart[S])
      Unsorted[S] = true;
    LastStart[S] = Tk.StartNs;
  }
  for (size_t S = 1; S < W.Begin.size(); ++S)
    W.Begin[S] += W.Begin[S - 1];
  if (!Grouped) {
    std::vector<WorkItem> ByStep(W.Work.size());
    std::vector<uint32_t> Fill(W.Begin.begin(), W.Begin.end() - 1);
    for (size_t I = 0; I != W.Work.size(); ++I)
      ByStep[Fill[LauncherOrStep[I]]++] = W.Work[I];
    W.Work = std::move(ByStep);
  }
  auto ByStart = [Tasks](const WorkItem &A, const WorkItem &B) {
    return std::make_pair(Tasks[A.Id].StartNs, A.Id) <
           std::make_pair(Tasks[B.Id].StartNs, B.Id);
  };
  for (size_t S = 0; S != Unsorted.size(); ++S)
    if (Unsorted[S])
      std::sort(W.Work.begin() + W.Begin[S], W.Work.begin() + W.Begin[S + 1],
                ByStart);
  return W;
}

/// What the passes need of one step's GPU work (in start order).
class StepDescriber {
public:
  explicit StepDescriber(const Graph &G)
      : G(G), LaneSeen(G.numLanes(), false) {}

  /// \p FollowingTask is the first GPU task after the step, or NoId.
  TrainingStep describe(llvm::ArrayRef<WorkItem> Work, TaskId FollowingTask) {
    TrainingStep S;
    S.Backward = weightKernels(Work, Phase::Backward);
    S.Forward = weightKernels(Work, Phase::Forward);
    size_t LastBackward = Work.size();
    for (size_t I = 0; I != Work.size(); ++I)
      if (Work[I].IsKernel && Work[I].P == Phase::Backward)
        LastBackward = I;
    if (LastBackward == Work.size())
      return S;
    S.Optimizer = firstOptimizerTaskPerLane(Work.drop_front(LastBackward + 1));
    S.AfterBackward = LastBackward + 1 < Work.size() ? Work[LastBackward + 1].Id
                                                     : FollowingTask;
    return S;
  }

private:
  /// GEMMs and convolutions of phase \p P, or, where the step has none (an
  /// unrecognised library), all of its kernels.
  static std::vector<TaskId> weightKernels(llvm::ArrayRef<WorkItem> Work,
                                           Phase P) {
    std::vector<TaskId> Kernels;
    for (const WorkItem &W : Work)
      if (W.CarriesWeights && W.P == P)
        Kernels.push_back(W.Id);
    if (!Kernels.empty())
      return Kernels;
    for (const WorkItem &W : Work)
      if (W.IsKernel && W.P == P)
        Kernels.push_back(W.Id);
    return Kernels;
  }

  /// After backward, since an optimizer-phase task before it is zero_grad,
  /// not the step.
  std::vector<TaskId>
  firstOptimizerTaskPerLane(llvm::ArrayRef<WorkItem> AfterBackward) {
    std::vector<TaskId> First;
    for (const WorkItem &W : AfterBackward)
      if (W.P == Phase::Optimizer && !LaneSeen[G.task(W.Id).Lane]) {
        LaneSeen[G.task(W.Id).Lane] = true;
        First.push_back(W.Id);
      }
    for (TaskId T : First)
      LaneSeen[G.task(T).Lane] = false;
    return First;
  }

  const Graph &G;
  std::vector<bool> LaneSeen;
};

} // namespace

std::vector<TrainingStep> dataparallel::findSteps(const Graph &G) {
  KernelClassifier KC(G);
  WorkBySteps W = groupWorkBySteps(G, KC);
  StepDescriber Describer(G);
  std::vector<TrainingStep> Steps;
  llvm::ArrayRef<WorkItem> Work = W.Work;
  for (size_t S = 0; S + 1 < W.Begin.size(); ++S) {
    uint32_t First = W.Begin[S], End = W.Begin[S + 1];
    if (First == End)
      continue;
    TaskId Following = End < Work.size() ? Work[End].Id : NoId;
    Steps.push_back(
        Describer.describe(Work.slice(First, End - First), Following));
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

llvm::ArrayRef<TaskId> dataparallel::barrierConsumers(const TrainingStep &S) {
  if (!S.Optimizer.empty())
    return S.Optimizer;
  if (S.AfterBackward != NoId)
    return S.AfterBackward;
  return {};
}

std::vector<uint64_t> dataparallel::splitBytes(const Graph &G,
                                               llvm::ArrayRef<TaskId> Kernels,
                                               uint64_t Total,
                                               bool ByDuration) {
  auto WeightOf = [&G, ByDuration](TaskId T) {
    return ByDuration ? double(G.task(T).DurationNs) : 1.0;
  };
  double Sum = 0;
  for (TaskId T : Kernels)
    Sum += WeightOf(T);
  bool Even = Sum <= 0;
  if (Even)
    Sum = double(Kernels.size());
  std::vector<uint64_t> Bytes;
  Bytes.reserve(Kernels.size());
  double Running = 0;
  uint64_t Given = 0;
  for (TaskId T : Kernels) {
    Running += Even ? 1.0 : WeightOf(T);
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
                                     uint64_t Bytes, StrId Name,
                                     int64_t DurationNs,
                                     llvm::ArrayRef<TaskId> Consumers) {
  const Task &P = G.task(Producer);
  Task T;
  T.StartNs = P.StartNs + P.DurationNs;
  T.DurationNs = DurationNs;
  T.Name = Name;
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
