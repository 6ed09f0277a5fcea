//===- RunView.cpp - One run of a graph: simulated or as recorded ---------===//

#include "RunView.h"

#include <algorithm>

using namespace dd;

RunView::RunView(std::string Label, const Graph &G, const SimResult *Result)
    : Label(std::move(Label)), G(G), R(Result) {
  int64_t First = INT64_MAX;
  for (TaskId T = 0; T != G.numTaskSlots(); ++T)
    if (G.isLive(T))
      First = std::min(First, R ? R->Start[T] : G.task(T).StartNs);
  Origin = First == INT64_MAX ? 0 : First;
  for (TaskId T = 0; T != G.numTaskSlots(); ++T)
    if (G.isLive(T))
      Makespan = std::max(Makespan, end(T));
}

int64_t RunView::iterationStart(size_t I) const {
  return (R ? R->Iterations[I].PredictedStartNs : G.iterations()[I].StartNs) -
         Origin;
}

int64_t RunView::iterationDuration(size_t I) const {
  return R ? R->Iterations[I].PredictedNs : G.iterations()[I].MeasuredNs;
}
