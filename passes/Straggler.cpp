//===- Straggler.cpp - One rank of a multi-rank job runs slower -----------===//
//
// straggler{rank=R share=0.2 kind=kernel ...}
//
// "What if one GPU of the job were 20% slower (thermal throttling, a noisy
// neighbour, a slower part)?" Rank R's selected tasks, its GPU kernels by
// default, take (1 + share) times as long. Collectives are left alone: a
// barrier's transfer is the network's, and a rank's NCCL kernel ends with
// its barrier. In a multi-rank job's graph every other rank then waits for
// R at each collective it shares with it, so the whole job slows; in a
// single rank's graph only that rank does (docs/passes/straggler.md).
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/Graph.h"
#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Transforms/KernelClass.h"
#include "daydream/Transforms/Primitives.h"
#include "daydream/Transforms/TaskSelector.h"

#include "llvm/Support/FormatVariadic.h"

#include <set>

using namespace dd;

namespace {

struct StragglerOptions {
  int64_t Rank = -1;
  double Share = 0.2;
  TaskSelector Select = kernels();

  static TaskSelector kernels() {
    TaskSelector S;
    S.Kinds = {TaskKind::Kernel};
    return S;
  }
};

void declare(PassOptionParser &P, StragglerOptions &O) {
  P.add("rank", O.Rank, "the slow rank (required)");
  P.add("share", O.Share,
        "how much longer its tasks take: 0.2 is 20% longer (> -1; below 0 "
        "faster)");
  O.Select.declareOptions(P);
}

llvm::Error validate(const StragglerOptions &O) {
  if (O.Rank < 0)
    return optionError("rank must be given (0 or more)");
  if (!(O.Share > -1) || O.Share > 1e6)
    return optionError("share must be above -1 and at most 1e6");
  return O.Select.validate();
}

class Straggler {
public:
  static constexpr const char *Name = "straggler";
  static constexpr const char *Description =
      "One rank of a multi-rank job runs slower: its kernels take (1 + share) "
      "as long";
  using OptionsT = StragglerOptions;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;

  explicit Straggler(StragglerOptions O) : O(std::move(O)) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &) {
    std::set<int32_t> Ranks;
    for (const Lane &L : G.lanes())
      if (L.Rank >= 0)
        Ranks.insert(L.Rank);
    if (!Ranks.count(int32_t(O.Rank)))
      return noSuchRank(Ranks);
    KernelClassifier Classes(G);
    std::vector<TaskId> Slow;
    for (TaskId T : O.Select.select(G)) {
      const Task &Tk = G.task(T);
      if (G.lane(Tk.Lane).Rank != O.Rank)
        continue;
      // Blocking calls and markers take the time of what they wait for, and
      // communication is the network's: none of it is the rank's own work.
      if (Tk.Kind == TaskKind::Sync || Tk.Kind == TaskKind::Marker ||
          Classes.classOf(T) == KernelClass::Communication)
        continue;
      Slow.push_back(T);
    }
    scaleDurations(G, Slow, 1 + O.Share);
    return PreservedAnalyses::none().preserveSet<StructureAnalyses>();
  }

private:
  llvm::Error noSuchRank(const std::set<int32_t> &Ranks) const {
    if (Ranks.empty())
      return optionError(llvm::formatv("no lane of the graph has a rank, so "
                                       "rank {0} cannot be slowed down",
                                       O.Rank)
                             .str());
    return optionError(llvm::formatv("no lane of the graph has rank {0} (it "
                                     "has ranks {1} to {2})",
                                     O.Rank, *Ranks.begin(), *Ranks.rbegin())
                           .str());
  }

  StragglerOptions O;
};

} // namespace

PassInfo dd::passInfoOfStraggler() { return passInfo<Straggler>(); }
