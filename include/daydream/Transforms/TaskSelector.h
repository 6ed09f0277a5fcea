//===- TaskSelector.h - Choose tasks by kind, name, lane, ... ---*- C++ -*-===//
//
// The "select" primitive: every pass that acts on some tasks describes them
// with a TaskSelector, so users meet the same options everywhere:
//   kind=kernel,memcpy   task kinds (comma-separated; default all)
//   phase=forward        phases (comma-separated; default all)
//   name=REGEX           task name (POSIX extended regex, searched)
//   lane=REGEX           name of the task's lane
//   layer=REGEX          name of the task's layer (tasks without one never
//   match)
//   class=gemm,conv      kernel classes (KernelClass.h; GPU work only)
//   min-bytes=N          tasks whose recorded bytes attribute is at least N
// Regexes are matched once per distinct string, not once per task, so
// selection is linear in the number of tasks.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TRANSFORMS_TASKSELECTOR_H
#define DAYDREAM_TRANSFORMS_TASKSELECTOR_H

#include "daydream/IR/Types.h"
#include "daydream/Transforms/KernelClass.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace dd {

class Graph;
class PassOptionParser;

struct TaskSelector {
  /// Empty means every kind / every phase.
  std::vector<TaskKind> Kinds;
  std::vector<Phase> Phases;
  std::vector<KernelClass> Classes;
  /// 0 means no constraint; otherwise tasks without attributes never match.
  int64_t MinBytes = 0;
  /// Empty means no constraint.
  std::string NameRegex, LaneRegex, LayerRegex;

  /// Declares kind=, phase=, name=, lane= and layer= on a pass's options.
  void declareOptions(PassOptionParser &P);
  /// Rejects regexes that do not compile.
  llvm::Error validate() const;
  /// Live tasks that match, in id order.
  std::vector<TaskId> select(const Graph &G) const;
};

} // namespace dd

#endif // DAYDREAM_TRANSFORMS_TASKSELECTOR_H
