//===- CpuOnlyTrace.cpp - Lowering a trace with no GPU work ---------------===//
//
// A profile of training on the CPU (torch.profiler without CUDA activities,
// as the suite's CPU runs record) has operators but no runtime calls and no
// GPU work: nothing the usual lowering makes tasks of. It still has a
// dependency graph, the operators' program order on each thread, and a
// replay of it must still reproduce its steps.
//
// So the outermost operators of each thread (inside no other operator;
// annotations, modules and steps do not count) become calls with no
// correlation, and go down the same path as API calls: layers, phases,
// iterations and the untraced time between them as gaps come out as for
// any call. Nested operators stay ranges (they name layers); taking only
// the outermost keeps every operator's time counted once.
//
//===----------------------------------------------------------------------===//

#include "LoweringContext.h"

#include <algorithm>
#include <tuple>

using namespace dd;
using namespace dd::import;

size_t lowering::promoteCpuOperators(TraceModel &M) {
  std::vector<uint32_t> Ops;
  for (uint32_t R = 0; R != M.Ranges.size(); ++R)
    if (M.Ranges[R].Kind == RangeKind::Op &&
        M.Ranges[R].EndNs >= M.Ranges[R].StartNs)
      Ops.push_back(R);
  // By thread, then start; of ranges starting together, the longest (the
  // enclosing one) first.
  std::sort(Ops.begin(), Ops.end(), [&](uint32_t A, uint32_t B) {
    const CpuRange &X = M.Ranges[A], &Y = M.Ranges[B];
    return std::make_tuple(X.Thread, X.StartNs, -X.EndNs, A) <
           std::make_tuple(Y.Thread, Y.StartNs, -Y.EndNs, B);
  });
  size_t Before = M.Calls.size();
  uint32_t Thread = ~0U;
  int64_t OpenUntil = INT64_MIN;
  for (uint32_t R : Ops) {
    const CpuRange &Rg = M.Ranges[R];
    if (Rg.Thread != Thread) {
      Thread = Rg.Thread;
      OpenUntil = INT64_MIN;
    }
    // Inside (or, in an inconsistent trace, overlapping) the last
    // outermost operator: its time is already counted.
    if (Rg.StartNs < OpenUntil)
      continue;
    M.Calls.push_back(
        ApiCall{Rg.StartNs, Rg.EndNs, Rg.Thread, Rg.Name, 0, ApiKind::Other});
    OpenUntil = Rg.EndNs;
  }
  return M.Calls.size() - Before;
}

void lowering::markCpuOperatorTasks(Graph &G) {
  for (TaskId T = 0; T != G.numTaskSlots(); ++T)
    if (G.isLive(T) && G.task(T).Kind == TaskKind::Runtime)
      G.task(T).Kind = TaskKind::CpuOp;
}
