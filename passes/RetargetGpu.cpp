//===- RetargetGpu.cpp - Predict the trace on another GPU -----------------===//
//
// retarget-gpu{to=NAME from=NAME precision=auto|fp32|fp16 latency=BOOL
//              host-speed=F}
//
// "What if this run had used an H100 instead of a V100?" Each kernel's time
// is its latency floor plus work under a roof (Roofline.h): the floor moves
// with the two GPUs' floors, the work with the ratio of the peak that
// limits it. Kernels with FLOPs and bytes (from the op's shapes) find that
// roof from their own intensity; others by class: compute-bound kernels by
// the arithmetic peak of their precision (their dtype: an FP32 sgemm by the
// FP32 peak, a bf16 one by the tensor peak), memory-bound kernels and
// on-device copies by memory bandwidth, communication by link bandwidth;
// kernels of no known class take the geometric mean of the compute and
// memory ratios, the log-midpoint of the two roofs they could sit under.
// Host copies cross PCIe, which the table does not describe, so they keep
// their time; CPU work is the same host unless host-speed= says how much
// faster the new one is. Kernel classes are read from the libraries of
// both vendors, so a ROCm trace retargets to an NVIDIA GPU and back. The
// device metadata becomes the target's, so that later device-aware passes
// (amp-scale) see the new GPU.
//
//===----------------------------------------------------------------------===//

#include "daydream/Device/GpuSpecs.h"
#include "daydream/IR/Graph.h"
#include "daydream/IR/TaskFieldBounds.h"
#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Transforms/KernelClass.h"
#include "daydream/Transforms/Primitives.h"
#include "daydream/Transforms/Roofline.h"

#include "llvm/ADT/StringExtras.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>

using namespace dd;

