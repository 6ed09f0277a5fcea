//===- AutocastWork.cpp - The work autocast and GradScaler add ------------===//
//
// What torch.autocast and torch.cuda.amp.GradScaler add to an FP32 step,
// from PyTorch's own rules (docs/CostModels.md cites them):
//
// * Casts. An op on autocast's lower-precision list (linear, conv*, the
//   matmul family, attention) casts each FP32 floating input to FP16/BF16
//   first; an op on its FP32 list (softmax, layer_norm, the losses, ...)
//   casts an FP16 input back. A cast is aten::_to_copy: CPU dispatch, a
//   launch, a copy kernel reading 4 and writing 2 bytes per element.
//   Parameters (a leaf that requires grad: the weight and bias of linear,
//   conv, prelu and the RNN cells) are cast once per autocast region, that
//   is once per forward: their casts are cached by tensor, and a trace names
//   tensors only through module paths, so a parameter counts once per
//   distinct (module path, argument, size) where its op runs inside an
//   nn.Module range, else once per call. Activations are cast when they
//   arrive in FP32: the forward is followed in order on its thread, its
//   input starting in FP32, a lower-precision op leaving FP16 behind and an
//   FP32-list op FP32. Only the outermost listed op of a nest casts
//   (aten::linear, not the aten::addmm inside it). Needs the op's recorded
//   shapes (record_shapes); an op whose inputs or kernels are already
//   FP16/BF16 is autocast already and gets nothing.
// * GradScaler (FP16 only). Per step: scale(loss), a multiply before
//   backward; unscale_, _amp_foreach_non_finite_check_and_unscale_ over every
//   gradient (multi_tensor_apply: at most 110 tensors and 320 blocks of 65536
//   elements per launch), then found_inf.item() (a 4-byte copy to the host
//   and a stream sync: the CPU waits for backward to finish on the GPU)
//   before optimizer.step(); update(), one small kernel after it.
//
// CPU cost of each added launch: the trace's median CPU time between two
// launches of a forward (dispatch and launch as this program pays them),
// unless given. Kernel time: the device's latency floor plus its bytes at
// the device's bandwidth.
//
//===----------------------------------------------------------------------===//

#include "AutocastWork.h"
#include "Median.h"

#include "daydream/Device/GpuSpecs.h"
#include "daydream/IR/Graph.h"
#include "daydream/IR/TaskFieldBounds.h"
#include "daydream/Transforms/OpWork.h"
#include "daydream/Transforms/Precision.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>

using namespace dd;
using namespace dd::amp;
using llvm::StringRef;

