//===- ScaleTasks.cpp - Multiply the duration of selected tasks -----------===//
//
// scale-tasks{factor=F kind=... phase=... name=RE lane=RE layer=RE}
//
// The simplest what-if: "what if these kernels ran F times as long?" It is
// also the building block of the optimization passes that model a speed-up
// by a factor. Only durations change, so every structural analysis survives.
//
//===----------------------------------------------------------------------===//

#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Transforms/Primitives.h"
#include "daydream/Transforms/TaskSelector.h"

using namespace dd;

namespace {

struct ScaleTasksOptions {
  double Factor = 1.0;
  TaskSelector Select;
};

void declare(PassOptionParser &P, ScaleTasksOptions &O) {
  P.add("factor", O.Factor, "multiply durations by this, in [0, 1e6]");
  O.Select.declareOptions(P);
}

llvm::Error validate(const ScaleTasksOptions &O) {
  if (llvm::Error E = checkDurationFactor("factor", O.Factor))
    return E;
  return O.Select.validate();
}

class ScaleTasks {
public:
  static constexpr const char *Name = "scale-tasks";
  static constexpr const char *Description =
      "Multiply the duration of the selected tasks by a factor";
  using OptionsT = ScaleTasksOptions;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;
  static constexpr bool IsRankLocal = true;

  explicit ScaleTasks(ScaleTasksOptions O) : O(std::move(O)) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &AM) {
    std::vector<TaskId> Selected = O.Select.select(G, AM);
    if (Selected.empty())
      return PreservedAnalyses::all(); // the selector warned
    scaleDurations(G, Selected, O.Factor);
    return PreservedAnalyses::none().preserveSet<StructureAnalyses>();
  }

private:
  ScaleTasksOptions O;
};

} // namespace

PassInfo dd::passInfoOfScaleTasks() { return passInfo<ScaleTasks>(); }
