//===- TaskSelector.h - Choose tasks by kind, name, lane, ... ---*- C++ -*-===//
//
// The "select" primitive: every pass that acts on some tasks describes them
// with a TaskSelector, so users meet the same options everywhere:
//   kind=kernel,memcpy   task kinds (comma-separated; default all)
//   phase=forward        phases (comma-separated; default all)
//   name=REGEX           task name (POSIX extended regex, searched)
//   lane=REGEX           name of the task's lane
//   layer=REGEX          name of the task's layer (tasks without one never
//   match): the innermost CPU range around it, or for a cpu-op task the
//   range whose self time it is
//   within=REGEX         any layer of the task's chain: the task runs inside
//   an op or annotation whose name matches (within=DataLoader selects the
//   data loader's whole time, the self time of every op inside it and the
//   calls and GPU work they launch)
//   class=gemm,conv      kernel classes (KernelClass.h; GPU work only)
//   min-bytes=N          tasks whose recorded bytes attribute is at least N
// Regexes are matched once per distinct string, and within= once per layer,
// not once per task, so selection is linear in the number of tasks. A
// selection that matches nothing is a warning naming the pass and the
// selector (select() with an AnalysisManager).
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

class AnalysisManager;
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
  std::string NameRegex, LaneRegex, LayerRegex, WithinRegex;

  /// Declares kind=, phase=, name=, lane=, layer=, within=, class= and
  /// min-bytes= on a pass's options.
  void declareOptions(PassOptionParser &P);
  /// Rejects regexes that do not compile.
  llvm::Error validate() const;
  /// Live tasks that match, in id order.
  std::vector<TaskId> select(const Graph &G) const;
  /// The same, and a warning through \p AM if no task matches.
  std::vector<TaskId> select(const Graph &G, AnalysisManager &AM) const;
  /// The constraints set, as they are written: "kind=cpu-op layer=Data",
  /// or "every task" if none.
  std::string describe() const;
  /// Whether no option narrows the selection.
  bool selectsAll() const;
};

} // namespace dd

#endif // DAYDREAM_TRANSFORMS_TASKSELECTOR_H
