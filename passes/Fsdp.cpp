//===- Fsdp.cpp - Sharded data parallelism (FSDP / ZeRO) ------------------===//
//
// fsdp{shards=N strategy=full|grad-op params-mb=0 unit-mb=25 gbps=0
//      latency-us=5}
//
// "What if this single-GPU training ran sharded over N GPUs?" (PyTorch
// FSDP, Zhao et al., VLDB 2023; ZeRO, Rajbhandari et al., SC 2020). Each
// GPU keeps 1/N of the parameters, gradients and optimizer state; a unit
// (a wrapped module) gathers its parameters from the others just before it
// runs and lets them go after, and its gradients are reduce-scattered so
// that each GPU keeps the reduced 1/N it updates.
//  - Units: the step's forward weight kernels (GEMMs, convolutions) carry
//    the parameter bytes (the trace's, ParameterSizes.h, else params-mb=)
//    in proportion to their durations, as ddp-insert spreads gradients, and
//    are grouped in forward order into units of at least unit-mb= (an
//    auto-wrap policy by size); backward kernels likewise, in the order
//    backward runs them.
//  - Forward: before each unit, an all-gather of its parameters on an
//    "nccl all-gather" channel, issued when the CPU launches the unit's
//    first kernel (FSDP's pre-forward hook; the CPU running ahead of the
//    GPU is what hides it), and that kernel waits for it.
//  - Backward: strategy=full (ZeRO-3, FULL_SHARD) gathers each unit again
//    before its backward; grad-op (ZeRO-2, SHARD_GRAD_OP) kept the forward's
//    gathered parameters. After each unit's backward a reduce-scatter of its
//    gradients on an "nccl reduce-scatter" channel; the optimizer waits for
//    them all.
//  - Optimizer kernels update 1/N of the parameters: above the GPU's
//    latency floor, their durations are divided by N.
//  - Collective times: the ring's (NetworkModel.h): an all-gather or a
//    reduce-scatter is half a ring all-reduce, (N-1)/N of the bytes over
//    the link and N-1 latencies.
//  - Memory: the gathered parameters of a unit ((N-1)/N of its bytes) are
//    held from its all-gather to its last forward kernel (full; to the end
//    of the step's backward for grad-op) and again in backward from its
//    all-gather to its last backward kernel (full); each unit's unsharded
//    gradients from its first backward kernel to its reduce-scatter's end.
//    Recorded weights, gradients and optimizer state are 1/N as large.
// docs/passes/fsdp.md has the derivations and the limits.
//
//===----------------------------------------------------------------------===//

#include "DataParallel.h"
#include "Recompute.h"

#include "daydream/Analysis/MemoryBreakdown.h"
#include "daydream/Device/GpuSpecs.h"
#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Transforms/Roofline.h"

#include "llvm/Support/FormatVariadic.h"

using namespace dd;
using namespace dd::dataparallel;

