//===- GradAccumulation.cpp - K micro-steps per optimizer step ------------===//
//
// grad-accumulation{steps=K}
//
// "What if each optimizer step accumulated the gradients of K micro-batches
// of this size?" The recorded iterations become the micro-steps: each run of
// K consecutive iterations (per rank) is one optimizer step, in which only
// the last micro-step runs the optimizer, and the gradients are reduced
// across ranks only then (DDP's no_sync() for the others). So, in every
// micro-step but the last, the pass removes
//  - the optimizer phase after the backward (step()): its CPU ops and
//    launches, its kernels, and the untraced time between them (the
//    optimizer's Python); optimizer work before the backward (zero_grad(),
//    which must run once, before the first micro-step's backward) is kept
//    in the first micro-step only, and removed from the others, and
//  - the collectives of the backward phase (the gradient all-reduces) with
//    the CPU calls that launched them,
// keeping every ordering constraint through them (removeTasks()). The K
// iterations become one, named "first..last", whose recorded duration is
// the sum of theirs: the baseline is the same samples processed with an
// optimizer step each, so the change is per optimizer step and per sample
// at once.
//
// Memory: events of removed tasks no longer happen (their blocks are
// retired whole). Gradients that zero_grad(set_to_none=True) freed in the
// optimizer of each micro-step instead live from the first micro-step's
// backward to the last optimizer step (they are accumulated into, not made
// again): the first micro-step's gradient blocks are kept until the last
// one's frees, and the later micro-steps' are retired.
// docs/passes/grad-accumulation.md has the model and its limits.
//
//===----------------------------------------------------------------------===//

#include "Recompute.h"

#include "daydream/Analysis/MemoryBreakdown.h"
#include "daydream/IR/Graph.h"
#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Transforms/Primitives.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace dd;
using namespace dd::recompute;

namespace {

struct Options {
  int64_t Steps = 1;
};

void declare(PassOptionParser &P, Options &O) {
  P.add("steps", O.Steps,
        "micro-steps (recorded iterations) per optimizer step, >= 1");
}

llvm::Error validate(const Options &O) {
  if (O.Steps < 1 || O.Steps > 1000000)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "steps= must be in [1, 1000000]");
  return llvm::Error::success();
}

/// Which optimizer step and micro-step each iteration is.
struct Grouping {
  /// Per Graph::iterations() index: the group, and the position in it.
  std::vector<int64_t> Group, Position;
  /// Per group: its iterations in time order, and whether it is whole.
  std::vector<std::vector<size_t>> Members;
  std::vector<bool> Complete;
};

Grouping groupIterations(const Graph &G, size_t K) {
  std::map<int32_t, std::vector<size_t>> ByRank;
  for (size_t I = 0; I != G.iterations().size(); ++I)
    ByRank[G.iterations()[I].Rank].push_back(I);
  Grouping Out;
  Out.Group.assign(G.iterations().size(), -1);
  Out.Position.assign(G.iterations().size(), -1);
  for (auto &[Rank, Its] : ByRank) {
    std::stable_sort(Its.begin(), Its.end(), [&](size_t A, size_t B) {
      return G.iterations()[A].StartNs < G.iterations()[B].StartNs;
    });
    for (size_t At = 0; At < Its.size(); At += K) {
      size_t End = std::min(Its.size(), At + K);
      for (size_t I = At; I != End; ++I) {
        Out.Group[Its[I]] = int64_t(Out.Members.size());
        Out.Position[Its[I]] = int64_t(I - At);
      }
      Out.Members.emplace_back(Its.begin() + At, Its.begin() + End);
      Out.Complete.push_back(End - At == K);
    }
  }
  return Out;
}

class GradAccumulation {
public:
  static constexpr const char *Name = "grad-accumulation";
  static constexpr const char *Description =
      "Gradient accumulation: K recorded iterations per optimizer step and "
      "gradient all-reduce";
  using OptionsT = Options;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;

