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
// Which groups are the data-parallel ones: a tensor-parallel x
// data-parallel job has both, often of one size (TP 2 x DP 2). Where the
// traces list the groups' members, Megatron's layout tells them apart: a
// tensor-parallel group is consecutive ranks, a data-parallel group takes
// one rank of each, so its members are T apart. The data-parallel groups
// are then those of the smallest spacing above 1 (pipeline-parallel groups,
// further apart, stay); a job without such groups (data parallelism alone,
// or members unknown) has its largest groups as before. dp-stride= and
// recorded-ranks= choose otherwise.
//
//===----------------------------------------------------------------------===//

#include "NetworkWhatIf.h"

#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Transforms/Primitives.h"

#include <algorithm>

using namespace dd;
using namespace dd::comm;
using namespace dd::networkwhatif;

namespace {

struct DpRanksOptions {
  int64_t Ranks = 0;
  int64_t DpStride = 0;
  Options Net;
};

void declare(PassOptionParser &P, DpRanksOptions &O) {
  P.add("ranks", O.Ranks, "data-parallel ranks to predict (required)");
  P.add("dp-stride", O.DpStride,
        "the data-parallel groups are those whose members are this many "
        "ranks apart (1: consecutive); 0: the smallest spacing above 1 the "
        "graph's groups show, else the largest groups");
  declareOptions(P, O.Net, /*WhatIf=*/true);
}

llvm::Error validate(const DpRanksOptions &O) {
  if (O.Ranks < 1 || O.Ranks > MaxRanks)
    return optionError("ranks must be given, 1 to 1000000");
  if (O.DpStride < 0 || O.DpStride > MaxRanks)
    return optionError("dp-stride must be 0 (from the groups) to 1000000");
  return validateOptions(O.Net);
}

/// How far apart a collective's group members are: its recorded spacing, 1
/// for a group whose members are unknown (taken as consecutive, as the
/// world), 0 for uneven members.
int64_t strideOf(const CollectiveInfo &C) {
  return C.Group ? C.Group->Stride : 1;
}

/// Whether each collective is of a data-parallel group (see the header).
std::vector<bool> dataParallel(llvm::ArrayRef<CollectiveInfo> Cs,
                               int64_t DpStride, int64_t RecordedRanks) {
  auto Eligible = [](const CollectiveInfo &C) {
    return C.Kind != CollectiveKind::Other;
  };
  // Pipeline stages only send and receive: their groups, far apart, do not
  // name the spacing.
  int64_t Stride = DpStride;
  if (Stride == 0)
    for (const CollectiveInfo &C : Cs)
      if (Eligible(C) && C.Kind != CollectiveKind::SendRecv && strideOf(C) > 1)
        Stride = Stride ? std::min(Stride, strideOf(C)) : strideOf(C);
  auto Spaced = [&](const CollectiveInfo &C) {
    return Stride == 0 || strideOf(C) == Stride;
  };
  int64_t From = RecordedRanks;
  if (From == 0)
    for (const CollectiveInfo &C : Cs)
      if (Eligible(C) && Spaced(C))
        From = std::max(From, C.Ranks);
  std::vector<bool> Dp;
  for (const CollectiveInfo &C : Cs)
    Dp.push_back(Eligible(C) && Spaced(C) && C.Ranks == From);
  return Dp;
}

class DpRanks {
public:
  static constexpr const char *Name = "dp-ranks";
  static constexpr const char *Description =
      "The data-parallel job on more or fewer ranks: collectives re-timed by "
      "the network model";
  using OptionsT = DpRanksOptions;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;
  static constexpr bool NeedsCollectives = true;

  explicit DpRanks(DpRanksOptions O) : O(O) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &) {
    auto SOr = setUp(G, O.Net);
    if (!SOr)
      return SOr.takeError();
    const Setup &S = *SOr;
    if (S.Collectives.empty())
      return optionError("the graph has no collectives to re-time (no "
                         "barrier tasks, no NCCL kernels); for a single-GPU "
                         "trace, ddp-insert models data parallelism");
    // Tensor- and pipeline-parallel groups beside the data-parallel ones
    // keep their ranks.
    std::vector<bool> Dp =
        dataParallel(S.Collectives, O.DpStride, O.Net.RecordedRanks);
    if (O.DpStride && std::find(Dp.begin(), Dp.end(), true) == Dp.end())
      return optionError(
          "dp-stride=" + std::to_string(O.DpStride) +
          ": no collective's group has members that many ranks apart" +
          (O.Net.RecordedRanks
               ? " and recorded-ranks=" + std::to_string(O.Net.RecordedRanks) +
                     " of them"
               : std::string()));
    std::string Modelled = std::to_string(O.Ranks);
    for (size_t I = 0; I != S.Collectives.size(); ++I) {
      const CollectiveInfo &C = S.Collectives[I];
      if (!Dp[I])
        continue;
      setDurations(G, C.Task, retimedNs(G, C, S, O.Ranks));
      if (O.Ranks != C.Ranks)
        G.addNote(C.Task, ModelledRanksNote, Modelled);
    }
    // Durations and notes changed; tasks, edges and lanes did not.
    return PreservedAnalyses::none().preserveSet<StructureAnalyses>();
  }

private:
  DpRanksOptions O;
};

} // namespace

PassInfo dd::passInfoOfDpRanks() { return passInfo<DpRanks>(); }
