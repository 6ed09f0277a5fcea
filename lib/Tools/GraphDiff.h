//===- GraphDiff.h - Two runs compared by kernel class and layer -*- C++
//-*-===//
//
// dd-diff's analysis: where does the time of one run go that the other's
// does not? A recorded baseline against a recorded optimized run, or a
// prediction (a simulated graph) against what was then measured. GPU time is
// summed by kernel class (KernelClass.h) and by layer (the full path of
// enclosing modules or ops), per iteration when both runs have iterations,
// so that runs of different lengths compare.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TOOLS_GRAPHDIFF_H
#define DAYDREAM_TOOLS_GRAPHDIFF_H

#include "RunView.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace dd {

struct DiffRow {
  std::string Key;
  /// GPU time (ns, per iteration where the runs have iterations) and task
  /// counts in run A and run B.
  double A = 0, B = 0;
  uint64_t TasksA = 0, TasksB = 0;
};

struct GraphDiff {
  std::string LabelA, LabelB;
  /// What the times are divided by: each run's iteration count, or 1.
  size_t IterationsA = 1, IterationsB = 1;
  /// Steady-state step (SteadyState.h: the median complete step; recorded,
  /// or predicted for a simulated run); -1 when the run has none.
  double IterationA = -1, IterationB = -1;
  /// All GPU work, then by class (every class, in KernelClass order), then by
  /// layer (the Top with the largest time in either run, largest first).
  DiffRow Total;
  std::vector<DiffRow> ByClass, ByLayer;
};

GraphDiff diffRuns(const RunView &A, const RunView &B, unsigned TopLayers);

void printGraphDiffText(const GraphDiff &D, llvm::raw_ostream &OS);
void printGraphDiffJson(const GraphDiff &D, llvm::raw_ostream &OS);
/// One row a figure (table,key,a_ns,b_ns,a_tasks,b_tasks), for spreadsheets.
void printGraphDiffCsv(const GraphDiff &D, llvm::raw_ostream &OS);

} // namespace dd

#endif // DAYDREAM_TOOLS_GRAPHDIFF_H
