//===- BatchSize.cpp - The same training with a larger or smaller batch ---===//
//
// batch-size{factor=F data=REGEX}
//
// "What if the batch were F times as large?" Per-sample work scales, the
// rest stays:
//  - GPU kernels of the forward and backward phases: above the GPU's latency
//    floor, by the number of waves their grid takes, with the batch spread
//    over F times as many blocks (an under-occupied kernel, one wave or
//    less, grows less than linearly: TBD's observation that throughput
//    rises with the batch until the GPU is full). Without a recorded grid,
//    or on a GPU the pass does not know, linearly.
//  - Copies and sets of those phases, and host-to-device copies (the
//    input batch): linearly.
//  - CPU work inside the data loader (layers matching data=): linearly.
//  - CPU ops and launches, optimizer kernels, collectives (gradients have
//    the model's size), device-to-host copies: as recorded.
//  - Memory: activation blocks, and workspace blocks of the forward and
//    backward phases, F times as large; weights, gradients and optimizer
//    state as recorded.
// docs/passes/batch-size.md has the derivation and its limits.
//
//===----------------------------------------------------------------------===//

#include "Recompute.h"

#include "daydream/Analysis/MemoryBreakdown.h"
#include "daydream/Device/GpuSpecs.h"
#include "daydream/IR/Graph.h"
#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Transforms/KernelClass.h"
#include "daydream/Transforms/LayerChains.h"
#include "daydream/Transforms/Roofline.h"

#include "llvm/Support/Regex.h"

#include <algorithm>
#include <cmath>

using namespace dd;

namespace {

struct Options {
  double Factor = 1.0;
  std::string Data = "^enumerate\\(DataLoader\\)#";
};

void declare(PassOptionParser &P, Options &O) {
  P.add("factor", O.Factor,
        "the new batch over the recorded one, in (0, 1000]");
  P.add("data", O.Data,
        "regex naming the data loader's ranges, whose CPU work scales");
}

llvm::Error validate(const Options &O) {
  if (!(O.Factor > 0 && O.Factor <= 1000))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "factor= must be in (0, 1000]");
  std::string Why;
  if (!O.Data.empty() && !llvm::Regex(O.Data).isValid(Why))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "data=: " + Why);
  return llvm::Error::success();
}

/// Per-SM limits of the NVIDIA GPUs since Volta (CUDA C Programming Guide,
/// "Compute Capabilities" table: 2048 resident threads and 32 blocks per SM
/// for compute capability 7.0, 8.0 and 9.0, 64K 32-bit registers), and the
/// shared memory every one of them offers a block (96 KiB: Volta's
/// largest carve-out; Ampere and Hopper offer more, so large-smem kernels
/// fit more blocks there than this counts).
constexpr unsigned ThreadsPerSm = 2048, BlocksPerSm = 32;
constexpr uint64_t RegistersPerSm = 65536, SharedPerSm = uint64_t(96) * 1024;

/// How many blocks of a kernel's shape one SM holds at once; 0 if unknown.
uint64_t residentBlocks(const TaskAttrs &A) {
  uint64_t Threads = uint64_t(A.Block[0]) * A.Block[1] * A.Block[2];
  if (Threads == 0)
    return 0;
  uint64_t N = std::min<uint64_t>(BlocksPerSm, ThreadsPerSm / Threads);
  if (A.RegistersPerThread)
    N = std::min<uint64_t>(N,
                           RegistersPerSm / (A.RegistersPerThread * Threads));
  if (A.SharedMemBytes)
    N = std::min<uint64_t>(N, SharedPerSm / A.SharedMemBytes);
  return N;
}

/// The work factor of a kernel when its grid grows by \p F: the ratio of
/// waves (ceil(blocks / (SMs x resident blocks))), or F if the grid or the
/// GPU is unknown.
double waveFactor(const TaskAttrs *A, unsigned Sms, double F) {
  if (!A || !Sms)
    return F;
  uint64_t Blocks = uint64_t(A->Grid[0]) * A->Grid[1] * A->Grid[2];
  uint64_t PerWave = Sms * residentBlocks(*A);
  if (!Blocks || !PerWave)
    return F;
  double Before = std::ceil(double(Blocks) / double(PerWave));
  double After = std::ceil(std::ceil(double(Blocks) * F) / double(PerWave));
  return After / Before;
}

class BatchSize {
public:
  static constexpr const char *Name = "batch-size";
  static constexpr const char *Description =
      "A batch F times as large: per-sample GPU work by waves, data loading "
      "and activations linearly";
  using OptionsT = Options;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;
  static constexpr bool IsRankLocal = true;