  explicit GradAccumulation(Options O) : O(O) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &AM) {
    const size_t K = size_t(O.Steps);
    if (K == 1)
      return PreservedAnalyses::all(); // one micro-step: the trace as is
    Grouping Groups = groupIterations(G, K);
    if (llvm::none_of(Groups.Complete, [](bool C) { return C; })) {
      AM.warning(llvm::formatv("no rank has {0} iterations to make one "
                               "optimizer step of: nothing to accumulate",
                               K)
                     .str());
      return PreservedAnalyses::all();
    }
    StepWork Work(G, StepWork::Launchers);
    // When each iteration's backward starts: optimizer work before it is
    // zero_grad() (at the top of the loop, or between the loss and
    // backward()), after it is step().
    std::vector<int64_t> BackwardStart(G.iterations().size(), INT64_MAX);
    // Each thread's step so far: searched again only when a task leaves it.
    std::vector<StepFinder::Span> Current(G.numLanes(),
                                          StepFinder::Span{{}, 0, 0});
    for (TaskId T : G.liveTasks()) {
      const Task &Tk = G.task(T);
      if (Tk.Phase != Phase::Backward ||
          G.lane(Tk.Lane).Kind != LaneKind::CpuThread)
        continue;
      StepFinder::Span &S = Current[Tk.Lane];
      if (!S.contains(Tk.StartNs))
        S = Work.steps().spanOf(G, T);
      if (int64_t It = S.Key.second; It >= 0)
        BackwardStart[It] = std::min(BackwardStart[It], Tk.StartNs);
    }
    // One zero_grad() (the first micro-step's) and one step() (the last
    // one's) per optimizer step, and one gradient
    // reduction (the last one's); a trailing incomplete group has neither
    // step nor reduction.
    auto Skips = [&](TaskId T) {
      int64_t It = Work.stepOf(G, T).second;
      if (It < 0)
        return false;
      int64_t Grp = Groups.Group[It];
      bool Last = Groups.Complete[Grp] && Groups.Position[It] + 1 == int64_t(K);
      if (G.task(T).Phase != Phase::Optimizer)
        return !Last;
      TaskId At = Work.launcher(T) != NoId ? Work.launcher(T) : T;
      bool BeforeBackward = G.task(At).StartNs < BackwardStart[It];
      return BeforeBackward ? Groups.Position[It] != 0 : !Last;
    };
    std::vector<uint8_t> Removed(G.numTaskSlots(), 0);
    std::vector<TaskId> Remove;
    for (TaskId T : G.liveTasks()) {
      const Task &Tk = G.task(T);
      bool Optimizer = Tk.Phase == Phase::Optimizer;
      bool GradientReduction =
          Tk.Kind == TaskKind::Collective && Tk.Phase == Phase::Backward;
      if (!(Optimizer || GradientReduction) || !Skips(T))
        continue;
      Removed[T] = 1;
      TaskId L = Work.launcher(T);
      if (GradientReduction && L != NoId && !Removed[L]) {
        Removed[L] = 1;
        Remove.push_back(L);
      }
      Remove.push_back(T);
    }
    MemoryEventFacts Facts = analyzeMemoryEvents(G);
    MemoryIndex Memory(G, Facts);
    AccumulatedMemory Mem = retireMemory(G, Facts, Memory, Removed, Groups, K);

    // The optimizer's Python between its ops goes with it: only the gap
    // before the first removed task of a run on a lane still elapses.
    for (TaskId T : Remove) {
      TaskId P = G.prevOnLane(T);
      if (P != NoId && Removed[P])
        G.task(T).GapNs = 0;
    }
    removeTasks(G, Remove);
    mergeIterations(G, Groups);

    AM.count("optimizer steps skipped", countSkippedSteps(Groups, K));
    AM.count("tasks removed", Remove.size());
    AM.count("memory blocks retired", Mem.Retired);
    AM.count("gradient blocks kept across micro-steps", Mem.Kept);
    if (Mem.Unmatched)
      AM.warning(
          llvm::formatv("{0} gradient blocks freed by the skipped optimizer "
                        "steps could not be matched to the last micro-step's: "
                        "retired, so the predicted peak may be low by up to "
                        "their size ({1} bytes)",
                        Mem.Unmatched, Mem.UnmatchedBytes)
              .str());
    size_t Incomplete = llvm::count(Groups.Complete, false);
    if (Incomplete)
      AM.warning(llvm::formatv("the last {0} optimizer step(s) have fewer "
                               "than {1} iterations: kept without a "
                               "recorded duration, so not compared",
                               Incomplete, K)
                     .str());
    return PreservedAnalyses::none();
  }