namespace {

struct RetargetGpuOptions {
  std::string To, From;
  std::string Precision = "auto";
  bool Latency = true;
  double HostSpeed = 1.0;
};

void declare(PassOptionParser &P, RetargetGpuOptions &O) {
  P.add("to", O.To,
        "GPU to predict for (required): a short name of the table in "
        "docs/CostModels.md (h100, mi300x, ...)");
  P.add("from", O.From,
        "GPU the trace ran on (default: the graph's device metadata)");
  P.add("precision", O.Precision,
        "the peak GEMMs and convolutions are read at: auto (each kernel's "
        "dtype, fp32 where unknown), or fp32 (CUDA cores) or fp16 (tensor "
        "cores) for every kernel");
  P.add("latency", O.Latency,
        "keep each kernel's latency floor apart from its work (the floor "
        "moves with the GPUs' floors, not their peaks)");
  P.add("host-speed", O.HostSpeed,
        "how many times faster the new host's CPU is: CPU tasks and gaps "
        "are divided by it");
}

std::string validGpuNames() {
  std::string Names;
  for (const GpuSpec &S : knownGpus())
    Names += (Names.empty() ? "" : ", ") + S.Name.str();
  return Names;
}

/// Options name GPUs by short name only: a near miss ("h10") is an error,
/// not whatever entry its letters happen to contain.
llvm::Error checkGpuName(llvm::StringRef Key, llvm::StringRef Name) {
  if (findGpuByShortName(Name))
    return llvm::Error::success();
  return optionError(Key + ": unknown GPU '" + Name +
                     "' (valid: " + validGpuNames() + ")");
}

llvm::Error validate(const RetargetGpuOptions &O) {
  if (O.To.empty())
    return optionError("to= is required (valid: " + validGpuNames() + ")");
  if (llvm::Error E = checkGpuName("to", O.To))
    return E;
  if (!O.From.empty())
    if (llvm::Error E = checkGpuName("from", O.From))
      return E;
  if (O.Precision != "auto" && O.Precision != "fp32" && O.Precision != "fp16")
    return optionError("precision: expected auto, fp32 or fp16, found '" +
                       O.Precision + "'");
  if (!(O.HostSpeed > 0) || !std::isfinite(O.HostSpeed))
    return optionError("host-speed must be a positive number");
  return llvm::Error::success();
}

/// Duration factors (old GPU's peak over the new one's) of the roofs.
struct Ratios {
  double Memory, Link;
};

Ratios ratios(const GpuSpec &From, const GpuSpec &To) {
  return {From.MemoryBandwidthGBps / To.MemoryBandwidthGBps,
          From.LinkGBps / To.LinkGBps};
}

/// The old peak over the new for arithmetic in \p D.
double computeRatio(const GpuSpec &From, const GpuSpec &To, DType D) {
  return peakTflops(From, D) / peakTflops(To, D);
}

/// Where a copy's bytes travel: the GPU's memory, its links, or the host's
/// PCIe (which a new GPU does not speed up).
enum class CopyPath { DeviceMemory, Link, Host };

CopyPath copyPath(const Graph &G, TaskId T) {
  if (G.task(T).Kind == TaskKind::Memset)
    return CopyPath::DeviceMemory;
  uint8_t Kind = 0;
  if (const TaskAttrs *A = G.attrs(T))
    Kind = A->CopyKind;
  switch (CopyKind(Kind)) {
  case CopyKind::HostToDevice:
  case CopyKind::DeviceToHost:
    return CopyPath::Host;
  case CopyKind::PeerToPeer:
    return CopyPath::Link;
  case CopyKind::DeviceToDevice:
    return CopyPath::DeviceMemory;
  default:
    break;
  }
  // Without the attribute, the profilers' own spellings still tell.
  if (G.task(T).Name == NoId)
    return CopyPath::DeviceMemory;
  llvm::StringRef Name = G.str(G.task(T).Name);
  if (Name.contains("HtoD") || Name.contains("DtoH"))
    return CopyPath::Host;
  if (Name.contains("PtoP"))
    return CopyPath::Link;
  return CopyPath::DeviceMemory;
}

double classFactor(KernelClass C, double Compute, const Ratios &R) {
  if (isComputeBound(C))
    return Compute;
  if (isMemoryBound(C))
    return R.Memory;
  if (C == KernelClass::Communication)
    return R.Link;
  // Under one of the two roofs, but which is unknown: the log-midpoint.
  return std::sqrt(Compute * R.Memory);
}

double copyFactor(CopyPath P, const Ratios &R) {
  switch (P) {
  case CopyPath::DeviceMemory:
    return R.Memory;
  case CopyPath::Link:
    return R.Link;
  case CopyPath::Host:
    break;
  }
  return 1.0;
}

/// The display name a trace would record, spelled so findGpu() finds the
/// entry again.
std::string deviceName(const GpuSpec &S) {
  std::string Upper = S.Name.upper();
  return (S.Vendor == GpuVendor::Amd ? "AMD Instinct " : "NVIDIA ") + Upper;
}

class RetargetGpu {
public:
  static constexpr const char *Name = "retarget-gpu";
  static constexpr const char *Description =
      "Predict the trace on another GPU from peak throughput and bandwidth "
      "ratios";
  using OptionsT = RetargetGpuOptions;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;

  explicit RetargetGpu(RetargetGpuOptions O) : O(std::move(O)) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &AM) {
    const GpuSpec *From = sourceGpu(G);
    if (!From)
      return optionError("the graph's device (" + graphDeviceNames(G) +
                         ") is not in the GPU table; give from= (valid: " +
                         validGpuNames() + ")");
    const GpuSpec &To = *findGpuByShortName(O.To);
    Counts N = scaleGpuWork(G, *From, To);
    if (O.HostSpeed != 1.0)
      scaleCpuWork(G, 1.0 / O.HostSpeed);
    if (N.Kernels != 0 && N.WithWork * 10 < N.Kernels)
      AM.warning(llvm::formatv("{0} of {1} kernels have FLOPs and bytes; the "
                               "others move by their class's roof (record "
                               "with record_shapes=True for more)",
                               N.WithWork, N.Kernels)
                     .str());
    if (O.HostSpeed == 1.0)
      AM.warning("CPU tasks keep their recorded time: the host is assumed "
                 "unchanged (give host-speed= if it is not)");
    describeDevices(G, To);
    return PreservedAnalyses::none().preserveSet<StructureAnalyses>();
  }

private:
  struct Counts {
    size_t Kernels = 0, WithWork = 0;
  };