namespace {

struct FsdpOptions {
  int64_t Shards = 8;
  std::string Strategy = "full";
  double ParamsMb = 0;
  double UnitMb = 25;
  double Gbps = 0;
  double LatencyUs = 5;
};

void declare(PassOptionParser &P, FsdpOptions &O) {
  P.add("shards", O.Shards, "GPUs the model is sharded over (1: no change)");
  P.add("strategy", O.Strategy,
        "full (ZeRO-3: gather again for backward) or grad-op (ZeRO-2)");
  P.add("params-mb", O.ParamsMb,
        "the model's parameter MiB; 0: from the trace's AccumulateGrad input "
        "shapes");
  P.add("unit-mb", O.UnitMb, "parameter MiB of a wrapped unit, at least");
  P.add("gbps", O.Gbps,
        "ring link bandwidth in GB/s; 0: the graph GPU's per-GPU link, else "
        "100");
  P.add("latency-us", O.LatencyUs, "latency of one ring step in us");
}

llvm::Error fail(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

llvm::Error validate(const FsdpOptions &O) {
  if (O.Shards < 1 || O.Shards > MaxGpus)
    return fail("shards= must be in [1, 1000000]");
  if (O.Strategy != "full" && O.Strategy != "grad-op")
    return fail("strategy= must be 'full' or 'grad-op', not '" + O.Strategy +
                "'");
  if (!(O.ParamsMb >= 0 && O.ParamsMb <= MaxMb))
    return fail("params-mb= must be in [0, 1e9]");
  if (!(O.UnitMb > 0 && O.UnitMb <= MaxMb))
    return fail("unit-mb= must be in (0, 1e9]");
  if (!(O.Gbps == 0 || (O.Gbps >= MinGbps && O.Gbps <= 1e9)))
    return fail("gbps= must be 0 (from the GPU) or in [0.001, 1e9]");
  if (!(O.LatencyUs >= 0 && O.LatencyUs <= MaxLatencyUs))
    return fail("latency-us= must be in [0, 1e9]");
  return llvm::Error::success();
}

/// One unit's kernels in a phase: [First, Last] of the step's list.
struct Unit {
  size_t First = 0, Last = 0;
  uint64_t Bytes = 0;
};

std::vector<Unit> makeUnits(const Graph &G, llvm::ArrayRef<TaskId> Kernels,
                            uint64_t Total, uint64_t Cap) {
  std::vector<Unit> Out;
  if (Kernels.empty())
    return Out;
  size_t First = 0;
  for (const Bucket &B : makeBuckets(
           splitBytes(G, Kernels, Total, /*ByDuration=*/true), Cap, Cap)) {
    Out.push_back({First, B.Last, B.Bytes});
    First = B.Last + 1;
  }
  return Out;
}

class Fsdp {
public:
  static constexpr const char *Name = "fsdp";
  static constexpr const char *Description =
      "Sharded data parallelism (FSDP, ZeRO-2/3): per-unit all-gathers and "
      "reduce-scatters, 1/N of the parameters, gradients and optimizer state";
  using OptionsT = FsdpOptions;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;
  static constexpr bool AddsTasks = true; // the collectives

  explicit Fsdp(FsdpOptions O) : O(std::move(O)) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &AM) {
    if (O.Shards == 1)
      return PreservedAnalyses::all();
    auto StepsOr = findTrainingSteps(G);
    if (!StepsOr)
      return StepsOr.takeError();
    Options DP;
    DP.ParamsMb = O.ParamsMb;
    DP.Gbps = O.Gbps;
    DP.LatencyUs = O.LatencyUs;
    DP.Gpus = O.Shards;
    auto TotalOr = parameterBytes(G, DP);
    if (!TotalOr)
      return TotalOr.takeError();
    const uint64_t Total = *TotalOr;
    Gbps = ringGbps(G, DP);
    Lane = NoId;
    const GpuSpec *Spec = findGraphGpu(G);
    FloorNs = Spec ? Spec->LatencyFloorUs * 1000 : 0;

    // Memory facts before any task is added.
    MemoryEventFacts Facts = analyzeMemoryEvents(G);
    recompute::MemoryIndex Memory(G, Facts);
    recompute::StepWork Work(G, recompute::StepWork::Launchers);
    shardRecordedMemory(G, Facts, Memory);

    uint64_t Gathers = 0, Scatters = 0;
    for (const TrainingStep &S : *StepsOr) {
      if (S.Backward.empty())
        continue;
      // One channel for both kinds: all-gathers and reduce-scatters on
      // their own NCCL streams still share the GPU's links.
      if (Lane == NoId)
        Lane = commLane(G, "nccl fsdp", LaneOrder::InOrder, S.Backward.front());
      insertStep(G, S, Work, Memory, Total, Gathers, Scatters);
    }
    shardOptimizer(G);
    AM.count("all-gathers inserted", Gathers);
    AM.count("reduce-scatters inserted", Scatters);
    if (!Scatters)
      return PreservedAnalyses::all();
    AM.warning(llvm::formatv(
                   "parameters {0:f1} MiB ({1}): memory the allocator held "
                   "before the trace (parameters, gradients, optimizer "
                   "state made before profiling) is reported apart and not "
                   "sharded here; sharded, each GPU keeps 1/{2} of it",
                   double(Total) / BytesPerMb,
                   O.ParamsMb > 0 ? "params-mb=" : "from the trace", O.Shards)
                   .str());
    return PreservedAnalyses::none();
  }

private:
  int64_t halfRingNs(uint64_t Bytes) const {
    return ringAllReduceNs(Bytes, O.Shards, Gbps, O.LatencyUs) / 2;
  }
  uint64_t gatheredBytes(uint64_t Bytes) const {
    return Bytes - Bytes / uint64_t(O.Shards);
  }

  /// What a unit's all-gather is issued after: the CPU call that launches
  /// the unit's first kernel, or in a trace without CPU work, the kernel
  /// before it on its stream (no prefetch).
  static TaskId issuedAfter(const Graph &G, const recompute::StepWork &Work,
                            TaskId First) {
    TaskId L = Work.launcher(First);
    return L != NoId ? L : G.prevOnLane(First);
  }

  /// A collective on \p Lane after \p Pred that \p Succs wait for.
  TaskId insertCollective(Graph &G, LaneId Lane, const char *What, size_t N,
                          uint64_t Bytes, Phase Ph, TaskId Pred,
                          llvm::ArrayRef<TaskId> Succs) {
    Task T;
    T.StartNs = Pred != NoId ? G.task(Pred).StartNs + G.task(Pred).DurationNs
                             : G.task(Succs.front()).StartNs;
    T.DurationNs = halfRingNs(Bytes);
    T.Name = G.intern(
        llvm::formatv("{0} (unit {1}, {2})", What, N, formatMb(Bytes)).str());
    T.Kind = TaskKind::Collective;
    T.Phase = Ph;
    T.Flags = TF_Synthetic;
    llvm::SmallVector<TaskId, 1> Preds;
    if (Pred != NoId)
      Preds.push_back(Pred);
    TaskId Id =
        insertTask(G, T, Lane, NoId, Preds, Succs, EdgeKind::CrossStream);
    TaskAttrs A;
    A.Bytes = Bytes;
    G.setAttrs(Id, A);
    return Id;
  }

  /// A modelled block of \p Bytes made at \p From's start and freed at
  /// \p To's end.
  void addBlock(Graph &G, recompute::MemoryIndex &Memory, uint64_t Bytes,
                MemoryCategory C, TaskId From, TaskId To) {
    if (!Bytes)
      return;
    int32_t Device = G.lane(G.task(From).Lane).Device;
    for (LaneId L : {G.task(From).Lane, G.task(To).Lane})
      if (G.lane(L).Device >= 0)
        Device = G.lane(L).Device;
    MemoryEvent A;
    A.TimeNs = G.task(From).StartNs;
    A.Bytes = int64_t(Bytes);
    A.Device = Device;
    A.Address = Memory.freshAddress();
    A.Task = From;
    A.Category = uint8_t(C);
    A.Flags = MEF_Modelled;
    MemoryEvent F = A;
    F.TimeNs = std::max(A.TimeNs, G.task(To).StartNs + G.task(To).DurationNs);
    F.Bytes = -A.Bytes;
    F.Task = To;
    F.Category = CategoryByRule;
    G.addMemoryEvent(A);
    G.addMemoryEvent(F);
  }

  void insertStep(Graph &G, const TrainingStep &S,
                  const recompute::StepWork &Work,
                  recompute::MemoryIndex &Memory, uint64_t Total,
                  uint64_t &Gathers, uint64_t &Scatters) {
    const uint64_t Cap = mbToBytes(O.UnitMb);
    const bool Full = O.Strategy == "full";
    const TaskId StepEnd = S.Backward.back();
    // A unit's all-gather, before its first kernel; its gathered
    // parameters are held until \p Until ends.
    auto Gather = [&](llvm::ArrayRef<TaskId> Kernels, const Unit &U, Phase Ph,
                      TaskId Until) {
      TaskId First = Kernels[U.First];
      uint64_t N = Gathers++;
      TaskId Id = insertCollective(G, Lane, "ncclAllGather", N, U.Bytes, Ph,
                                   issuedAfter(G, Work, First), {First});
      addBlock(G, Memory, gatheredBytes(U.Bytes), MemoryCategory::Weights, Id,
               Until);
    };
    for (const Unit &U : makeUnits(G, S.Forward, Total, Cap))
      Gather(S.Forward, U, Phase::Forward, Full ? S.Forward[U.Last] : StepEnd);
    // Backward, in FSDP's order on the link: a unit's all-gather is issued
    // before the reduce-scatter of the unit before it (BACKWARD_PRE
    // prefetch), so that the next unit's parameters are not held up.
    llvm::ArrayRef<TaskId> Consumers = barrierConsumers(S);
    std::vector<Unit> Units = makeUnits(G, S.Backward, Total, Cap);
    if (Full && !Units.empty())
      Gather(S.Backward, Units.front(), Phase::Backward,
             S.Backward[Units.front().Last]);
    for (size_t K = 0; K != Units.size(); ++K) {
      if (Full && K + 1 != Units.size())
        Gather(S.Backward, Units[K + 1], Phase::Backward,
               S.Backward[Units[K + 1].Last]);
      const Unit &U = Units[K];
      uint64_t N = Scatters++;
      TaskId Scatter =
          insertCollective(G, Lane, "ncclReduceScatter", N, U.Bytes,
                           Phase::Backward, S.Backward[U.Last], Consumers);
      // The unit's gradients, whole until they are reduce-scattered.
      addBlock(G, Memory, gatheredBytes(U.Bytes),
               MemoryCategory::WeightGradients, S.Backward[U.First], Scatter);
    }
  }

  /// Each GPU's optimizer updates its 1/N of the parameters.
  void shardOptimizer(Graph &G) const {
    const double Factor = 1.0 / double(O.Shards);
    for (TaskId T : G.liveTasks()) {
      Task &Tk = G.task(T);
      if (Tk.Phase == Phase::Optimizer && Tk.Kind == TaskKind::Kernel &&
          !(Tk.Flags & TF_Synthetic))
        Tk.DurationNs = scaleAboveFloor(Tk.DurationNs, FloorNs, 1.0, Factor);
    }
  }

  /// Recorded parameters, gradients and optimizer state are 1/N as large:
  /// each block is replaced by a modelled one made and freed where it was.
  void shardRecordedMemory(Graph &G, const MemoryEventFacts &Facts,
                           recompute::MemoryIndex &Memory) const {
    std::vector<MemoryEvent> Added;
    llvm::MutableArrayRef<MemoryEvent> Events = G.memoryEventsMut();
    for (size_t I = 0; I != Events.size(); ++I) {
      const MemoryCategory C = Facts.Category[I];
      if (Events[I].Bytes <= 0 || (Events[I].Flags & MEF_Replaced) ||
          (C != MemoryCategory::Weights &&
           C != MemoryCategory::WeightGradients &&
           C != MemoryCategory::OptimizerState))
        continue;
      recompute::resizeBlock(G, Memory, I,
                             std::max<int64_t>(1, Events[I].Bytes / O.Shards),
                             Added);
    }
    for (const MemoryEvent &E : Added)
      G.addMemoryEvent(E);
  }

  FsdpOptions O;
  double Gbps = 0, FloorNs = 0;
  LaneId Lane = NoId;
};

} // namespace

PassInfo dd::passInfoOfFsdp() { return passInfo<Fsdp>(); }