namespace {

enum class Role : uint8_t { None, Lower, Fp32 };

/// An op's place in autocast's lists; parameters are arguments
/// [FirstParam, FirstParam + NumParams) where they are tensors.
struct OpRule {
  Role R = Role::None;
  uint8_t FirstParam = 0;
  uint8_t NumParams = 0;
};

/// PyTorch's CUDA autocast op lists (aten/src/ATen/autocast_mode.cpp;
/// "Autocast Op Reference" in the torch.amp docs), by ATen name.
OpRule ruleOf(StringRef Name) {
  if (!Name.consume_front("aten::"))
    return {};
  const OpRule WeightBias{Role::Lower, 1, 2};
  const OpRule Lower{Role::Lower, 0, 0};
  const OpRule Fp32{Role::Fp32, 0, 0};
  return llvm::StringSwitch<OpRule>(Name)
      .Cases("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
             "conv_transpose2d", "conv_transpose3d", "convolution",
             "_convolution", "conv_tbc", WeightBias)
      .Cases("cudnn_convolution", "cudnn_convolution_transpose", WeightBias)
      .Case("prelu", OpRule{Role::Lower, 1, 1})
      .Cases("lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell",
             OpRule{Role::Lower, 2, 4})
      .Cases("addmm", "addmv", "addr", "matmul", "einsum", "mm", "mv", "addbmm",
             "baddbmm", "bmm", Lower)
      .Cases("chain_matmul", "linalg_multi_dot", "_thnn_fused_lstm_cell",
             "_thnn_fused_gru_cell", "scaled_dot_product_attention",
             "_scaled_dot_product_flash_attention",
             "_scaled_dot_product_efficient_attention",
             "_scaled_dot_product_cudnn_attention", Lower)
      .Cases("softmax", "log_softmax", "layer_norm", "group_norm",
             "cross_entropy_loss", "nll_loss", "nll_loss_nd", "nll_loss2d",
             "mse_loss", "l1_loss", Fp32)
      .Cases("smooth_l1_loss", "huber_loss", "binary_cross_entropy_with_logits",
             "kl_div", "poisson_nll_loss", "cosine_embedding_loss",
             "hinge_embedding_loss", "margin_ranking_loss",
             "multilabel_margin_loss", "soft_margin_loss", Fp32)
      .Cases("triplet_margin_loss", "multi_margin_loss", "norm",
             "frobenius_norm", "nuclear_norm", "cosine_similarity", "cdist",
             "pdist", "dist", "renorm", Fp32)
      .Cases("logsumexp", "cumsum", "cumprod", "sum", "prod", "exp", "expm1",
             "log", "log10", "log1p", Fp32)
      .Cases("log2", "pow", "reciprocal", "rsqrt", "erfinv", "acos", "asin",
             "cosh", "sinh", "tan", Fp32)
      .Case("softplus", Fp32)
      .Default({});
}

/// PyTorch's multi_tensor_apply limits for a depth-1 (in-place) list
/// (aten/src/ATen/native/cuda/MultiTensorApply.cuh).
constexpr double MaxTensorsPerLaunch = 110;
constexpr double MaxBlocksPerLaunch = 320;
constexpr double ChunkElements = 65536;

/// Whether a kernel name is one of GradScaler's.
bool isScalerKernel(StringRef Name) {
  return Name.contains("non_finite_check_and_unscale") ||
         Name.contains("amp_update_scale");
}

/// One cast to add: its argument's elements.
struct Cast {
  double Elements;
  bool Weight;
};

class AutocastBuilder {
public:
  AutocastBuilder(Graph &G, const GpuSpec &Spec, const AutocastOptions &O)
      : G(G), Spec(Spec), O(O) {}

  AutocastSummary run() {
    readNotes();
    readLayers();
    if (!findCalls())
      return S;
    readLaunches();
    measureLaunchCost();
    internNames();
    for (LaneId L = 0; L != G.numLanes(); ++L)
      if (G.lane(L).Kind == LaneKind::CpuThread)
        walkLane(L);
    return S;
  }

private:
  //===--- What the trace says -------------------------------------------===//

  void readNotes() {
    StrId DimsKey = NoId, TypesKey = NoId;
    for (const TaskNote &N : G.notes()) {
      if (N.Key != DimsKey && N.Key != TypesKey) {
        StringRef K = G.str(N.Key);
        if (K == "input-dims")
          DimsKey = N.Key;
        else if (K == "input-types")
          TypesKey = N.Key;
        else
          continue;
      }
      (N.Key == DimsKey ? Dims : Types)[N.Task] = N.Value;
    }
  }

  /// Each layer's rule, where no enclosing layer has one (the outermost
  /// listed op casts), and whether an nn.Module range encloses it.
  void readLayers() {
    size_t N = G.numLayers();
    Rules.assign(N, OpRule{});
    InModule.assign(N, 0);
    InOptimizerStep.assign(N, 0);
    std::vector<uint8_t> Done(N, 0), Listed(N, 0);
    llvm::SmallVector<LayerId, 16> Chain;
    for (LayerId L = 0; L != N; ++L) {
      // Root first, so each layer sees its parent's result.
      Chain.clear();
      for (LayerId X = L; X != NoId && !Done[X]; X = G.layer(X).Parent)
        Chain.push_back(X);
      for (auto It = Chain.rbegin(); It != Chain.rend(); ++It) {
        LayerId X = *It;
        LayerId P = G.layer(X).Parent;
        StringRef Name = G.str(G.layer(X).Name);
        OpRule R = ruleOf(Name);
        bool ParentListed = P != NoId && Listed[P];
        Rules[X] = ParentListed ? OpRule{} : R;
        Listed[X] = ParentListed || R.R != Role::None;
        InModule[X] =
            (P != NoId && InModule[P]) || Name.startswith("nn.Module:");
        bool Step = Name.startswith("Optimizer.step");
        InOptimizerStep[X] = (P != NoId && InOptimizerStep[P]) || Step;
        NamesSteps |= Step;
        Done[X] = 1;
      }
    }
  }

