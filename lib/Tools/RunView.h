//===- RunView.h - One run of a graph: simulated or as recorded -*- C++ -*-===//
//
// dd-sim's pictures (-timeline, -plot) put a baseline beside the prediction.
// Either run is a graph with the times of a simulation, or the graph's own
// recorded times when there is no simulation: this view gives both the same
// accessors, counted from the run's first task.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TOOLS_RUNVIEW_H
#define DAYDREAM_TOOLS_RUNVIEW_H

#include "daydream/IR/Graph.h"
#include "daydream/Sim/Simulator.h"

#include <string>

namespace dd {

class RunView {
public:
  /// \p Result null: the graph's recorded times.
  RunView(std::string Label, const Graph &G, const SimResult *Result);

  const std::string &label() const { return Label; }
  const Graph &graph() const { return G; }
  bool simulated() const { return R != nullptr; }
  /// The simulation, or null for recorded times.
  const SimResult *result() const { return R; }

  /// Times of live task \p T, from the run's first task.
  int64_t start(TaskId T) const {
    return (R ? R->Start[T] : G.task(T).StartNs) - Origin;
  }
  int64_t end(TaskId T) const {
    return R ? R->End[T] - Origin : start(T) + G.task(T).DurationNs;
  }
  /// Iteration \p I's start and duration; the duration is -1 when unknown
  /// (never measured, or predicted without members).
  int64_t iterationStart(size_t I) const;
  int64_t iterationDuration(size_t I) const;
  /// The steady-state step (SteadyState.h's rule on this run's own
  /// durations), -1 if no step has a known duration.
  int64_t steadyStepNs() const;
  /// The end of the last task.
  int64_t makespan() const { return Makespan; }

private:
  std::string Label;
  const Graph &G;
  const SimResult *R;
  int64_t Origin = 0, Makespan = 0;
};

} // namespace dd

#endif // DAYDREAM_TOOLS_RUNVIEW_H
