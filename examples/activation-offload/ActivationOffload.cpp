//===- ActivationOffload.cpp - vDNN-style activation offloading -----------===//
//
// offload-activations{class=conv mb=8 pcie-gbps=25 sync=true ...}
//
// What if the activations of the selected forward kernels were moved to
// host memory while the forward pass runs and brought back before the
// backward pass needs them, as vDNN does (Rhu et al., "vDNN: Virtualized
// Deep Neural Networks for Scalable, Memory-Efficient Neural Network
// Design", MICRO 2016)? The GPU then holds far fewer activations; the
// question this pass answers is what it costs in iteration time.
//
// The model, on the graph:
//   - after each selected forward kernel, a device-to-host copy of its
//     activation (mb MiB, at pcie-gbps) on a new "offload" copy lane; with
//     sync (vDNN's memory-optimal mode) the next selected forward kernel
//     waits for the copy, since its input's memory is what gets freed;
//   - before each selected backward kernel, a host-to-device prefetch of the
//     activation it needs, last offloaded first, on a "prefetch" copy lane;
//     the backward kernel waits for its prefetch. As in vDNN, a prefetch is
//     issued when the backward kernel before it starts (when the work ahead
//     of that kernel on its stream ends), one layer ahead, so that the
//     prefetched activations do not pile up on the GPU again.
// Kernels, not layers, are matched: the k-th selected backward kernel needs
// the k-th last offloaded activation. That holds for the chains of conv
// layers vDNN targets; other shapes need a finer pass.
//
// This file is an out-of-tree plugin: it links no Daydream library and
// uses only the installed headers and the primitives library
// (docs/WritingAPass.md builds it step by step).
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/Graph.h"
#include "daydream/Pass/DeclarePass.h"
#include "daydream/Plugin/PassPlugin.h"
#include "daydream/Transforms/Primitives.h"
#include "daydream/Transforms/TaskSelector.h"

#include <algorithm>
#include <cmath>

using namespace dd;

namespace {

struct OffloadOptions {
  /// Activation size per selected kernel, in MiB.
  double MiB = 8;
  /// Host link bandwidth, GB/s (PCIe 4.0 x16 moves about 25 GB/s).
  double PcieGBps = 25;
  /// vDNN's memory-optimal mode: the next layer waits for the offload.
  bool Sync = true;
  TaskSelector Select;
};

void declare(PassOptionParser &P, OffloadOptions &O) {
  P.add("mb", O.MiB, "activation size per selected kernel, MiB");
  P.add("pcie-gbps", O.PcieGBps, "host link bandwidth, GB/s");
  P.add("sync", O.Sync, "the next forward kernel waits for the offload");
  O.Select.declareOptions(P);
}

llvm::Error validate(const OffloadOptions &O) {
  if (!(O.MiB > 0))
    return optionError("mb must be positive");
  if (!(O.PcieGBps > 0))
    return optionError("pcie-gbps must be positive");
  return O.Select.validate();
}

class ActivationOffload {
public:
  static constexpr const char *Name = "offload-activations";
  static constexpr const char *Description =
      "vDNN: offload forward activations to the host, prefetch them for "
      "backward";
  using OptionsT = OffloadOptions;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;

  explicit ActivationOffload(OffloadOptions O) : O(std::move(O)) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &) {
    std::vector<TaskId> Forward, Backward;
    for (TaskId T : O.Select.select(G)) {
      if (!isGpuWork(G.task(T).Kind))
        continue;
      if (G.task(T).Phase == Phase::Forward)
        Forward.push_back(T);
      else if (G.task(T).Phase == Phase::Backward)
        Backward.push_back(T);
    }
    if (Forward.empty())
      return PreservedAnalyses::all();
    auto ByStart = [&](TaskId A, TaskId B) {
      return G.task(A).StartNs < G.task(B).StartNs;
    };
    std::sort(Forward.begin(), Forward.end(), ByStart);
    std::sort(Backward.begin(), Backward.end(), ByStart);

    int32_t Device = G.lane(G.task(Forward.front()).Lane).Device;
    LaneId Offload =
        findOrAddLane(G, LaneKind::CommChannel, "offload (DtoH)", Device);
    LaneId Prefetch =
        findOrAddLane(G, LaneKind::CommChannel, "prefetch (HtoD)", Device);
    std::vector<TaskId> Copies = offload(G, Forward, Offload);
    prefetch(G, Copies, Backward, Prefetch);
    return PreservedAnalyses::none();
  }

private:
  /// A copy task of one activation, starting where \p After ends (the
  /// simulation decides when it really starts).
  Task copyTask(const Graph &G, TaskId After, StrId Name) const {
    Task C;
    C.Kind = TaskKind::Memcpy;
    C.Name = Name;
    C.Phase = G.task(After).Phase;
    C.Layer = G.task(After).Layer;
    C.StartNs = G.task(After).StartNs + G.task(After).DurationNs;
    double Seconds = O.MiB * 1024 * 1024 / (O.PcieGBps * 1e9);
    C.DurationNs = int64_t(std::llround(Seconds * 1e9));
    return C;
  }

  std::vector<TaskId> offload(Graph &G, llvm::ArrayRef<TaskId> Forward,
                              LaneId Lane) {
    StrId Name = G.strings().intern("offload activation");
    std::vector<TaskId> Copies;
    for (size_t I = 0; I != Forward.size(); ++I) {
      llvm::SmallVector<TaskId, 1> Succs;
      if (O.Sync && I + 1 != Forward.size())
        Succs.push_back(Forward[I + 1]);
      Copies.push_back(insertTask(G, copyTask(G, Forward[I], Name), Lane, NoId,
                                  {Forward[I]}, Succs, EdgeKind::CrossStream));
    }
    return Copies;
  }

  void prefetch(Graph &G, llvm::ArrayRef<TaskId> Offloads,
                llvm::ArrayRef<TaskId> Backward, LaneId Lane) {
    StrId Name = G.strings().intern("prefetch activation");
    size_t N = std::min(Offloads.size(), Backward.size());
    for (size_t K = 0; K != N; ++K) {
      // After its own offload, and once the previous backward kernel may
      // start.
      TaskId Offloaded = Offloads[Offloads.size() - 1 - K];
      llvm::SmallVector<TaskId, 2> Preds = {Offloaded};
      if (K != 0 && G.prevOnLane(Backward[K - 1]) != NoId)
        Preds.push_back(G.prevOnLane(Backward[K - 1]));
      insertTask(G, copyTask(G, Offloaded, Name), Lane, NoId, Preds,
                 {Backward[K]}, EdgeKind::CrossStream);
    }
  }

  OffloadOptions O;
};

void registerPasses(PluginRegistrar &R) {
  R.addPass(passInfo<ActivationOffload>());
}

} // namespace

extern "C" DD_PLUGIN_EXPORT DdPluginInfo ddGetPluginInfo() {
  return {DD_PLUGIN_API_VERSION, "activation-offload", "1.0", registerPasses};
}
