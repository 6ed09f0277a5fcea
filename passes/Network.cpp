//===- Network.cpp - The same job on another network ----------------------===//
//
// network{intra-gbps= intra-latency-us= inter-gbps= inter-latency-us=
//         gpus-per-node= ...}
//
// "What if the GPUs were linked by another network: NVLink of another
// generation, a faster InfiniBand, more GPUs per node?" The network model
// is calibrated on the trace's own collectives; the options replace parts
// of it, and each collective is scaled by the model's time on the new
// network over its time on the calibrated one. Options left at their
// defaults (0 GB/s, -1 us) keep the calibrated values, so network{} changes
// nothing (docs/passes/network.md).
//
//===----------------------------------------------------------------------===//

#include "NetworkWhatIf.h"

#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Transforms/Primitives.h"

using namespace dd;
using namespace dd::comm;
using namespace dd::networkwhatif;

namespace {

void declare(PassOptionParser &P, Options &O) {
  declareOptions(P, O, /*WhatIf=*/true);
}

llvm::Error validate(const Options &O) { return validateOptions(O); }

class Network {
public:
  static constexpr const char *Name = "network";
  static constexpr const char *Description =
      "Another network (bandwidth, latency, GPUs per node): collectives "
      "re-timed by the model";
  using OptionsT = networkwhatif::Options;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;
  static constexpr bool NeedsCollectives = true;

  explicit Network(Options O) : O(O) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &AM) {
    auto SOr = setUp(G, O);
    if (!SOr)
      return SOr.takeError();
    const Setup &S = *SOr;
    bool Changed = false;
    size_t Retimed = 0;
    for (const CollectiveInfo &C : S.Collectives) {
      if (C.Kind == CollectiveKind::Other)
        continue;
      ++Retimed;
      int64_t Ns = retimedNs(G, C, S, C.Ranks);
      Changed |= Ns != G.task(C.Task).DurationNs;
      setDurations(G, C.Task, Ns);
    }
    AM.count("collectives re-timed", Retimed);
    if (Retimed == 0)
      AM.warning("the graph has no collectives of a kind the network model "
                 "times (all-reduce, all-gather, reduce-scatter, all-to-all, "
                 "send/recv, broadcast, reduce); nothing was changed");
    if (!Changed)
      return PreservedAnalyses::all();
    return PreservedAnalyses::none().preserveSet<StructureAnalyses>();
  }

private:
  Options O;
};

} // namespace

PassInfo dd::passInfoOfNetwork() { return passInfo<Network>(); }
