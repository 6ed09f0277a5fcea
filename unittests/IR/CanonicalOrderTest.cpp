//===- CanonicalOrderTest.cpp - The order graphs are written in -----------===//

#include "daydream/IR/CanonicalOrder.h"
#include "GraphBuilder.h"

#include "gtest/gtest.h"

using namespace dd;
using namespace dd::test;

namespace {

TEST(CanonicalOrderTest, SortedGraphIsIdentity) {
  Graph G;
  LaneId A = addLane(G, "a"), B = addLane(G, "b");
  TaskId T0 = addTask(G, A, "x", 0, 1);
  TaskId T1 = addTask(G, B, "y", 0, 1);
  G.addEdge(T0, T1, EdgeKind::Launch);
  auto C = computeCanonicalOrder(G);
  ASSERT_TRUE(bool(C));
  EXPECT_TRUE(C->IsIdentity);
  EXPECT_EQ(C->Order, (std::vector<TaskId>{0, 1}));
}

TEST(CanonicalOrderTest, BackwardEdgeReorders) {
  Graph G;
  LaneId A = addLane(G, "a"), B = addLane(G, "b");
  TaskId T0 = addTask(G, A, "x", 0, 1);
  TaskId T1 = addTask(G, B, "y", 0, 1);
  TaskId T2 = addTask(G, A, "z", 0, 1);
  G.addEdge(T1, T0, EdgeKind::Data); // y must come before x
  auto C = computeCanonicalOrder(G);
  ASSERT_TRUE(bool(C));
  EXPECT_FALSE(C->IsIdentity);
  EXPECT_EQ(C->Order, (std::vector<TaskId>{T1, T0, T2}));
  EXPECT_EQ(C->NewId[T1], 0u);
  // Edges are renumbered and sorted.
  std::vector<Edge> E = canonicalEdges(G, *C);
  ASSERT_EQ(E.size(), 1u);
  EXPECT_EQ(E[0].Src, 0u);
  EXPECT_EQ(E[0].Dst, 1u);
}

TEST(CanonicalOrderTest, InsertedTaskTakesItsLanePosition) {
  Graph G;
  LaneId A = addLane(G, "a");
  TaskId T0 = addTask(G, A, "x", 0, 1);
  TaskId T1 = addTask(G, A, "y", 0, 1);
  Task N;
  N.Name = G.intern("n");
  TaskId Mid = G.insertTaskAfter(T0, N);
  auto C = computeCanonicalOrder(G);
  ASSERT_TRUE(bool(C));
  EXPECT_EQ(C->Order, (std::vector<TaskId>{T0, Mid, T1}));
}

TEST(CanonicalOrderTest, DeadTasksAndDuplicateEdgesDrop) {
  Graph G;
  LaneId A = addLane(G, "a"), B = addLane(G, "b");
  TaskId T0 = addTask(G, A, "x", 0, 1);
  TaskId T1 = addTask(G, B, "y", 0, 1);
  TaskId T2 = addTask(G, B, "z", 0, 1);
  G.addEdge(T0, T2, EdgeKind::Launch);
  G.addEdge(T0, T2, EdgeKind::Launch);
  G.addEdge(T0, T1, EdgeKind::Launch);
  G.removeTask(T1);
  auto C = computeCanonicalOrder(G);
  ASSERT_TRUE(bool(C));
  EXPECT_EQ(C->Order, (std::vector<TaskId>{T0, T2}));
  EXPECT_EQ(C->NewId[T1], NoId);
  std::vector<Edge> E = canonicalEdges(G, *C);
  ASSERT_EQ(E.size(), 1u);
  EXPECT_EQ(E[0].Dst, 1u);
}

TEST(CanonicalOrderTest, CycleThroughLaneOrderIsNamed) {
  Graph G;
  LaneId A = addLane(G, "a"), B = addLane(G, "b");
  TaskId T0 = addTask(G, A, "first", 0, 1);
  TaskId T1 = addTask(G, A, "second", 0, 1);
  TaskId U = addTask(G, B, "other", 0, 1);
  G.addEdge(T1, U, EdgeKind::Data);
  G.addEdge(U, T0, EdgeKind::Data); // first -> second -> other -> first
  auto C = computeCanonicalOrder(G);
  ASSERT_FALSE(bool(C));
  EXPECT_EQ(llvm::toString(C.takeError()),
            "dependency cycle: %0 'first' -> %1 'second' -> %2 'other' -> "
            "%0 'first'");
}

TEST(CanonicalOrderTest, LongCycleStaysOneShortLine) {
  // 200,000 tasks on one lane and an edge from the last to the first: the
  // message names the first and last eight, not all of them.
  Graph G;
  LaneId A = addLane(G, "a");
  constexpr unsigned N = 200000;
  for (unsigned I = 0; I != N; ++I)
    addTask(G, A, "t", I, 1);
  G.addEdge(N - 1, 0, EdgeKind::Data);
  auto C = computeCanonicalOrder(G);
  ASSERT_FALSE(bool(C));
  std::string Msg = llvm::toString(C.takeError());
  EXPECT_LT(Msg.size(), 400u);
  EXPECT_TRUE(llvm::StringRef(Msg).startswith(
      "dependency cycle of 200000 tasks: %0 't' -> %1 't' -> %2 't'"))
      << Msg;
  EXPECT_NE(Msg.find("%7 't' -> ... -> %199992 't'"), std::string::npos);
  EXPECT_TRUE(llvm::StringRef(Msg).endswith("%199999 't' -> %0 't'")) << Msg;
}

} // namespace
