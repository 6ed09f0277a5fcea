//===- VerifierTest.cpp - Semantic checks of a graph ----------------------===//

#include "daydream/IR/Verifier.h"
#include "GraphBuilder.h"

#include "gtest/gtest.h"

using namespace dd;
using namespace dd::test;

namespace {

std::string verify(const Graph &G) {
  llvm::Error E = verifyGraph(G);
  return E ? llvm::toString(std::move(E)) : "ok";
}

struct VerifierTest : ::testing::Test {
  Graph G;
  LaneId A = addLane(G, "a");
  TaskId T0 = addTask(G, A, "x", 0, 10);
  TaskId T1 = addTask(G, A, "y", 10, 10);
};

TEST_F(VerifierTest, ValidGraph) { EXPECT_EQ(verify(G), "ok"); }

TEST_F(VerifierTest, NegativeDuration) {
  G.task(T1).DurationNs = -1;
  EXPECT_EQ(verify(G), "task %1 'y': negative duration -1");
}

TEST_F(VerifierTest, NegativeGap) {
  G.task(T0).GapNs = -5;
  EXPECT_EQ(verify(G), "task %0 'x': negative gap -5");
}

TEST_F(VerifierTest, NameOutOfRange) {
  G.task(T0).Name = 99;
  EXPECT_EQ(verify(G), "task %0: name 99 out of range (3 strings)");
}

TEST_F(VerifierTest, LayerOutOfRange) {
  G.task(T0).Layer = 3;
  EXPECT_EQ(verify(G), "task %0 'x': layer 3 out of range (0 layers)");
}

TEST_F(VerifierTest, UnknownKind) {
  G.task(T0).Kind = TaskKind(42);
  EXPECT_EQ(verify(G), "task %0 'x': unknown task kind 42");
}

TEST_F(VerifierTest, DanglingEdge) {
  G.addEdge(T0, 7, EdgeKind::Data);
  EXPECT_EQ(verify(G), "edge %0 -> %7: dangling (graph has 2 tasks)");
}

TEST_F(VerifierTest, SelfEdge) {
  G.addEdge(T1, T1, EdgeKind::Data);
  EXPECT_EQ(verify(G), "edge %1 -> %1: a task cannot depend on itself");
}

TEST_F(VerifierTest, Cycle) {
  G.addEdge(T1, T0, EdgeKind::Data); // against lane order
  EXPECT_EQ(verify(G), "dependency cycle: %0 'x' -> %1 'y' -> %0 'x'");
}

TEST_F(VerifierTest, LayerParentMustComeFirst) {
  G.addLayer(Layer{G.intern("l0"), 1});
  G.addLayer(Layer{G.intern("l1"), NoId});
  EXPECT_EQ(verify(G), "layer #0: parent #1 is not an earlier layer");
}

TEST_F(VerifierTest, NegativeMeasuredIteration) {
  G.iterationsMut().push_back(Iteration{0, -7, G.intern("step")});
  EXPECT_EQ(verify(G), "iteration 'step': negative measured duration -7");
}

TEST_F(VerifierTest, RemovedTasksAreIgnored) {
  G.addEdge(T1, T0, EdgeKind::Data);
  G.removeTask(T1);
  EXPECT_EQ(verify(G), "ok");
}

} // namespace
