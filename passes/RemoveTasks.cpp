//===- RemoveTasks.cpp - Remove selected tasks ----------------------------===//
//
// remove-tasks{kind=... phase=... name=RE lane=RE layer=RE within=RE}
//
// "What if this work were not there at all?" (Daydream's remove primitive:
// e.g. every memcpy of a data-loading step, one layer, or with
// within=DataLoader everything the data loader did). Naming an op
// (name=aten::to) removes its self time, its cpu-op tasks; within= also
// removes what runs inside it. The ordering constraints through removed
// tasks are kept (see removeTasks()). With no selector option it would
// remove everything, which is never what a user means, so at least one
// option is required; a selection that matches nothing is a warning.
//
//===----------------------------------------------------------------------===//

#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Transforms/Primitives.h"
#include "daydream/Transforms/TaskSelector.h"

using namespace dd;

namespace {

struct RemoveTasksOptions {
  TaskSelector Select;
};

void declare(PassOptionParser &P, RemoveTasksOptions &O) {
  O.Select.declareOptions(P);
}

llvm::Error validate(const RemoveTasksOptions &O) {
  const TaskSelector &S = O.Select;
  if (S.selectsAll())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "give at least one of kind=, phase=, name=, lane=, layer=, within=, "
        "class=, min-bytes= (it would remove every task)");
  return S.validate();
}

class RemoveTasks {
public:
  static constexpr const char *Name = "remove-tasks";
  static constexpr const char *Description =
      "Remove the selected tasks, keeping the ordering constraints through "
      "them";
  using OptionsT = RemoveTasksOptions;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;
  static constexpr bool IsRankLocal = true;

  explicit RemoveTasks(RemoveTasksOptions O) : O(std::move(O)) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &AM) {
    std::vector<TaskId> Victims = O.Select.select(G, AM);
    if (Victims.empty())
      return PreservedAnalyses::all();
    removeTasks(G, Victims);
    return PreservedAnalyses::none();
  }

private:
  RemoveTasksOptions O;
};

} // namespace

PassInfo dd::passInfoOfRemoveTasks() { return passInfo<RemoveTasks>(); }
