//===- RetargetGpu.cpp - Predict the trace on another GPU -----------------===//
//
// retarget-gpu{to=NAME from=NAME precision=fp32|fp16}
//
// "What if this run had used an H100 instead of a V100?" Each GPU task is
// scaled by the ratio of the peak that limits it: compute-bound kernels by
// arithmetic peak, memory-bound kernels and on-device copies by memory
// bandwidth, communication by link bandwidth (a roofline argument: a kernel
// at its roof moves with that roof). Kernels of no known class take the
// geometric mean of the compute and memory ratios, the log-midpoint of the
// two roofs they could sit under. Host copies cross PCIe, which the GPU
// table does not describe, so they keep their time; CPU work is the same
// host either way. The device metadata becomes the target's, so that later
// device-aware passes (amp-scale) see the new GPU.
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/Graph.h"
#include "daydream/Pass/PassOptions.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Transforms/GpuSpecs.h"
#include "daydream/Transforms/KernelClass.h"
#include "daydream/Transforms/Primitives.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace dd;

namespace {

struct RetargetGpuOptions {
  std::string To, From;
  std::string Precision = "fp32";
};

void declare(PassOptionParser &P, RetargetGpuOptions &O) {
  P.add("to", O.To,
        "GPU to predict for (required): v100, a100, h100, h200, "
        "b200 or mi300x");
  P.add("from", O.From,
        "GPU the trace ran on (default: the graph's device metadata)");
  P.add("precision", O.Precision,
        "peak that bounds GEMMs and convolutions: fp32 (CUDA cores) or fp16 "
        "(tensor cores, FP16/BF16)");
}

std::string validGpuNames() {
  std::string Names;
  for (const GpuSpec &S : knownGpus())
    Names += (Names.empty() ? "" : ", ") + S.Name.str();
  return Names;
}

/// Options name GPUs by short name only: a near miss ("h10") is an error,
/// not whatever entry its letters happen to contain.
const GpuSpec *findByShortName(llvm::StringRef Name) {
  for (const GpuSpec &S : knownGpus())
    if (S.Name.equals_insensitive(Name))
      return &S;
  return nullptr;
}

llvm::Error checkGpuName(llvm::StringRef Key, llvm::StringRef Name) {
  if (findByShortName(Name))
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
  if (O.Precision != "fp32" && O.Precision != "fp16")
    return optionError("precision: expected fp32 or fp16, found '" +
                       O.Precision + "'");
  return llvm::Error::success();
}

/// Duration factors (old GPU's peak over the new one's) of the three roofs.
struct Ratios {
  double Compute, Memory, Link;
};

Ratios ratios(const GpuSpec &From, const GpuSpec &To, bool Fp16) {
  double FromPeak = Fp16 ? From.Fp16Tflops : From.Fp32Tflops;
  double ToPeak = Fp16 ? To.Fp16Tflops : To.Fp32Tflops;
  return {FromPeak / ToPeak, From.MemoryBandwidthGBps / To.MemoryBandwidthGBps,
          From.LinkGBps / To.LinkGBps};
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

double kernelFactor(KernelClass C, const Ratios &R) {
  if (isComputeBound(C))
    return R.Compute;
  if (isMemoryBound(C))
    return R.Memory;
  if (C == KernelClass::Communication)
    return R.Link;
  // Under one of the two roofs, but which is unknown: the log-midpoint.
  return std::sqrt(R.Compute * R.Memory);
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
  return (S.Name.startswith("mi") ? "AMD Instinct " : "NVIDIA ") + Upper;
}

class RetargetGpu {
public:
  explicit RetargetGpu(RetargetGpuOptions O) : O(std::move(O)) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &) {
    const GpuSpec *From = sourceGpu(G);
    if (!From)
      return optionError("the graph's device (" + graphDeviceNames(G) +
                         ") is not in the GPU table; give from= (valid: " +
                         validGpuNames() + ")");
    const GpuSpec &To = *findByShortName(O.To);
    scaleGpuWork(G, ratios(*From, To, O.Precision == "fp16"));
    describeDevices(G, To);
    return PreservedAnalyses::none().preserveSet<StructureAnalyses>();
  }

private:
  const GpuSpec *sourceGpu(const Graph &G) const {
    return O.From.empty() ? findGraphGpu(G) : findByShortName(O.From);
  }

  static std::string graphDeviceNames(const Graph &G) {
    std::string Names;
    for (const Device &D : G.metadata().Devices)
      Names += (Names.empty() ? "'" : ", '") + D.Name + "'";
    return Names.empty() ? "none recorded" : Names;
  }

  static void scaleGpuWork(Graph &G, const Ratios &R) {
    KernelClassifier Classifier(G);
    for (TaskId T = 0, E = G.numTaskSlots(); T != E; ++T) {
      if (!G.isLive(T) || !isGpuWork(G.task(T).Kind))
        continue;
      KernelClass C = Classifier.classOf(T);
      double F = C == KernelClass::Copy ? copyFactor(copyPath(G, T), R)
                                        : kernelFactor(C, R);
      scaleDurations(G, T, F);
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
      D.PeakBf16Tflops = To.Fp16Tflops;
      D.MemoryBandwidthGBps = To.MemoryBandwidthGBps;
    }
  }

  RetargetGpuOptions O;
};

} // namespace

llvm::Expected<std::unique_ptr<PassConcept>>
dd::createRetargetGpuPass(llvm::StringRef Options) {
  return buildPass<RetargetGpu, RetargetGpuOptions>("retarget-gpu", Options,
                                                    declare, validate);
}

void dd::printRetargetGpuPassOptions(llvm::raw_ostream &OS, unsigned Indent) {
  printOptionsHelp<RetargetGpuOptions>("retarget-gpu", declare, OS, Indent);
}
