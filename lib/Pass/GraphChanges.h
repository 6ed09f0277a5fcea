//===- GraphChanges.h - What a pass did to the graph, counted ---*- C++ -*-===//
//
// -stats' counters that every pass has, built-in or plugin, without a line
// of its own: a snapshot of the graph before the pass, compared with the
// graph after it. Tasks keep their slots (a removed task is marked dead, an
// inserted one appended), so slots say which tasks were inserted, removed
// or re-timed. Edges are not counted: merging redirects them in place,
// leaving duplicates that only the writer folds (CanonicalOrder.h), so no
// count before the write would be the graph's. Taken only under -stats:
// the snapshot is 16 bytes and a bit a task.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_PASS_GRAPHCHANGES_H
#define DAYDREAM_LIB_PASS_GRAPHCHANGES_H

#include "daydream/IR/Graph.h"
#include "daydream/Pass/AnalysisManager.h"

#include <vector>

namespace dd {

class GraphChanges {
public:
  explicit GraphChanges(const Graph &G);
  /// Adds to \p AM's counters of the running pass what changed since the
  /// snapshot.
  void count(const Graph &G, AnalysisManager &AM) const;

private:
  std::vector<int64_t> Durations, Gaps;
  std::vector<bool> Live;
};

} // namespace dd

#endif // DAYDREAM_LIB_PASS_GRAPHCHANGES_H