  /// Whether any forward call of a listed op recorded its shapes.
  bool findCalls() {
    bool Any = false, Listed = false;
    for (TaskId T = 0; T != G.numTaskSlots() && !Any; ++T) {
      const Task &Tk = G.task(T);
      if (!G.isLive(T) || Tk.Kind != TaskKind::CpuOp ||
          Tk.Phase != Phase::Forward || Tk.Layer == NoId ||
          Rules[Tk.Layer].R != Role::Lower)
        continue;
      Listed = true;
      Any = Dims.count(T) != 0;
    }
    S.NoShapes = Listed && !Any;
    if (!Any)
      return false;
    // Each distinct name looked at once.
    std::vector<uint8_t> Seen(G.strings().size(), 0);
    for (const Task &Tk : G.taskSlots()) {
      if (Tk.Kind != TaskKind::Kernel || Tk.Name == NoId || Seen[Tk.Name])
        continue;
      Seen[Tk.Name] = 1;
      if (isScalerKernel(G.str(Tk.Name))) {
        S.TraceHasScaler = true;
        break;
      }
    }
    return true;
  }

  /// The first GPU task each runtime call launched.
  void readLaunches() {
    Launched.assign(G.numTaskSlots(), NoId);
    for (const Edge &E : G.edgeSlots())
      if (E.Kind == EdgeKind::Launch && G.isLive(E) &&
          G.task(E.Src).Kind == TaskKind::Runtime &&
          isGpuWork(G.task(E.Dst).Kind) && Launched[E.Src] == NoId)
        Launched[E.Src] = E.Dst;
  }

