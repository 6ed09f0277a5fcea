//===- AmpScale.cpp - Automatic mixed precision ---------------------------===//
//
// amp-scale{compute=auto|F memory=F ... dtype=fp16|bf16 casts=B
//           scaler=auto|B launch-cpu-us=auto|F kind=... ...}
//
// "What if this FP32 model trained with automatic mixed precision?"
// (Daydream, section 5: AMP). FP16/BF16 speeds GPU work up in two ways:
// tensor cores raise the arithmetic peak of GEMMs and convolutions, and half
// the bytes halves the time of kernels that are limited by memory traffic.
// So kernels are scaled by class (KernelClass.h), each distinct name
// classified once. Copies and communication keep FP32 by default: inputs
// arrive in FP32, and gradients of FP32 master weights are reduced in FP32.
//
// The compute factor follows the device (see docs/passes/amp-scale.md for
// why it is the square root of the peak ratio); an explicit value wins.
// What the trace says comes first (docs/CostModels.md): kernels already in
// FP16, BF16 or FP8 keep their time; TF32 kernels are already on tensor
// cores and gain only the TF32-to-FP16 peak ratio; kernels with FLOPs and
// bytes move with the roof their intensity puts them under (Roofline.h);
// and a kernel's latency floor does not shrink with its bytes. Then
// autocast's casts and GradScaler's kernels and sync are added
// (AutocastWork.h): on a step bound by its CPU, mixed precision can be
// slower.
//
//===----------------------------------------------------------------------===//

#include "AutocastWork.h"

#include "daydream/Device/GpuSpecs.h"
#include "daydream/IR/Graph.h"
#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Support/ShortestDouble.h"
#include "daydream/Transforms/KernelClass.h"
#include "daydream/Transforms/Precision.h"
#include "daydream/Transforms/Primitives.h"
#include "daydream/Transforms/Roofline.h"
#include "daydream/Transforms/TaskSelector.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Optional.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <array>
#include <cmath>

using namespace dd;

namespace {

/// Daydream's factors, used when the device's peaks are unknown.
constexpr double DaydreamComputeFactor = 1.0 / 3.0;
constexpr double HalfTheBytes = 0.5;

struct AmpScaleOptions {
  /// None: derive from the device ("auto").
  llvm::Optional<double> Compute;
  double Memory = HalfTheBytes;
  double Other = 1.0;
  double Copy = 1.0;
  double Comm = 1.0;
  bool Latency = true;
  DType To = DType::FP16;
  bool Casts = true;
  /// "auto": on for FP16, off for BF16 (its range needs no loss scaling).
  std::string Scaler = "auto";
  /// None: from the trace ("auto").
  llvm::Optional<double> LaunchCpuUs;
  TaskSelector Select;

