//===- AmpScale.cpp - Automatic mixed precision ---------------------------===//
//
// amp-scale{compute=auto|F memory=F other=F copy=F comm=F kind=... ...}
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
// and a kernel's latency floor does not shrink with its bytes.
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/Graph.h"
#include "daydream/Pass/PassOptions.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Transforms/GpuSpecs.h"
#include "daydream/Transforms/KernelClass.h"
#include "daydream/Transforms/Precision.h"
#include "daydream/Transforms/Primitives.h"
#include "daydream/Transforms/Roofline.h"
#include "daydream/Transforms/TaskSelector.h"

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
  TaskSelector Select;
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
          OS << llvm::format("%.17g", *V);
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
  O.Select.declareOptions(P);
}

llvm::Error validate(const AmpScaleOptions &O) {
  if (O.Compute && *O.Compute < 0)
    return optionError("compute must not be negative");
  const std::pair<const char *, double> Plain[] = {{"memory", O.Memory},
                                                   {"other", O.Other},
                                                   {"copy", O.Copy},
                                                   {"comm", O.Comm}};
  for (const auto &[Key, V] : Plain)
    if (V < 0)
      return optionError(llvm::Twine(Key) + " must not be negative");
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

class AmpScale {
public:
  explicit AmpScale(AmpScaleOptions O) : O(std::move(O)) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &AM) {
    ClassFactors Factors = classFactors(O, G);
    const GpuSpec *Spec = findGraphGpu(G);
    double FloorNs = Spec && O.Latency ? Spec->LatencyFloorUs * 1000 : 0;
    // Precision changes nothing on the CPU: only GPU work is selected.
    KernelClassifier Classifier(G);
    size_t Selected = 0, Reduced = 0, Kernels = 0;
    for (TaskId T : O.Select.select(G)) {
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
        double R = rooflineFactor(double(A->Flops), double(A->Bytes),
                                  peakTflops(*Spec, D),
                                  Spec->MemoryBandwidthGBps,
                                  RoofFactors{Compute, O.Memory});
        if (!std::isnan(R))
          F = R;
      }
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
                 "take Daydream's factor, and no latency floor is kept");
    if (Kernels > Reduced)
      AM.warning("autocast's cast kernels and launches and GradScaler's "
                 "kernels and sync are not modelled: the prediction is "
                 "optimistic where the step is bound by the CPU");
    return PreservedAnalyses::none().preserveSet<StructureAnalyses>();
  }

private:
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

llvm::Expected<std::unique_ptr<PassConcept>>
dd::createAmpScalePass(llvm::StringRef Options) {
  return buildPass<AmpScale, AmpScaleOptions>("amp-scale", Options, declare,
                                              validate);
}

void dd::printAmpScalePassOptions(llvm::raw_ostream &OS, unsigned Indent) {
  printOptionsHelp<AmpScaleOptions>("amp-scale", declare, OS, Indent);
}
