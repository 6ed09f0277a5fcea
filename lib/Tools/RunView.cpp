//===- RunView.cpp - One run of a graph: simulated or as recorded ---------===//

#include "RunView.h"
#include "daydream/Sim/SteadyState.h"

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

int64_t RunView::steadyStepNs() const {
  std::vector<IterationResult> Steps;
  for (size_t I = 0; I != G.iterations().size(); ++I) {
    const Iteration &It = G.iterations()[I];
    IterationResult Step;
    Step.Name = It.Name == NoId ? "" : G.str(It.Name);
    Step.Rank = It.Rank;
    // One run's durations on both sides: the rule picks the steps and the
    // slowest rank, and the median is the same on either.
    Step.MeasuredNs = Step.PredictedNs = iterationDuration(I);
    Steps.push_back(Step);
  }
  SteadyState S = steadyState(Steps);
  return S.known() ? S.PredictedNs : -1;
}