  const GpuSpec *sourceGpu(const Graph &G) const {
    return O.From.empty() ? findGraphGpu(G) : findGpuByShortName(O.From);
  }

  static std::string graphDeviceNames(const Graph &G) {
    std::string Names;
    for (const Device &D : G.metadata().Devices)
      Names += (Names.empty() ? "'" : ", '") + D.Name + "'";
    return Names.empty() ? "none recorded" : Names;
  }

  /// The precision a kernel's compute roof is read at.
  DType computeDType(const TaskAttrs *A) const {
    if (O.Precision == "fp16")
      return DType::FP16;
    if (O.Precision == "fp32")
      return DType::FP32;
    return A && A->DType != 0 ? DType(A->DType) : DType::FP32;
  }

  Counts scaleGpuWork(Graph &G, const GpuSpec &From, const GpuSpec &To) const {
    Ratios R = ratios(From, To);
    double FloorNs = O.Latency ? From.LatencyFloorUs * 1000 : 0;
    double FloorFactor = To.LatencyFloorUs / From.LatencyFloorUs;
    KernelClassifier Classifier(G);
    Counts N;
    for (TaskId T : G.liveTasks()) {
      if (!isGpuWork(G.task(T).Kind))
        continue;
      KernelClass C = Classifier.classOf(T);
      if (C == KernelClass::Copy) {
        scaleDurations(G, T, copyFactor(copyPath(G, T), R));
        continue;
      }
      const TaskAttrs *A = G.attrs(T);
      DType D = computeDType(A);
      double Compute = computeRatio(From, To, D);
      double F = std::numeric_limits<double>::quiet_NaN();
      if (A && C != KernelClass::Communication)
        F = rooflineFactor(double(A->Flops), double(A->Bytes),
                           peakTflops(From, D), From.MemoryBandwidthGBps,
                           RoofFactors{Compute, R.Memory});
      if (std::isnan(F))
        F = classFactor(C, Compute, R);
      Task &Tk = G.task(T);
      // Collectives have their own latency (the network model's); the
      // floor is a compute kernel's.
      if (Tk.Kind != TaskKind::Kernel || C == KernelClass::Communication) {
        scaleDurations(G, T, F);
        continue;
      }
      ++N.Kernels;
      N.WithWork += A && (A->Flops != 0 || A->Bytes != 0);
      Tk.DurationNs = scaleAboveFloor(Tk.DurationNs, FloorNs, FloorFactor, F);
    }
    return N;
  }

  /// CPU work on a faster (or slower) host: every CPU task's time and the
  /// untraced time before it.
  static void scaleCpuWork(Graph &G, double Factor) {
    for (TaskId T : G.liveTasks()) {
      if (isGpuWork(G.task(T).Kind) || G.task(T).Kind == TaskKind::Marker)
        continue;
      Task &Tk = G.task(T);
      if (G.lane(Tk.Lane).Kind != LaneKind::CpuThread)
        continue;
      Tk.DurationNs = roundNs(double(Tk.DurationNs) * Factor);
      Tk.GapNs = roundNs(double(Tk.GapNs) * Factor);
    }
  }

  /// Figures of the old GPU (SM count, memory size) would be wrong for the
  /// new one, so they become unknown rather than stale.
  static void describeDevices(Graph &G, const GpuSpec &To) {
    std::vector<Device> &Devices = G.metadata().Devices;
    if (Devices.empty())
      Devices.push_back(Device{});
    for (Device &D : Devices) {
      D.Name = deviceName(To);
      D.SmCount = 0;
      D.MemoryBytes = 0;
      D.PeakFp32Tflops = To.Fp32Tflops;
      D.PeakFp16Tflops = To.Fp16Tflops;
      D.PeakBf16Tflops = To.HasBf16 ? To.Fp16Tflops : 0;
      D.MemoryBandwidthGBps = To.MemoryBandwidthGBps;
    }
  }

  RetargetGpuOptions O;
};

} // namespace

PassInfo dd::passInfoOfRetargetGpu() { return passInfo<RetargetGpu>(); }
