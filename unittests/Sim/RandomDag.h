//===- RandomDag.h - Random task graphs for the simulator tests -*- C++ -*-===//
//
// Differential tests compare an engine or an analysis with a naive
// reference on many random graphs; this builds them: random lanes, tasks,
// edges of every kind and a few dead tasks, all consistent with one random
// topological order that is unrelated to task ids.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_UNITTESTS_SIM_RANDOMDAG_H
#define DAYDREAM_UNITTESTS_SIM_RANDOMDAG_H

#include "../IR/GraphBuilder.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace dd::test {

/// A random graph whose edges and lane lists all follow one random
/// topological order that is unrelated to task ids; a few tasks are removed.
struct RandomDag {
  Graph G;
  std::vector<TaskId> Topo; // Live tasks only.
};

inline RandomDag makeRandomDag(uint32_t Seed, bool PriorityLanes) {
  std::mt19937 Rng(Seed);
  auto Pick = [&](uint32_t N) { return static_cast<uint32_t>(Rng() % N); };
  RandomDag D;
  Graph &G = D.G;
  const unsigned NumLanes = 2 + Pick(5);
  for (unsigned L = 0; L != NumLanes; ++L) {
    LaneOrder Order =
        PriorityLanes && L % 2 ? LaneOrder::ByPriority : LaneOrder::InOrder;
    addLane(G, "lane" + std::to_string(L), static_cast<LaneKind>(Pick(3)),
            Order);
  }
  const unsigned N = 200 + Pick(200);
  for (unsigned I = 0; I != N; ++I)
    addTask(G, Pick(NumLanes), "t" + std::to_string(I), 1000 + Pick(20000),
            Pick(4) ? Pick(50) : 0, TaskKind::CpuOp, Pick(3) ? 0 : Pick(6));

  std::vector<TaskId> Perm(N);
  for (unsigned I = 0; I != N; ++I)
    Perm[I] = I;
  std::shuffle(Perm.begin(), Perm.end(), Rng);
  std::vector<unsigned> Pos(N);
  for (unsigned I = 0; I != N; ++I) {
    Pos[Perm[I]] = I;
    G.moveTask(Perm[I], G.task(Perm[I]).Lane); // Lane lists follow Perm.
  }
  for (unsigned I = 0, M = 2 * N; I != M; ++I) {
    TaskId A = Pick(N), B = Pick(N);
    if (A == B)
      continue;
    if (Pos[A] > Pos[B])
      std::swap(A, B);
    auto Kind = static_cast<EdgeKind>(Pick(NumEdgeKinds));
    // A Sync wait on a ByPriority lane may hold the lane from the very task
    // it waits for (see HeldPriorityLaneIsAnError).
    if (Kind == EdgeKind::Sync &&
        G.lane(G.task(B).Lane).Order == LaneOrder::ByPriority)
      Kind = EdgeKind::Data;
    G.addEdge(A, B, Kind);
  }
  for (unsigned I = 0; I != N / 20; ++I)
    G.removeTask(Pick(N));
  for (TaskId T : Perm)
    if (G.isLive(T))
      D.Topo.push_back(T);
  G.iterationsMut() = {{5000, -1, G.intern("b")},
                       {1000, 7, G.intern("a")},
                       {15000, -1, G.intern("c")}};
  return D;
}

} // namespace dd::test

#endif // DAYDREAM_UNITTESTS_SIM_RANDOMDAG_H
