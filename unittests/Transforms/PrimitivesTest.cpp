//===- PrimitivesTest.cpp - scale, set and remove primitives --------------===//

#include "daydream/Transforms/Primitives.h"
#include "../IR/GraphBuilder.h"
#include "daydream/IR/Verifier.h"

#include "gtest/gtest.h"

#include <set>
#include <tuple>

using namespace dd;
using namespace dd::test;

namespace {

using EdgeSet = std::set<std::tuple<TaskId, TaskId, EdgeKind>>;

EdgeSet liveEdges(const Graph &G) {
  EdgeSet S;
  for (const Edge &E : G.edgeSlots())
    if (G.isLive(E))
      S.insert({E.Src, E.Dst, E.Kind});
  return S;
}

TEST(PrimitivesTest, ScaleRoundsAndClamps) {
  Graph G;
  LaneId A = addLane(G, "a");
  TaskId T0 = addTask(G, A, "x", 0, 3);
  TaskId T1 = addTask(G, A, "y", 0, 10);
  scaleDurations(G, {T0, T1}, 0.5);
  EXPECT_EQ(G.task(T0).DurationNs, 2); // 1.5 rounds half away from zero
  EXPECT_EQ(G.task(T1).DurationNs, 5);
  setDurations(G, {T1}, 42);
  EXPECT_EQ(G.task(T1).DurationNs, 42);
}

TEST(PrimitivesTest, RemoveChainKeepsEndToEndConstraint) {
  Graph G;
  LaneId A = addLane(G, "a"), B = addLane(G, "b"), C = addLane(G, "c"),
         D = addLane(G, "d");
  TaskId X = addTask(G, A, "x", 0, 1);
  TaskId R1 = addTask(G, B, "r1", 0, 1);
  TaskId R2 = addTask(G, C, "r2", 0, 1);
  TaskId Y = addTask(G, D, "y", 0, 1);
  G.addEdge(X, R1, EdgeKind::Data);
  G.addEdge(R1, R2, EdgeKind::Comm);
  G.addEdge(R2, Y, EdgeKind::CrossStream);
  removeTasks(G, {R2, R1});
  EXPECT_EQ(liveEdges(G), (EdgeSet{{X, Y, EdgeKind::CrossStream}}));
  EXPECT_FALSE(bool(verifyGraph(G)));
}

TEST(PrimitivesTest, RemoveKeepsLaneOrderAsEdges) {
  // Lane b: p, r, s.  q (lane a) launches r.  Removing r must keep q before
  // s (s followed r on its lane) and p before whatever r preceded.
  Graph G;
  LaneId A = addLane(G, "a"), B = addLane(G, "b"), C = addLane(G, "c");
  TaskId Q = addTask(G, A, "q", 0, 1);
  TaskId P = addTask(G, B, "p", 0, 1);
  TaskId R = addTask(G, B, "r", 0, 1, TaskKind::CpuOp, /*Gap=*/7);
  TaskId S = addTask(G, B, "s", 0, 1, TaskKind::CpuOp, /*Gap=*/2);
  TaskId Z = addTask(G, C, "z", 0, 1);
  G.addEdge(Q, R, EdgeKind::Launch);
  G.addEdge(R, Z, EdgeKind::Sync);
  removeTasks(G, {R});
  EXPECT_EQ(liveEdges(G), (EdgeSet{{Q, S, EdgeKind::Launch},
                                   {Q, Z, EdgeKind::Sync},
                                   {P, Z, EdgeKind::Sync}}));
  EXPECT_EQ(G.nextOnLane(P), S);
  EXPECT_EQ(G.task(S).GapNs, 9); // r's untraced gap still elapses
  EXPECT_FALSE(bool(verifyGraph(G)));
}

TEST(PrimitivesTest, RemoveWholeLaneRun) {
  Graph G;
  LaneId A = addLane(G, "a"), B = addLane(G, "b");
  TaskId U = addTask(G, A, "u", 0, 1);
  TaskId R1 = addTask(G, B, "r1", 0, 1);
  TaskId R2 = addTask(G, B, "r2", 0, 1);
  TaskId V = addTask(G, A, "v", 0, 1);
  G.addEdge(U, R1, EdgeKind::Launch);
  G.addEdge(R2, V, EdgeKind::Sync);
  removeTasks(G, {R1, R2});
  // u -> r1 -lane-> r2 -> v collapses to u -> v (already lane order, but the
  // kind of the edge into v is kept).
  EXPECT_EQ(liveEdges(G), (EdgeSet{{U, V, EdgeKind::Sync}}));
  EXPECT_EQ(G.laneHead(B), NoId);
}

TEST(PrimitivesTest, RemoveNothingIsNoop) {
  Graph G;
  LaneId A = addLane(G, "a");
  addTask(G, A, "u", 0, 1);
  removeTasks(G, {});
  EXPECT_EQ(G.numTasks(), 1u);
}

} // namespace