  /// The median CPU time (ops and runtime calls, not untraced gaps) from
  /// one forward launch to the next on a thread, and the median launch
  /// call: what one more launch in this program's forward costs.
  void measureLaunchCost() {
    std::vector<int64_t> Between, Calls;
    for (LaneId L = 0; L != G.numLanes(); ++L) {
      if (G.lane(L).Kind != LaneKind::CpuThread)
        continue;
      int64_t Busy = 0;
      for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T)) {
        const Task &Tk = G.task(T);
        if (Tk.Phase != Phase::Forward) {
          Busy = 0;
          continue;
        }
        if (Tk.Kind != TaskKind::CpuOp && Tk.Kind != TaskKind::Runtime)
          continue;
        Busy += Tk.DurationNs;
        if (Tk.Kind == TaskKind::Runtime && Launched[T] != NoId &&
            G.task(Launched[T]).Kind == TaskKind::Kernel) {
          Between.push_back(Busy);
          Calls.push_back(Tk.DurationNs);
          Busy = 0;
        }
      }
    }
    S.LaunchCallNs = double(median(std::move(Calls)));
    S.LaunchCpuNs = std::isnan(O.LaunchCpuNs)
                        ? double(median(std::move(Between)))
                        : O.LaunchCpuNs;
    S.LaunchCallNs = std::min(S.LaunchCallNs, S.LaunchCpuNs);
  }

  void internNames() {
    StringRef To = toString(O.To);
    CastKernel = G.intern(
        ("direct_copy_kernel_cuda (autocast: cast to " + To + ")").str());
    CastOp = G.intern("aten::_to_copy (autocast)");
    LaunchCall = G.intern("cudaLaunchKernel");
    ScaleKernel = G.intern("mul_kernel_cuda (GradScaler: scale the loss)");
    UnscaleKernel = G.intern(
        "_amp_foreach_non_finite_check_and_unscale_cuda_kernel (GradScaler)");
    UpdateKernel = G.intern("amp_update_scale_cuda_kernel (GradScaler)");
    ScalerOp = G.intern("GradScaler (dispatch)");
    CopyCall = G.intern("cudaMemcpyAsync");
    FoundInfCopy = G.intern("Memcpy DtoH (GradScaler: found_inf)");
    SyncCall = G.intern("cudaStreamSynchronize (GradScaler: found_inf.item)");
  }

  //===--- The walk ------------------------------------------------------===//

  /// One CPU thread's state, in lane order.
  struct LaneState {
    Phase Prev = Phase::Other;
    /// This forward (one autocast region): its cast cache, whether its
    /// activations are in reduced precision now, whether it had calls.
    llvm::DenseSet<std::pair<LayerId, uint64_t>> Cached;
    bool ActivationsReduced = false;
    bool ForwardCalls = false;
    /// Since the last optimizer step: forwards with calls, and whether a
    /// backward ran; the parameters the last forward cast.
    size_t UnscaledForwards = 0;
    bool SawBackward = false;
    double ParamTensors = 0, ParamElements = 0;
    /// The last GPU task this thread launched, and the call that did.
    TaskId LastLaunched = NoId, LastLaunchCall = NoId;
    /// A call of a listed op waiting for its first launch, and the casts
    /// to add before it.
    LayerId PendingLayer = NoId;
    bool PendingLower = false;
    llvm::SmallVector<Cast, 4> Pending;
    /// The optimizer step waiting for its first launch (unscale goes
    /// before it), then the step's last task and launched kernel.
    TaskId OptimizerStart = NoId;
    bool InScaledStep = false;
    TaskId LastStepTask = NoId, LastStepKernel = NoId;
  };

  void walkLane(LaneId L) {
    LaneState St;
    for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T)) {
      if (T >= Launched.size())
        continue; // added by this walk
      const Task Tk = G.task(T);
      bool InStep = isOptimizerStep(Tk);
      if ((St.InScaledStep || St.OptimizerStart != NoId) && !InStep)
        endOptimizerStep(St);
      if (Tk.Phase != St.Prev)
        changePhase(St, Tk.Phase);
      St.Prev = Tk.Phase;
      if (InStep && St.UnscaledForwards != 0 && St.OptimizerStart == NoId &&
          !St.InScaledStep && scaling())
        St.OptimizerStart = T;
      if (St.InScaledStep)
        St.LastStepTask = T;
      if (St.PendingLayer != NoId && !inCall(Tk.Layer, St.PendingLayer))
        dropPending(St);
      if (Tk.Kind == TaskKind::Runtime && Launched[T] != NoId) {
        onLaunch(St, T, Launched[T]);
        continue;
      }
      if (Tk.Kind == TaskKind::CpuOp && Tk.Phase == Phase::Forward &&
          Tk.Layer != NoId && Rules[Tk.Layer].R != Role::None && Dims.count(T))
        onCall(St, T, Rules[Tk.Layer]);
    }
    endOptimizerStep(St);
    if (scaling())
      S.StepsWithoutOptimizer += St.UnscaledForwards;
  }

  /// Where GradScaler's unscale and sync go: optimizer.step(), by name
  /// where the trace names it ("Optimizer.step#SGD.step"), else the
  /// optimizer phase after a backward.
  bool isOptimizerStep(const Task &Tk) const {
    if (Tk.Phase != Phase::Optimizer)
      return false;
    if (NamesSteps)
      return Tk.Layer != NoId && InOptimizerStep[Tk.Layer];
    return true;
  }

  void changePhase(LaneState &St, Phase P) {
    if (St.Prev == Phase::Forward && St.ForwardCalls) {
      // scaler.scale(loss) follows the forward.
      dropPending(St);
      if (scaling())
        addScaleLoss(St);
      St.ForwardCalls = false;
    }
    if (P == Phase::Forward) {
      St.ActivationsReduced = false;
      St.Cached.clear();
    } else if (P == Phase::Backward) {
      St.SawBackward = true;
    }
  }

  void endOptimizerStep(LaneState &St) {
    if (St.InScaledStep)
      addUpdate(St);
    St.InScaledStep = false;
    St.OptimizerStart = NoId; // a step that launched nothing stays unscaled
  }

  bool scaling() const { return O.Scaler && !S.TraceHasScaler; }

  /// Whether a task of layer \p X is inside a call of layer \p Call.
  bool inCall(LayerId X, LayerId Call) const {
    for (; X != NoId; X = G.layer(X).Parent)
      if (X == Call)
        return true;
    return false;
  }

  void dropPending(LaneState &St) {
    if (St.PendingLayer != NoId)
      ++S.CallsWithoutKernel;
    St.Pending.clear();
    St.PendingLayer = NoId;
    St.PendingLower = false;
  }

  /// The first piece of a call of a listed op: which inputs it casts.
  void onCall(LaneState &St, TaskId T, OpRule R) {
    dropPending(St);
    llvm::SmallVector<double, 8> N;
    if (!readInputElements(G.str(Dims.lookup(T)), N))
      return;
    llvm::SmallVector<DType, 8> Ty;
    auto TypesIt = Types.find(T);
    if (TypesIt != Types.end())
      readInputTypes(G.str(TypesIt->second), Ty);
    // Without types every tensor is taken to be FP32 (the premise).
    auto TypeOf = [&](size_t I) {
      return Ty.empty() ? DType::FP32 : I < Ty.size() ? Ty[I] : DType::Unknown;
    };
    for (size_t I = 0; I != N.size(); ++I)
      if (N[I] > 0 && isReducedPrecision(TypeOf(I))) {
        ++S.ReducedCalls;
        St.ActivationsReduced = R.R == Role::Lower;
        return;
      }
    LayerId Layer = G.task(T).Layer;
    if (R.R == Role::Fp32) {
      for (size_t I = 0; I != N.size(); ++I)
        if (N[I] > 0 && TypeOf(I) == DType::FP32) {
          if (St.ActivationsReduced)
            St.Pending.push_back(Cast{N[I], false});
          break;
        }
      St.ActivationsReduced = false;
    } else {
      St.PendingLower = true;
      if (!St.ForwardCalls) {
        St.ParamTensors = St.ParamElements = 0;
        St.ForwardCalls = true;
        ++St.UnscaledForwards;
        ++S.Forwards;
      }
      for (size_t I = 0; I != N.size(); ++I) {
        if (!(N[I] > 0) || TypeOf(I) != DType::FP32)
          continue;
        bool Param = I >= R.FirstParam && I < R.FirstParam + R.NumParams;
        if (Param) {
          // Cached by tensor: by (module path, argument, size) where the
          // trace names modules, else each call is its own parameter.
          uint64_t Key = (uint64_t(I) << 56) ^ uint64_t(N[I]);
          if (InModule[Layer] && !St.Cached.insert({Layer, Key}).second)
            continue;
          St.Pending.push_back(Cast{N[I], true});
        } else if (!St.ActivationsReduced) {
          St.Pending.push_back(Cast{N[I], false});
        }
      }
      St.ActivationsReduced = true;
    }
    if (St.PendingLower || !St.Pending.empty())
      St.PendingLayer = Layer;
  }

  void onLaunch(LaneState &St, TaskId R, TaskId K) {
    TaskKind Kind = G.task(K).Kind;
    if (St.PendingLayer != NoId && Kind == TaskKind::Kernel) {
      const TaskAttrs *A = G.attrs(K);
      if (A && isReducedPrecision(DType(A->DType))) {
        // The op runs in FP16/BF16 already: autocast is on.
        ++S.ReducedCalls;
      } else {
        if (St.PendingLower)
          ++S.EligibleCalls;
        for (const Cast &C : St.Pending) {
          if (O.Casts)
            addCast(R, K, C);
          if (C.Weight) {
            St.ParamTensors += 1;
            St.ParamElements += C.Elements;
          }
        }
      }
      St.Pending.clear();
      St.PendingLayer = NoId;
      St.PendingLower = false;
    }
    if (St.OptimizerStart != NoId && Kind == TaskKind::Kernel &&
        (NamesSteps || St.SawBackward)) {
      addUnscale(St, R, K);
      St.OptimizerStart = NoId;
      St.InScaledStep = true;
      St.UnscaledForwards = 0;
      St.SawBackward = false;
    }
    if (St.InScaledStep)
      St.LastStepKernel = K;
    if (isGpuWork(Kind)) {
      St.LastLaunched = K;
      St.LastLaunchCall = R;
    }
  }

  //===--- Adding work ---------------------------------------------------===//

  double floorNs() const { return Spec.LatencyFloorUs * 1000; }
  /// A kernel that streams \p Bytes: the floor plus the bytes at peak
  /// bandwidth (GB/s is bytes per ns).
  int64_t streamNs(double Bytes) const {
    return roundNs(floorNs() + Bytes / Spec.MemoryBandwidthGBps);
  }

  /// A launch on the CPU next to \p Pos (before it, or after it if
  /// \p After): the dispatch (an op task) and the launch call, in that
  /// order, in \p Pos's layer and phase. Returns the launch call.
  TaskId addLaunch(TaskId Pos, bool After, StrId OpName, StrId CallName) {
    const Task &P = G.task(Pos);
    Task T;
    T.StartNs = After ? P.StartNs + P.DurationNs : P.StartNs;
    T.Lane = P.Lane;
    T.Layer = P.Layer;
    T.Phase = P.Phase;
    T.Flags = TF_Synthetic;
    T.Kind = TaskKind::Runtime;
    T.Name = CallName;
    T.DurationNs = roundNs(S.LaunchCallNs);
    TaskId Call =
        After ? G.insertTaskAfter(Pos, T) : G.insertTaskBefore(Pos, T);
    int64_t Dispatch = roundNs(S.LaunchCpuNs - S.LaunchCallNs);
    if (Dispatch > 0) {
      T.Kind = TaskKind::CpuOp;
      T.Name = OpName;
      T.DurationNs = Dispatch;
      G.insertTaskBefore(Call, T);
    }
    return Call;
  }

  /// GPU work on \p Next's (or \p Prev's) lane, before \p Next or after
  /// \p Prev, launched by \p Launch.
  TaskId addGpu(TaskId Launch, TaskId Next, TaskId Prev, TaskKind Kind,
                StrId Name, int64_t DurationNs, TaskAttrs A) {
    const Task &Ref = G.task(Next != NoId ? Next : Prev);
    Task T;
    T.StartNs = Ref.StartNs;
    T.Lane = Ref.Lane;
    T.Layer = G.task(Launch).Layer;
    T.Phase = G.task(Launch).Phase;
    T.Flags = TF_Synthetic;
    T.Kind = Kind;
    T.Name = Name;
    T.DurationNs = DurationNs;
    TaskId Id =
        Next != NoId ? G.insertTaskBefore(Next, T) : G.insertTaskAfter(Prev, T);
    G.setAttrs(Id, A);
    G.addEdge(Launch, Id, EdgeKind::Launch);
    return Id;
  }

  void addCast(TaskId LaunchOfOp, TaskId Kernel, const Cast &C) {
    double Bytes =
        C.Elements * (bytesPerElement(DType::FP32) + bytesPerElement(O.To));
    TaskId R = addLaunch(LaunchOfOp, /*After=*/false, CastOp, LaunchCall);
    TaskAttrs A;
    A.Bytes = uint64_t(Bytes);
    A.DType = uint8_t(O.To);
    addGpu(R, Kernel, NoId, TaskKind::Kernel, CastKernel, streamNs(Bytes), A);
    ++(C.Weight ? S.WeightCasts : S.ActivationCasts);
    S.CastBytes += Bytes;
  }

  /// scale(loss): one multiply, after the forward's last launch.
  void addScaleLoss(LaneState &St) {
    if (St.LastLaunchCall == NoId)
      return;
    TaskId R =
        addLaunch(St.LastLaunchCall, /*After=*/true, ScalerOp, LaunchCall);
    TaskAttrs A;
    A.Bytes = 8;
    St.LastLaunched = addGpu(R, NoId, St.LastLaunched, TaskKind::Kernel,
                             ScaleKernel, streamNs(A.Bytes), A);
    St.LastLaunchCall = R;
    ++S.ScalerLaunches;
  }

  /// unscale_ and found_inf.item() before the optimizer step's first task
  /// on the CPU and before its first kernel \p K on the GPU.
  void addUnscale(LaneState &St, TaskId FirstLaunch, TaskId K) {
    double Tensors = std::max(1.0, St.ParamTensors);
    double Chunks = std::ceil(St.ParamElements / ChunkElements);
    double Launches = std::max({1.0, std::ceil(Tensors / MaxTensorsPerLaunch),
                                std::ceil(Chunks / MaxBlocksPerLaunch)});
    // FP32 gradients, read and written in place.
    double Bytes = St.ParamElements * 2 * bytesPerElement(DType::FP32);
    TaskId Before = St.OptimizerStart;
    for (double I = 0; I != Launches; ++I) {
      TaskId R = addLaunch(Before, /*After=*/false, ScalerOp, LaunchCall);
      TaskAttrs A;
      A.Bytes = uint64_t(Bytes / Launches);
      A.DType = uint8_t(DType::FP32);
      addGpu(R, K, NoId, TaskKind::Kernel, UnscaleKernel,
             streamNs(Bytes / Launches), A);
      ++S.ScalerLaunches;
    }
    TaskId R = addLaunch(Before, /*After=*/false, ScalerOp, CopyCall);
    TaskAttrs A;
    A.Bytes = 4;
    A.CopyKind = uint8_t(CopyKind::DeviceToHost);
    TaskId Copy = addGpu(R, K, NoId, TaskKind::Memcpy, FoundInfCopy,
                         roundNs(floorNs()), A);
    Task SyncCallTask = G.task(R);
    SyncCallTask.Kind = TaskKind::Sync;
    SyncCallTask.Name = SyncCall;
    TaskId Sync = G.insertTaskAfter(R, SyncCallTask);
    G.addEdge(Copy, Sync, EdgeKind::Sync);
    ++S.ScalerSteps;
    St.LastStepTask = FirstLaunch;
    St.LastStepKernel = K;
  }

  /// update(): one small kernel after the optimizer step.
  void addUpdate(LaneState &St) {
    TaskId R = addLaunch(St.LastStepTask, /*After=*/true, ScalerOp, LaunchCall);
    TaskAttrs A;
    A.Bytes = 8;
    addGpu(R, NoId, St.LastStepKernel, TaskKind::Kernel, UpdateKernel,
           roundNs(floorNs()), A);
    ++S.ScalerLaunches;
  }

  Graph &G;
  const GpuSpec &Spec;
  const AutocastOptions &O;
  AutocastSummary S;
  llvm::DenseMap<TaskId, StrId> Dims, Types;
  std::vector<OpRule> Rules;
  std::vector<uint8_t> InModule, InOptimizerStep;
  bool NamesSteps = false;
  std::vector<TaskId> Launched;
  StrId CastKernel = NoId, CastOp = NoId, LaunchCall = NoId;
  StrId ScaleKernel = NoId, UnscaleKernel = NoId, UpdateKernel = NoId;
  StrId ScalerOp = NoId, CopyCall = NoId, FoundInfCopy = NoId;
  StrId SyncCall = NoId;
};

} // namespace

AutocastSummary amp::addAutocastWork(Graph &G, const GpuSpec &Spec,
                                     const AutocastOptions &O) {
  return AutocastBuilder(G, Spec, O).run();
}