  bool scaler() const {
    return Scaler == "auto" ? To == DType::FP16 : Scaler == "true";
  }
};

/// A factor that may be "auto", so that an explicit value can be told apart
/// from the default and always win over what the device suggests.
void addAutoFactor(PassOptionParser &P, llvm::StringRef Key,
                   llvm::Optional<double> &V, llvm::StringRef Desc) {
  P.add(
      Key, Desc,
      [&V](llvm::StringRef S) -> llvm::Error {
        if (S == "auto") {
          V = llvm::None;
          return llvm::Error::success();
        }
        double D;
        if (S.getAsDouble(D) || !std::isfinite(D))
          return optionError("expected a number or auto, found '" + S + "'");
        V = D;
        return llvm::Error::success();
      },
      [&V](llvm::raw_ostream &OS) {
        if (V)
          printShortestDouble(OS, *V);
        else
          OS << "auto";
      });
}

void declare(PassOptionParser &P, AmpScaleOptions &O) {
  addAutoFactor(P, "compute", O.Compute,
                "factor for GEMM and convolution kernels (auto: from the "
                "device's FP32 / FP16 tensor peaks, else 1/3)");
  P.add("memory", O.Memory,
        "factor for elementwise, normalization, reduction and optimizer "
        "kernels (half the bytes)");
  P.add("other", O.Other, "factor for kernels of no known class");
  P.add("copy", O.Copy, "factor for memcpy and memset");
  P.add("comm", O.Comm, "factor for collectives and communication kernels");
  P.add("latency", O.Latency,
        "keep each kernel's latency floor (the device's) out of the scaling");
  P.add(
      "dtype", "what autocast casts to: fp16 or bf16",
      [&O](llvm::StringRef S) -> llvm::Error {
        if (S != "fp16" && S != "bf16")
          return optionError("expected fp16 or bf16, found '" + S + "'");
        O.To = *parseDType(S);
        return llvm::Error::success();
      },
      [&O](llvm::raw_ostream &OS) { OS << toString(O.To); });
  P.add("casts", O.Casts,
        "add autocast's casts of FP32 inputs (needs recorded shapes)");
  P.add("scaler", O.Scaler,
        "add GradScaler's kernels and sync: auto (for fp16), true or false");
  addAutoFactor(P, "launch-cpu-us", O.LaunchCpuUs,
                "CPU time of each added launch, in us (auto: the trace's "
                "median between two forward launches)");
  O.Select.declareOptions(P);
}

llvm::Error validate(const AmpScaleOptions &O) {
  if (O.Compute)
    if (llvm::Error E = checkDurationFactor("compute", *O.Compute))
      return E;
  const std::pair<const char *, double> Plain[] = {{"memory", O.Memory},
                                                   {"other", O.Other},
                                                   {"copy", O.Copy},
                                                   {"comm", O.Comm}};
  for (const auto &[Key, V] : Plain)
    if (llvm::Error E = checkDurationFactor(Key, V))
      return E;
  if (O.Scaler != "auto" && O.Scaler != "true" && O.Scaler != "false")
    return optionError("scaler must be auto, true or false, not '" + O.Scaler +
                       "'");
  if (O.LaunchCpuUs && *O.LaunchCpuUs < 0)
    return optionError("launch-cpu-us must not be negative");
  return O.Select.validate();
}

/// Speed-up of a tensor-core kernel, as a duration factor. Real GEMMs and
/// convolutions at training sizes reach a smaller fraction of the tensor
/// peak than of the FP32 peak, so the full peak ratio overstates the gain;
/// its square root matches Daydream's measured 1/3 on a V100 (ratio 8) and
/// stays between "no gain" and "peak gain" on every GPU.
double tensorCoreFactor(double Fp32Tflops, double Fp16Tflops) {
  return std::sqrt(std::min(1.0, Fp32Tflops / Fp16Tflops));
}

double deviceComputeFactor(const Graph &G) {
  if (const GpuSpec *S = findGraphGpu(G))
    return tensorCoreFactor(S->Fp32Tflops, S->Fp16Tflops);
  // A device outside the table may still carry its peaks.
  for (const Device &D : G.metadata().Devices) {
    double Tensor = std::max(D.PeakFp16Tflops, D.PeakBf16Tflops);
    if (D.PeakFp32Tflops > 0 && Tensor > 0)
      return tensorCoreFactor(D.PeakFp32Tflops, Tensor);
  }
  return DaydreamComputeFactor;
}

using ClassFactors = std::array<double, NumKernelClasses>;

ClassFactors classFactors(const AmpScaleOptions &O, const Graph &G) {
  ClassFactors F;
  double Compute = O.Compute ? *O.Compute : deviceComputeFactor(G);
  for (unsigned C = 0; C != NumKernelClasses; ++C) {
    KernelClass K = KernelClass(C);
    if (isComputeBound(K))
      F[C] = Compute;
    else if (isMemoryBound(K))
      F[C] = O.Memory;
    else if (K == KernelClass::Copy)
      F[C] = O.Copy;
    else if (K == KernelClass::Communication)
      F[C] = O.Comm;
    else
      F[C] = O.Other;
  }
  return F;
}

/// Sets kernels' dtype, keeping attribute entries shared: each entry is
/// copied once, with the new dtype, for all the tasks that had it.
class Retyper {
public:
  explicit Retyper(DType To) : To(To) {}

  void apply(Graph &G, TaskId T) {
    AttrId Old = G.task(T).Attrs;
    if (Old == NoId) {
      if (Bare != NoId) {
        G.shareAttrs(T, Bare);
      } else {
        TaskAttrs A;
        A.DType = uint8_t(To);
        Bare = G.setAttrs(T, A);
      }
      return;
    }
    auto It = Copies.find(Old);
    if (It != Copies.end()) {
      G.shareAttrs(T, It->second);
      return;
    }
    TaskAttrs A = G.attrSlots()[Old];
    A.DType = uint8_t(To);
    Copies[Old] = G.setAttrs(T, A);
  }

private:
  DType To;
  llvm::DenseMap<AttrId, AttrId> Copies;
  AttrId Bare = NoId; ///< for tasks without attributes
};

class AmpScale {
public:
  static constexpr const char *Name = "amp-scale";
  static constexpr const char *Flag = "amp";
  static constexpr const char *Description =
      "Automatic mixed precision: scale GPU kernels by class (compute- vs "
      "memory-bound)";
  using OptionsT = AmpScaleOptions;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;
  static constexpr bool IsRankLocal = true;

