//===- DpRanks.cpp - The same data-parallel job on more or fewer ranks ----===//
//
// dp-ranks{ranks=N gpus-per-node=G intra-gbps= inter-gbps= ...}
//
// "What if this data-parallel job ran on N ranks?" Each rank keeps its own
// work (weak scaling: the per-rank batch stays, so do the gradients), and
// only the collectives of the data-parallel group change: each is scaled by
// the network model's time on N ranks over its time on the recorded ones,
// the model calibrated on the trace's own collectives, so that N equal to
// the recorded size keeps every recorded time. Works on a multi-rank job's
// barriers and, in a single rank's trace, on its recorded NCCL kernels
// (docs/passes/dp-ranks.md).
//
//===----------------------------------------------------------------------===//

#include "NetworkWhatIf.h"

#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Transforms/Primitives.h"

using namespace dd;
using namespace dd::comm;
using namespace dd::networkwhatif;

namespace {

struct DpRanksOptions {
  int64_t Ranks = 0;
  Options Net;
};

void declare(PassOptionParser &P, DpRanksOptions &O) {
  P.add("ranks", O.Ranks, "data-parallel ranks to predict (required)");
  declareOptions(P, O.Net, /*WhatIf=*/true);
}

llvm::Error validate(const DpRanksOptions &O) {
  if (O.Ranks < 1 || O.Ranks > MaxRanks)
    return optionError("ranks must be given, 1 to 1000000");
  return validateOptions(O.Net);
}

class DpRanks {
public:
  explicit DpRanks(DpRanksOptions O) : O(std::move(O)) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &) {
    auto SOr = setUp(G, O.Net);
    if (!SOr)
      return SOr.takeError();
    const Setup &S = *SOr;
    if (S.Collectives.empty())
      return optionError("the graph has no collectives to re-time (no "
                         "barrier tasks, no NCCL kernels); for a single-GPU "
                         "trace, ddp-insert models data parallelism");
    // The data-parallel group is the largest one: smaller groups (tensor or
    // pipeline parallel ones beside it) keep their ranks.
    int64_t From = O.Net.RecordedRanks;
    if (From == 0)
      for (const CollectiveInfo &C : S.Collectives)
        From = std::max(From, C.Ranks);
    std::string Modelled = std::to_string(O.Ranks);
    for (const CollectiveInfo &C : S.Collectives) {
      if (C.Ranks != From || C.Kind == CollectiveKind::Other)
        continue;
      setDurations(G, C.Task, retimedNs(G, C, S, O.Ranks));
      if (O.Ranks != From)
        G.addNote(C.Task, ModelledRanksNote, Modelled);
    }
    // Durations and notes changed; tasks, edges and lanes did not.
    return PreservedAnalyses::none().preserveSet<StructureAnalyses>();
  }

private:
  DpRanksOptions O;
};

} // namespace

llvm::Expected<std::unique_ptr<PassConcept>>
dd::createDpRanksPass(llvm::StringRef Options) {
  return buildPass<DpRanks, DpRanksOptions>("dp-ranks", Options, declare,
                                            validate);
}

void dd::printDpRanksPassOptions(llvm::raw_ostream &OS, unsigned Indent) {
  printOptionsHelp<DpRanksOptions>("dp-ranks", declare, OS, Indent);
}