  explicit BatchSize(Options O) : O(std::move(O)) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &AM) {
    if (O.Factor == 1.0)
      return PreservedAnalyses::all();
    const GpuSpec *Spec = findGraphGpu(G);
    const double FloorNs = Spec ? Spec->LatencyFloorUs * 1000 : 0;
    std::vector<unsigned> Sms(G.numLanes(), 0);
    for (LaneId L = 0; L != G.numLanes(); ++L)
      for (const Device &D : G.metadata().Devices)
        if (D.Index == G.lane(L).Device && D.SmCount > 0)
          Sms[L] = unsigned(D.SmCount);
    std::vector<LayerId> Data;
    if (!O.Data.empty())
      Data = nearestMatchingLayers(G, O.Data);
    KernelClassifier Classes(G);
    uint64_t Kernels = 0, ByWaves = 0, Linear = 0, Loading = 0;
    for (TaskId T : G.liveTasks()) {
      Task &Tk = G.task(T);
      const bool PerSample =
          Tk.Phase == Phase::Forward || Tk.Phase == Phase::Backward;
      switch (Tk.Kind) {
      case TaskKind::Kernel: {
        if (!PerSample || Classes.classOf(T) == KernelClass::Optimizer)
          break;
        double Work = waveFactor(G.attrs(T), Sms[Tk.Lane], O.Factor);
        Tk.DurationNs = scaleAboveFloor(Tk.DurationNs, FloorNs, 1.0, Work);
        ++Kernels;
        ByWaves += Work != O.Factor;
        break;
      }
      case TaskKind::Memcpy:
      case TaskKind::Memset: {
        const TaskAttrs *A = G.attrs(T);
        bool Input = A && A->CopyKind == uint8_t(CopyKind::HostToDevice) &&
                     Tk.Phase != Phase::Optimizer;
        bool ToHost = A && A->CopyKind == uint8_t(CopyKind::DeviceToHost);
        if ((PerSample && !ToHost) || Input) {
          Tk.DurationNs = scale(Tk.DurationNs);
          ++Linear;
        }
        break;
      }
      case TaskKind::CpuOp:
      case TaskKind::Runtime:
        if (!Data.empty() && Tk.Layer != NoId && Data[Tk.Layer] != NoId) {
          Tk.DurationNs = scale(Tk.DurationNs);
          Tk.GapNs = scale(Tk.GapNs);
          ++Loading;
        }
        break;
      default:
        break;
      }
    }
    uint64_t Blocks = scaleMemory(G);
    AM.count("kernels scaled", Kernels);
    AM.count("kernels scaled by waves", ByWaves);
    AM.count("copies and sets scaled", Linear);
    AM.count("data-loading tasks scaled", Loading);
    AM.count("memory blocks resized", Blocks);
    if (!Kernels)
      AM.warning("no forward or backward kernel: the batch changes nothing "
                 "the graph records as per-sample GPU work");
    if (!Spec)
      AM.warning("the GPU is not one the pass knows: no latency floor, "
                 "kernels scale above zero");
    return PreservedAnalyses::none().preserveSet<StructureAnalyses>();
  }

private:
  int64_t scale(int64_t Ns) const {
    return int64_t(std::llround(double(Ns) * O.Factor));
  }

  /// Activation blocks, and workspace of forward and backward, F times as
  /// large: each recorded block is replaced by a modelled one of the new
  /// size made and freed where it was.
  uint64_t scaleMemory(Graph &G) const {
    MemoryEventFacts Facts = analyzeMemoryEvents(G);
    recompute::MemoryIndex Memory(G, Facts);
    std::vector<MemoryEvent> Added;
    llvm::MutableArrayRef<MemoryEvent> Events = G.memoryEventsMut();
    uint64_t Resized = 0;
    for (size_t I = 0; I != Events.size(); ++I) {
      const MemoryEvent &E = Events[I];
      if (E.Bytes <= 0 || (E.Flags & MEF_Replaced))
        continue;
      const MemoryCategory C = Facts.Category[I];
      const TaskId Owner = Facts.Owner[I];
      const Phase Ph = Owner == NoId ? Phase::Other : G.task(Owner).Phase;
      const bool PerSample = C == MemoryCategory::Activations ||
                             (C == MemoryCategory::Workspace &&
                              (Ph == Phase::Forward || Ph == Phase::Backward));
      if (!PerSample)
        continue;
      recompute::resizeBlock(G, Memory, I, std::max<int64_t>(1, scale(E.Bytes)),
                             Added);
      ++Resized;
    }
    for (const MemoryEvent &E : Added)
      G.addMemoryEvent(E);
    return Resized;
  }

  Options O;
};

} // namespace

PassInfo dd::passInfoOfBatchSize() { return passInfo<BatchSize>(); }