  explicit AmpScale(AmpScaleOptions O) : O(std::move(O)) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &AM) {
    ClassFactors Factors = classFactors(O, G);
    const GpuSpec *Spec = findGraphGpu(G);
    double FloorNs = Spec && O.Latency ? Spec->LatencyFloorUs * 1000 : 0;
    // Precision changes nothing on the CPU: only GPU work is selected.
    KernelClassifier Classifier(G);
    std::vector<TaskId> Selection = O.Select.select(G);
    double Share = reducedGemmShare(G, Selection, Classifier);
    if (Share >= AlreadyMixedShare) {
      AM.warning(
          llvm::formatv("the trace runs {0:f1}% of its GEMM and convolution "
                        "time in reduced precision already: it is mixed "
                        "precision; nothing was changed",
                        Share * 100)
              .str());
      return PreservedAnalyses::all();
    }
    size_t Selected = 0, Reduced = 0, Kernels = 0;
    std::vector<TaskId> Retyped;
    for (TaskId T : Selection) {
      if (!isGpuWork(G.task(T).Kind))
        continue;
      ++Selected;
      KernelClass C = Classifier.classOf(T);
      const TaskAttrs *A = G.attrs(T);
      DType D = A ? DType(A->DType) : DType::Unknown;
      if (G.task(T).Kind == TaskKind::Kernel) {
        ++Kernels;
        if (isReducedPrecision(D)) {
          ++Reduced;
          continue;
        }
      }
      // The compute roof's factor for this kernel's precision.
      double Compute = Factors[unsigned(KernelClass::Gemm)];
      if (D == DType::TF32 && !O.Compute)
        Compute = tf32Factor(Spec, Compute);
      double F = isComputeBound(C) ? Compute : Factors[unsigned(C)];
      if ((isComputeBound(C) || isMemoryBound(C)) && A && Spec) {
        double R = rooflineFactor(
            double(A->Flops), double(A->Bytes), peakTflops(*Spec, D),
            Spec->MemoryBandwidthGBps, RoofFactors{Compute, O.Memory});
        if (!std::isnan(R))
          F = R;
      }
      // What autocast runs in FP16/BF16 is marked so, once autocast's work
      // is added: a second amp-scale (or print<kernels>) sees mixed
      // precision. Optimizers keep FP32.
      if (G.task(T).Kind == TaskKind::Kernel &&
          (isComputeBound(C) ||
           (isMemoryBound(C) && C != KernelClass::Optimizer)))
        Retyped.push_back(T);
      if (F == 1.0)
        continue;
      Task &Tk = G.task(T);
      double Floor = Tk.Kind == TaskKind::Kernel ? FloorNs : 0;
      Tk.DurationNs = scaleAboveFloor(Tk.DurationNs, Floor, 1.0, F);
    }
    if (Selected == 0)
      AM.warning("the selection '" + O.Select.describe() +
                 "' matches no GPU work; nothing was changed");
    else if (Reduced != 0 && Reduced == Kernels)
      AM.warning(llvm::formatv("all {0} kernels already run in reduced "
                               "precision; their time is kept",
                               Kernels)
                     .str());
    else if (Reduced != 0)
      AM.warning(llvm::formatv("{0} of {1} kernels already run in reduced "
                               "precision; their time is kept",
                               Reduced, Kernels)
                     .str());
    if (!Spec)
      AM.warning("the device is not in the GPU table: compute-bound kernels "
                 "take Daydream's factor, no latency floor is kept, and "
                 "autocast's and GradScaler's own work is not modelled");
    bool Structure = false;
    if (Kernels > Reduced && Spec && (O.Casts || O.scaler())) {
      if (!O.Select.selectsAll()) {
        AM.warning("autocast's and GradScaler's own work is modelled for a "
                   "whole model only, not for a selection of its kernels");
      } else {
        amp::AutocastOptions AO;
        AO.To = O.To;
        AO.Casts = O.Casts;
        AO.Scaler = O.scaler();
        if (O.LaunchCpuUs)
          AO.LaunchCpuNs = *O.LaunchCpuUs * 1000;
        amp::AutocastSummary W = amp::addAutocastWork(G, *Spec, AO);
        Structure = report(W, AM);
      }
    }
    // After autocast's work, which reads the recorded precision.
    Retyper Retype(O.To);
    for (TaskId T : Retyped)
      Retype.apply(G, T);
    if (O.To == DType::BF16 && Spec && !Spec->HasBf16)
      AM.warning(llvm::formatv("the {0} has no BF16 tensor cores: the "
                               "prediction takes FP16's speed for BF16",
                               Spec->Name)
                     .str());
    if (Structure)
      return PreservedAnalyses::none();
    return PreservedAnalyses::none().preserveSet<StructureAnalyses>();
  }

private:
  /// Autocast runs a model's GEMMs and convolutions in FP16/BF16 and keeps
  /// its optimizer, losses and reductions in FP32: a trace whose GEMM and
  /// convolution time is mostly in reduced precision already has it on,
  /// and its FP32 kernels are the ones autocast keeps.
  static constexpr double AlreadyMixedShare = 0.5;

