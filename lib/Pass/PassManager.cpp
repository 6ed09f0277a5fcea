//===- PassManager.cpp - Run a pipeline with instrumentation --------------===//
//
// Runs passes in order, invalidating analyses after each one as it says, and
// provides the hooks dd-opt's debugging flags need.
//
//===----------------------------------------------------------------------===//

#include "daydream/Pass/PassManager.h"
#include "GraphChanges.h"
#include "daydream/IR/Graph.h"
#include "daydream/IR/RankCopies.h"
#include "daydream/IR/TextFormat.h"
#include "daydream/IR/Verifier.h"

#include "llvm/Support/Timer.h"

#include <optional>
#include <string>

using namespace dd;

PassConcept::~PassConcept() = default;

std::string PassTraits::describe() const {
  static const std::pair<PassTrait, const char *> Names[] = {
      {PassTrait::Printer, "printer"},
      {PassTrait::AddsTasks, "adds tasks"},
      {PassTrait::HandlesRankCopies, "handles rank copies"},
      {PassTrait::NeedsCollectives, "needs collectives"},
      {PassTrait::RankLocal, "rank by rank"}};
  std::string Out;
  for (const auto &[Trait, Name] : Names)
    if (has(Trait))
      Out += (Out.empty() ? "" : ", ") + std::string(Name);
  return Out;
}

/// Whether \p G has a live collective task (an NCCL/RCCL kernel or a
/// barrier): what a pass that needs collectives acts on.
static bool hasCollectiveTask(const Graph &G) {
  for (TaskId T : G.liveTasks())
    if (G.task(T).Kind == TaskKind::Collective)
      return true;
  return false;
}

static llvm::Error passError(const PassConcept &P, llvm::StringRef What,
                             llvm::Error E) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 What + " '" + P.name() +
                                     "': " + llvm::toString(std::move(E)));
}

/// Runs \p P, unless it needs collectives and \p G has none: then it says
/// so and keeps everything.
static llvm::Expected<PreservedAnalyses> runOrSkip(PassConcept &P, Graph &G,
                                                   AnalysisManager &AM) {
  if (P.needsCollectives() && !hasCollectiveTask(G)) {
    AM.warning("the graph has no collective tasks (no NCCL or RCCL kernels, "
               "no barriers: a trace of one GPU? ddp-insert and p3 model data "
               "parallelism from one); nothing was changed");
    return PreservedAnalyses::all();
  }
  return P.run(G, AM);
}

llvm::Error PassManager::run(Graph &G, AnalysisManager &AM,
                             const PassInstrumentation &PI,
                             bool *Changed) const {
  if (Changed)
    *Changed = false;
  llvm::raw_ostream &Log = *PI.Log;
  std::unique_ptr<llvm::TimerGroup> Timers;
  std::vector<std::unique_ptr<llvm::Timer>> PassTimers;
  if (PI.TimePasses)
    Timers = std::make_unique<llvm::TimerGroup>("dd-passes",
                                                "Pass execution timing report");
  for (const auto &P : Passes) {
    std::string Desc;
    llvm::raw_string_ostream DescOS(Desc);
    P->printPipeline(DescOS);
    if (PI.DebugPassManager)
      Log << "Running pass: " << DescOS.str() << "\n";

    if (!P->handlesRankCopies() && hasRankCopies(G)) {
      if (PI.DebugPassManager)
        Log << "Expanding rank copies for pass: " << P->name() << "\n";
      if (llvm::Error E = expandRankCopies(G))
        return passError(*P, "cannot run pass", std::move(E));
      AM.invalidate(PreservedAnalyses::none());
    }
    llvm::Timer *T = nullptr;
    if (Timers) {
      PassTimers.push_back(
          std::make_unique<llvm::Timer>(P->name(), DescOS.str(), *Timers));
      T = PassTimers.back().get();
      T->startTimer();
    }
    std::optional<GraphChanges> Changes;
    if (PI.Stats)
      Changes.emplace(G);
    AM.setCurrentPass(P->name());
    llvm::Expected<PreservedAnalyses> PA = runOrSkip(*P, G, AM);
    if (T)
      T->stopTimer();
    if (PA && Changes)
      Changes->count(G, AM);
    AM.setCurrentPass("");
    if (!PA)
      return passError(*P, "pass", PA.takeError());
    if (Changed && !PA->areAllPreserved())
      *Changed = true;
    AM.invalidate(*PA);

    if (PI.VerifyEach) {
      if (PI.DebugPassManager)
        Log << "Verifying graph after pass: " << P->name() << "\n";
      if (llvm::Error E = verifyGraph(G))
        return passError(*P, "graph is invalid after pass", std::move(E));
    }
    if (PI.PrintAfterAll) {
      Log << "; *** Graph after pass: " << DescOS.str() << " ***\n";
      if (llvm::Error E = printTextGraph(G, Log))
        return passError(*P, "cannot print graph after pass", std::move(E));
    }
  }
  if (Timers)
    Timers->print(Log, /*ResetAfterPrint=*/true);
  return llvm::Error::success();
}

void PassManager::printPipeline(llvm::raw_ostream &OS) const {
  for (size_t I = 0; I != Passes.size(); ++I) {
    if (I)
      OS << ',';
    Passes[I]->printPipeline(OS);
  }
}
