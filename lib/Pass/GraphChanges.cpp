//===- GraphChanges.cpp - What a pass did to the graph, counted -----------===//

#include "GraphChanges.h"

#include <algorithm>

using namespace dd;

GraphChanges::GraphChanges(const Graph &G) {
  const size_t N = G.numTaskSlots();
  Durations.reserve(N);
  Gaps.reserve(N);
  Live.reserve(N);
  for (TaskId T = 0; T != N; ++T) {
    Durations.push_back(G.task(T).DurationNs);
    Gaps.push_back(G.task(T).GapNs);
    Live.push_back(G.isLive(T));
  }
}

void GraphChanges::count(const Graph &G, AnalysisManager &AM) const {
  const size_t Before = Live.size(), After = G.numTaskSlots();
  uint64_t Inserted = 0, Removed = 0, Retimed = 0;
  for (TaskId T = Before; T < After; ++T)
    Inserted += G.isLive(T);
  for (TaskId T = 0; T != std::min(Before, After); ++T) {
    if (!Live[T])
      continue;
    if (!G.isLive(T))
      ++Removed;
    else
      Retimed +=
          G.task(T).DurationNs != Durations[T] || G.task(T).GapNs != Gaps[T];
  }
  AM.count("tasks inserted", Inserted);
  AM.count("tasks removed", Removed);
  AM.count("tasks re-timed (duration or gap)", Retimed);
}