  /// The share of the selected GEMM and convolution kernels' time that
  /// runs in reduced precision; 0 where none.
  static double reducedGemmShare(const Graph &G,
                                 llvm::ArrayRef<TaskId> Selection,
                                 KernelClassifier &Classifier) {
    double Reduced = 0, All = 0;
    for (TaskId T : Selection) {
      const Task &Tk = G.task(T);
      if (Tk.Kind != TaskKind::Kernel || !isComputeBound(Classifier.classOf(T)))
        continue;
      All += double(Tk.DurationNs);
      const TaskAttrs *A = G.attrs(T);
      if (A && isReducedPrecision(DType(A->DType)))
        Reduced += double(Tk.DurationNs);
    }
    return All > 0 ? Reduced / All : 0;
  }

  /// Says what autocast's own work added and what it rests on; whether it
  /// added tasks.
  bool report(const amp::AutocastSummary &W, AnalysisManager &AM) const {
    if (W.NoShapes)
      AM.warning("the trace records no op shapes (profile with "
                 "record_shapes=True): autocast's casts and GradScaler's "
                 "work are not modelled, so the prediction is optimistic "
                 "where the step is bound by the CPU");
    else if (W.EligibleCalls == 0 && W.ReducedCalls == 0)
      AM.warning("no forward call of an op autocast casts for (aten::linear, "
                 "conv, matmul, ...) launched a kernel: autocast's casts and "
                 "GradScaler's work are not modelled");
    size_t Casts = W.WeightCasts + W.ActivationCasts;
    if (Casts != 0)
      AM.warning(
          llvm::formatv("autocast: added {0} casts of weights and {1} of "
                        "activations over {2} forward passes ({3:f1} MB), each "
                        "a copy kernel and {4:f1} us of CPU{5}",
                        W.WeightCasts, W.ActivationCasts, W.Forwards,
                        W.CastBytes / 1e6, W.LaunchCpuNs / 1000,
                        !O.LaunchCpuUs
                            ? " (the trace's median CPU time per forward "
                              "launch)"
                            : "")
              .str());
    if (W.TraceHasScaler && O.scaler())
      AM.warning("the trace runs GradScaler already: none was added");
    if (W.ScalerSteps != 0)
      AM.warning(
          llvm::formatv("GradScaler: added to {0} steps: the loss scaling, the "
                        "gradients' unscale and inf check with a host sync "
                        "before the optimizer step, and the scale update ({1} "
                        "launches in all)",
                        W.ScalerSteps, W.ScalerLaunches)
              .str());
    if (W.StepsWithoutOptimizer != 0)
      AM.warning(
          llvm::formatv("GradScaler: {0} forward passes have no optimizer step "
                        "after their backward on their thread; no GradScaler "
                        "work was added there",
                        W.StepsWithoutOptimizer)
              .str());
    if (W.CallsWithoutKernel != 0)
      AM.warning(llvm::formatv("autocast: {0} eligible op calls launched no "
                               "kernel; nothing was added for them",
                               W.CallsWithoutKernel)
                     .str());
    return Casts != 0 || W.ScalerLaunches != 0;
  }

  /// A TF32 kernel is on tensor cores already: FP16 gains their peak ratio
  /// (tensor core to tensor core, the same achieved fraction assumed).
  static double tf32Factor(const GpuSpec *S, double Fallback) {
    if (!S || !(S->Tf32Tflops > 0) || !(S->Fp16Tflops > 0))
      return Fallback;
    return std::min(1.0, S->Tf32Tflops / S->Fp16Tflops);
  }

  AmpScaleOptions O;
};

} // namespace

PassInfo dd::passInfoOfAmpScale() { return passInfo<AmpScale>(); }