private:
  struct AccumulatedMemory {
    uint64_t Retired = 0, Kept = 0, Unmatched = 0;
    int64_t UnmatchedBytes = 0;
  };

  static uint64_t countSkippedSteps(const Grouping &Groups, size_t K) {
    uint64_t N = 0;
    for (size_t Grp = 0; Grp != Groups.Members.size(); ++Grp)
      N += Groups.Complete[Grp] ? K - 1 : Groups.Members[Grp].size();
    return N;
  }

  /// Retires the blocks removed tasks made or freed, and keeps the first
  /// micro-step's gradients until the last one's frees (file comment).
  static AccumulatedMemory retireMemory(Graph &G, const MemoryEventFacts &Facts,
                                        MemoryIndex &Memory,
                                        llvm::ArrayRef<uint8_t> Removed,
                                        const Grouping &Groups, size_t K) {
    AccumulatedMemory Out;
    llvm::ArrayRef<MemoryEvent> Events = G.memoryEvents();
    auto RemovedOwner = [&](size_t I) {
      return Facts.Owner[I] != NoId && Removed[Facts.Owner[I]];
    };
    // Gradient blocks freed by an optimizer, per (group, micro-step), in
    // recorded order: those of skipped optimizers and the last one's.
    std::map<std::pair<int64_t, int64_t>, std::vector<size_t>> Gradients;
    std::vector<uint8_t> Retire(Events.size(), 0);
    for (size_t I : Facts.Order) {
      const size_t P = Facts.Partner[I];
      if (Events[I].Bytes <= 0 || (Events[I].Flags & MEF_Replaced))
        continue;
      const bool Touched =
          RemovedOwner(I) || (P != NoMemoryEvent && RemovedOwner(P));
      const bool FreedByOptimizer =
          P != NoMemoryEvent && Facts.Owner[P] != NoId &&
          G.task(Facts.Owner[P]).Phase == Phase::Optimizer;
      const int64_t It = Facts.Iteration[I];
      if (Facts.Category[I] == MemoryCategory::WeightGradients &&
          FreedByOptimizer && !RemovedOwner(I) && It >= 0 &&
          Groups.Group[It] >= 0 && Groups.Complete[Groups.Group[It]]) {
        Gradients[{Groups.Group[It], Groups.Position[It]}].push_back(I);
        continue;
      }
      if (Touched)
        Retire[I] = 1;
    }
    for (size_t Grp = 0; Grp != Groups.Members.size(); ++Grp) {
      if (!Groups.Complete[Grp])
        continue;
      auto First = Gradients.find({int64_t(Grp), 0});
      auto Last = Gradients.find({int64_t(Grp), int64_t(K) - 1});
      if (First == Gradients.end())
        continue;
      const bool Match = Last != Gradients.end() &&
                         Last->second.size() == First->second.size();
      for (int64_t Pos = 0; Pos != int64_t(K); ++Pos) {
        auto It = Gradients.find({int64_t(Grp), Pos});
        if (It == Gradients.end())
          continue;
        for (size_t A : It->second)
          Retire[A] = 1;
        if (!Match && Pos + 1 != int64_t(K))
          for (size_t A : It->second) {
            ++Out.Unmatched;
            Out.UnmatchedBytes += Events[A].Bytes;
          }
      }
      if (!Match) {
        // Without a counterpart the last micro-step keeps its own.
        if (Last != Gradients.end())
          for (size_t A : Last->second)
            Retire[A] = 0;
        continue;
      }
      // The first micro-step's gradients, at fresh addresses (theirs may be
      // reused once the recorded zero_grad freed them), freed where the
      // last micro-step's are.
      for (size_t N = 0; N != First->second.size(); ++N) {
        size_t A = First->second[N];
        size_t LastFree = Facts.Partner[Last->second[N]];
        MemoryEvent Alloc = Events[A], Free = Events[LastFree];
        Alloc.Flags = Free.Flags = MEF_Modelled;
        Alloc.Address = Free.Address = Memory.freshAddress();
        Alloc.TotalAllocated = Alloc.TotalReserved = Free.TotalAllocated =
            Free.TotalReserved = -1;
        Alloc.Task = Facts.Owner[A];
        Alloc.Category = uint8_t(MemoryCategory::WeightGradients);
        Free.Task = Facts.Owner[LastFree];
        Free.Bytes = -Alloc.Bytes;
        G.addMemoryEvent(Alloc);
        G.addMemoryEvent(Free);
        ++Out.Kept;
      }
    }
    llvm::MutableArrayRef<MemoryEvent> Mut = G.memoryEventsMut();
    for (size_t I = 0; I != Retire.size(); ++I) {
      if (!Retire[I])
        continue;
      Mut[I].Flags |= MEF_Replaced;
      ++Out.Retired;
      if (Facts.Partner[I] != NoMemoryEvent)
        Mut[Facts.Partner[I]].Flags |= MEF_Replaced;
    }
    // Frees of removed tasks whose block began before the trace.
    for (size_t I = 0; I != Retire.size(); ++I)
      if (Events[I].Bytes < 0 && Facts.Partner[I] == NoMemoryEvent &&
          RemovedOwner(I)) {
        Mut[I].Flags |= MEF_Replaced;
        ++Out.Retired;
      }
    return Out;
  }

  /// One iteration per optimizer step: its first micro-step's start, the
  /// sum of the recorded durations (unknown if one is, or if incomplete).
  static void mergeIterations(Graph &G, const Grouping &Groups) {
    std::vector<Iteration> Merged;
    for (size_t Grp = 0; Grp != Groups.Members.size(); ++Grp) {
      const std::vector<size_t> &M = Groups.Members[Grp];
      Iteration It = G.iterations()[M.front()];
      int64_t Sum = 0;
      for (size_t I : M)
        Sum = Sum < 0 || G.iterations()[I].MeasuredNs < 0
                  ? -1
                  : Sum + G.iterations()[I].MeasuredNs;
      It.MeasuredNs = Groups.Complete[Grp] ? Sum : -1;
      if (M.size() > 1)
        It.Name = G.intern((G.str(G.iterations()[M.front()].Name) + ".." +
                            G.str(G.iterations()[M.back()].Name))
                               .str());
      Merged.push_back(It);
    }
    std::stable_sort(Merged.begin(), Merged.end(),
                     [](const Iteration &A, const Iteration &B) {
                       return A.StartNs < B.StartNs;
                     });
    G.iterationsMut() = std::move(Merged);
  }

  Options O;
};

} // namespace

PassInfo dd::passInfoOfGradAccumulation() {
  return passInfo<GradAccumulation>();
}
