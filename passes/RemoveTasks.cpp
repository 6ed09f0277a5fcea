//===- RemoveTasks.cpp - Remove selected tasks ----------------------------===//
//
// remove-tasks{kind=... phase=... name=RE lane=RE layer=RE}
//
// "What if this work were not there at all?" (Daydream's remove primitive:
// e.g. every memcpy of a data-loading step, or one layer). The ordering
// constraints through removed tasks are kept (see removeTasks()). With no
// selector option it would remove everything, which is never what a user
// means, so at least one option is required.
//
//===----------------------------------------------------------------------===//

#include "daydream/Pass/PassOptions.h"
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
  if (S.Kinds.empty() && S.Phases.empty() && S.NameRegex.empty() &&
      S.LaneRegex.empty() && S.LayerRegex.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "give at least one of kind=, phase=, name=, lane=, layer= "
        "(it would remove every task)");
  return S.validate();
}

class RemoveTasks {
public:
  explicit RemoveTasks(RemoveTasksOptions O) : O(std::move(O)) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &) {
    std::vector<TaskId> Victims = O.Select.select(G);
    if (Victims.empty())
      return PreservedAnalyses::all();
    removeTasks(G, Victims);
    return PreservedAnalyses::none();
  }

private:
  RemoveTasksOptions O;
};

} // namespace

llvm::Expected<std::unique_ptr<PassConcept>>
dd::createRemoveTasksPass(llvm::StringRef Options) {
  return buildPass<RemoveTasks, RemoveTasksOptions>("remove-tasks", Options,
                                                    declare, validate);
}

void dd::printRemoveTasksPassOptions(llvm::raw_ostream &OS, unsigned Indent) {
  printOptionsHelp<RemoveTasksOptions>("remove-tasks", declare, OS, Indent);
}
