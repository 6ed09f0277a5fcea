//===- ActivationCheckpointing.cpp - Recompute activations in backward ----===//
//
// activation-checkpointing{layers=REGEX every=N}
//
// "What if these layers were checkpointed?" (torch.utils.checkpoint; Chen
// et al., "Training Deep Nets with Sublinear Memory Cost", 2016). A
// checkpointed layer runs its forward without keeping its activations, and
// runs that forward again in backward, just before its own backward, to
// make them anew. Time goes up by the recomputed forward, peak memory down
// by the activations no longer held from forward to backward.
//
// The model, step by step (docs/passes/activation-checkpointing.md):
//  - A segment is one forward instance of a selected layer: a run of
//    forward-phase CPU tasks on one thread inside the same range whose name
//    matches layers= (LayerChains.h), with the GPU work they launch. every=N
//    keeps the first of each N segments of a training step.
//  - Where backward reaches it: the trace does not link a forward op to its
//    backward, so the pass mirrors the forward. A segment that ends when a
//    fraction f of the step's forward GPU time is done is recomputed when
//    (1 - f) of the backward GPU time is: backward runs the layers in reverse
//    order, each in proportion to its forward (the same mirror as
//    TBD's per-layer breakdown assumes).
//  - The recomputation: copies of the segment's CPU tasks, before the CPU
//    task that launches that backward kernel (on its thread, the autograd
//    engine's), and copies of its kernels, before that kernel on its stream,
//    each launched by its copied launch; recorded durations and gaps.
//  - Memory (MemoryBreakdown.h): each block made in the segment and held past
//    it is freed at the segment's end instead, except the last one (the
//    segment's output, the next layer's input, which checkpointing keeps);
//    the recomputation makes it again and backward frees it where the
//    recording did. Blocks made and freed inside the segment (workspace)
//    are made and freed again by the recomputation.
//
//===----------------------------------------------------------------------===//

#include "Recompute.h"

#include "daydream/Analysis/MemoryBreakdown.h"
#include "daydream/IR/Graph.h"
#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Transforms/LayerChains.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"

#include <thread>

using namespace dd;
using namespace dd::recompute;

namespace {

struct Options {
  std::string Layers;
  int64_t Every = 1;
};

void declare(PassOptionParser &P, Options &O) {
  P.add("layers", O.Layers,
        "checkpoint the layers (ops, annotations, modules) whose name "
        "matches this regex");
  P.add("every", O.Every, "checkpoint one in every N matching layers, >= 1");
}

llvm::Error validate(const Options &O) {
  if (O.Layers.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "layers= is required: a regex naming the "
                                   "layers to checkpoint");
  std::string Why;
  if (!llvm::Regex(O.Layers).isValid(Why))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "layers=: " + Why);
  if (O.Every < 1 || O.Every > 1000000)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "every= must be in [1, 1000000]");
  return llvm::Error::success();
}

class ActivationCheckpointing {
public:
  static constexpr const char *Name = "activation-checkpointing";
  static constexpr const char *Description =
      "Checkpoint layers: free their activations after forward and "
      "recompute them before backward";
  using OptionsT = Options;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;
  static constexpr bool AddsTasks = true; // the recomputed forward
  static constexpr bool IsRankLocal = true;

  explicit ActivationCheckpointing(Options O) : O(std::move(O)) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &AM) {
    std::vector<LayerId> Match = nearestMatchingLayers(G, O.Layers);
    CheckpointPlan Plan = planCheckpoints(G, Match, size_t(O.Every));
    const StepWork &Work = Plan.Work;
    const std::vector<Segment> &Segments = Plan.Segments;
    if (Segments.empty()) {
      AM.warning("layers=" + O.Layers +
                 " matches no forward task on a CPU thread: nothing to "
                 "checkpoint");
      return PreservedAnalyses::all();
    }
    // Memory facts are taken before any task is added: they name the
    // recorded tasks each event moves with.
    MemoryEventFacts Facts = analyzeMemoryEvents(G);
    MemoryIndex Memory(G, Facts);
    // Room for every copy at once: growing ten million tasks' arrays step
    // by step costs more than the copies. Its pages are faulted in on
    // another thread ahead of the copies (a fault every 4 KiB, as costly;
    // FreshMemory.h). Each copied kernel gets one edge, its launch; CPU
    // copies get none.
    size_t Copies = 0, Launches = 0;
    for (const Segment &S : Segments) {
      Copies += S.Cpu.size() + S.Gpu.size();
      Launches += S.Gpu.size();
    }
    std::vector<Graph::MemoryRange> ToFault;
    G.reserveRoom(Copies, Launches, ToFault);
    std::thread Faulter([&ToFault] { Graph::faultIn(ToFault); });
    RecomputeStats Stats;
    for (const Segment &S : Segments)
      recomputeSegment(G, Work, S, Memory, Stats);
    Faulter.join();
    AM.count("segments checkpointed", Stats.Segments);
    AM.count("tasks recomputed", Stats.Tasks);
    AM.count("blocks freed after forward", Stats.BlocksFreedEarly);
    if (Stats.NoBackward)
      AM.warning(llvm::formatv("{0} of {1} segments have no backward GPU work "
                               "in their step to recompute before; left as "
                               "recorded",
                               Stats.NoBackward, Segments.size())
                     .str());
    if (!Stats.Segments)
      return PreservedAnalyses::all();
    return PreservedAnalyses::none();
  }

private:
  Options O;
};

} // namespace

PassInfo dd::passInfoOfActivationCheckpointing() {
  return passInfo<ActivationCheckpointing>();
}
