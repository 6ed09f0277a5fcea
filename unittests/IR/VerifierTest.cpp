//===- VerifierTest.cpp - Semantic checks of a graph ----------------------===//

#include "daydream/IR/Verifier.h"
#include "GraphBuilder.h"
#include "IRTestUtil.h"
#include "daydream/IR/GraphBuilder.h"

#include "gtest/gtest.h"

using namespace dd;
using namespace dd::test;

namespace {

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

TEST_F(VerifierTest, StringNotUtf8) {
  // appendUnowned() is how the binary reader loads strings: unrepaired.
  G.strings().appendUnowned("ok\xc3(");
  EXPECT_EQ(verify(G), "string #3 'ok\\xC3(' is not valid UTF-8 (at byte 2)");
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

TEST_F(VerifierTest, MemoryEvents) {
  // Defaults (unknown totals, no lane, host) and extremes are fine.
  G.addMemoryEvent(MemoryEvent{5, 16, -1, -1, 0, NoId, -1});
  G.addMemoryEvent(MemoryEvent{-MaxStartNs, INT64_MIN, 0, 0, ~0ull, A, 7});
  EXPECT_EQ(verify(G), "ok");
  G.addMemoryEvent(MemoryEvent{6, 16, -1, -1, 0, NoId, -2});
  EXPECT_EQ(verify(G),
            "memory event 2 at 6: device -2 is neither a device nor -1 (host)");
}

TEST_F(VerifierTest, MemoryEventLaneAndTotals) {
  G.addMemoryEvent(MemoryEvent{1, 8, -2, -1, 0, NoId, 0});
  EXPECT_EQ(verify(G), "memory event 0 at 1: negative running total "
                       "(allocated -2, reserved -1)");
  Graph H;
  H.addMemoryEvent(MemoryEvent{3, 8, -1, -5, 0, NoId, 0});
  EXPECT_EQ(verify(H), "memory event 0 at 3: negative running total "
                       "(allocated -1, reserved -5)");
  Graph L;
  addLane(L, "a");
  L.addMemoryEvent(MemoryEvent{4, 8, -1, -1, 0, 1, 0});
  EXPECT_EQ(verify(L), "memory event 0 at 4: lane 1 out of range (1 lanes)");
}

TEST_F(VerifierTest, RemovedTasksAreIgnored) {
  G.addEdge(T1, T0, EdgeKind::Data);
  G.removeTask(T1);
  EXPECT_EQ(verify(G), "ok");
}

} // namespace

namespace {

// A graph whose lane lists are its tasks in slot order (appended in bulk,
// as a file is read) is verified without building its lane links, and a
// task whose lane was rewritten in place is still caught: the lanes' ends
// no longer match their tasks.
TEST(VerifierLazyLinksTest, ChecksLaneEndsWithoutBuildingLinks) {
  // Lane a runs tasks 0, 1, 2 and 4; lane b runs 3 and 5.
  auto Make = [] {
    Graph G;
    addLane(G, "a");
    addLane(G, "b");
    std::vector<Task> Ts(6);
    const LaneId Lanes[] = {0, 0, 0, 1, 0, 1};
    for (unsigned I = 0; I != 6; ++I) {
      Ts[I].Name = G.intern("t");
      Ts[I].Lane = Lanes[I];
    }
    EXPECT_EQ(GraphBuilder(G).appendTasks(Ts), NoId);
    return G;
  };
  Graph Good = Make();
  EXPECT_EQ(verify(Good), "ok");
  EXPECT_TRUE(Good.lanesFollowSlotOrder()) << "the links were built";

  // Task 2, in the middle of lane a, moved to lane b behind the graph's
  // back: every lane's ends are still on their lanes, but lane b's list
  // now starts at 2, not at its head 3.
  Graph Moved = Make();
  Moved.task(2).Lane = 1;
  EXPECT_EQ(verify(Moved), "lane @1: task list is inconsistent at %3");
  // Task 0, lane a's head, moved to lane b: its head is on another lane.
  Graph Head = Make();
  Head.task(0).Lane = 1;
  EXPECT_EQ(verify(Head), "lane @0: task list is inconsistent at %0");
}

} // namespace
