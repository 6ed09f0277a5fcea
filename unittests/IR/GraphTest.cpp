//===- GraphTest.cpp - In-memory graph: lanes, insertion, removal ---------===//

#include "GraphBuilder.h"
#include "daydream/IR/GraphBuilder.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <random>
#include <string>
#include <tuple>

using namespace dd;
using namespace dd::test;

namespace {

std::vector<TaskId> laneOrder(const Graph &G, LaneId L) {
  std::vector<TaskId> Out;
  for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T))
    Out.push_back(T);
  return Out;
}

TEST(GraphTest, AddAppendsToLane) {
  Graph G;
  LaneId A = addLane(G, "a"), B = addLane(G, "b");
  TaskId T0 = addTask(G, A, "x", 0, 1);
  TaskId T1 = addTask(G, B, "y", 0, 1);
  TaskId T2 = addTask(G, A, "z", 0, 1);
  EXPECT_EQ(laneOrder(G, A), (std::vector<TaskId>{T0, T2}));
  EXPECT_EQ(laneOrder(G, B), (std::vector<TaskId>{T1}));
  EXPECT_EQ(G.laneTail(A), T2);
  EXPECT_EQ(G.numTasks(), 3u);
}

TEST(GraphTest, InsertBeforeAndAfter) {
  Graph G;
  LaneId A = addLane(G, "a");
  TaskId T0 = addTask(G, A, "x", 0, 1);
  TaskId T1 = addTask(G, A, "y", 0, 1);
  Task N;
  N.Name = G.intern("n");
  TaskId Mid = G.insertTaskAfter(T0, N);
  TaskId First = G.insertTaskBefore(T0, N);
  TaskId Last = G.insertTaskAfter(T1, N);
  EXPECT_EQ(laneOrder(G, A), (std::vector<TaskId>{First, T0, Mid, T1, Last}));
  EXPECT_EQ(G.laneHead(A), First);
  EXPECT_EQ(G.laneTail(A), Last);
  EXPECT_EQ(G.task(Mid).Lane, A);
}

TEST(GraphTest, PermuteTasksKeepsLanesEdgesAndAttributes) {
  // Two lanes interleaved: a0 b0 a1 b1, renumbered so that lane b comes
  // first. Lane order, edges, names and attributes follow their tasks.
  Graph G;
  LaneId A = addLane(G, "a"), B = addLane(G, "b");
  TaskId A0 = addTask(G, A, "a0", 0, 1);
  TaskId B0 = addTask(G, B, "b0", 0, 2);
  TaskId A1 = addTask(G, A, "a1", 1, 3);
  TaskId B1 = addTask(G, B, "b1", 2, 4);
  G.addEdge(A0, B1, EdgeKind::Launch);
  G.addEdge(B0, A1, EdgeKind::Sync);
  TaskAttrs At;
  At.Bytes = 77;
  G.setAttrs(A1, At);
  std::vector<TaskId> NewId(4);
  NewId[B0] = 0;
  NewId[B1] = 1;
  NewId[A0] = 2;
  NewId[A1] = 3;
  G.permuteTasks(NewId);
  EXPECT_EQ(laneOrder(G, B), (std::vector<TaskId>{0, 1}));
  EXPECT_EQ(laneOrder(G, A), (std::vector<TaskId>{2, 3}));
  EXPECT_EQ(G.str(G.task(0).Name), "b0");
  EXPECT_EQ(G.task(3).DurationNs, 3);
  ASSERT_NE(G.attrs(3), nullptr);
  EXPECT_EQ(G.attrs(3)->Bytes, 77u);
  EXPECT_EQ(G.attrs(2), nullptr);
  std::vector<std::tuple<TaskId, TaskId, EdgeKind>> Edges;
  for (const Edge &E : G.edgeSlots())
    Edges.emplace_back(E.Src, E.Dst, E.Kind);
  std::sort(Edges.begin(), Edges.end());
  EXPECT_EQ(Edges, (std::vector<std::tuple<TaskId, TaskId, EdgeKind>>{
                       {0, 3, EdgeKind::Sync}, {2, 1, EdgeKind::Launch}}));
}

TEST(GraphTest, RemoveUnlinksAndKillsEdges) {
  Graph G;
  LaneId A = addLane(G, "a");
  TaskId T0 = addTask(G, A, "x", 0, 1);
  TaskId T1 = addTask(G, A, "y", 0, 1);
  TaskId T2 = addTask(G, A, "z", 0, 1);
  G.addEdge(T0, T1, EdgeKind::Data);
  G.addEdge(T0, T2, EdgeKind::Data);
  G.removeTask(T1);
  G.removeTask(T1); // idempotent
  EXPECT_EQ(laneOrder(G, A), (std::vector<TaskId>{T0, T2}));
  EXPECT_FALSE(G.isLive(T1));
  EXPECT_EQ(G.numTasks(), 2u);
  EXPECT_EQ(G.numTaskSlots(), 3u);
  EXPECT_EQ(G.countLiveEdges(), 1u);
  G.removeTask(T0);
  G.removeTask(T2);
  EXPECT_EQ(G.laneHead(A), NoId);
  EXPECT_EQ(G.laneTail(A), NoId);
}

TEST(GraphTest, RemoveLaneTasksEmptiesOneLane) {
  Graph G;
  LaneId A = addLane(G, "a"), B = addLane(G, "b");
  TaskId T0 = addTask(G, A, "x", 0, 1);
  TaskId T1 = addTask(G, B, "y", 0, 1);
  TaskId T2 = addTask(G, A, "z", 0, 1);
  G.addEdge(T0, T1, EdgeKind::Data);
  G.removeLaneTasks(A);
  EXPECT_FALSE(G.isLive(T0));
  EXPECT_FALSE(G.isLive(T2));
  EXPECT_TRUE(G.isLive(T1));
  EXPECT_EQ(G.laneHead(A), NoId);
  EXPECT_EQ(G.laneTail(A), NoId);
  EXPECT_EQ(laneOrder(G, B), (std::vector<TaskId>{T1}));
  EXPECT_EQ(G.numTasks(), 1u);
  EXPECT_EQ(G.countLiveEdges(), 0u);
  // The lane takes tasks again afterwards.
  TaskId T3 = addTask(G, A, "w", 0, 1);
  EXPECT_EQ(laneOrder(G, A), (std::vector<TaskId>{T3}));
}

TEST(GraphTest, MoveTaskToAnotherLane) {
  Graph G;
  LaneId A = addLane(G, "a"), B = addLane(G, "b");
  TaskId T0 = addTask(G, A, "x", 0, 1);
  TaskId T1 = addTask(G, A, "y", 0, 1);
  TaskId U0 = addTask(G, B, "u", 0, 1);
  G.moveTask(T0, B, U0);
  EXPECT_EQ(laneOrder(G, A), (std::vector<TaskId>{T1}));
  EXPECT_EQ(laneOrder(G, B), (std::vector<TaskId>{U0, T0}));
  G.moveTask(T1, B);
  EXPECT_EQ(laneOrder(G, B), (std::vector<TaskId>{U0, T0, T1}));
  EXPECT_EQ(G.laneHead(A), NoId);
}

TEST(GraphTest, InternDeduplicatesAfterBulkLoad) {
  Graph G;
  llvm::StringRef Backing = "abcabc";
  StrId A = G.strings().appendUnowned(Backing.substr(0, 3));
  StrId B = G.strings().appendUnowned(Backing.substr(3, 3));
  EXPECT_NE(A, B);
  EXPECT_EQ(G.intern("abc"), A); // first id of a duplicated entry wins
  StrId C = G.intern("new");
  EXPECT_EQ(G.intern("new"), C);
  EXPECT_EQ(G.str(C), "new");
}

TEST(GraphTest, InternRepairsInvalidUtf8) {
  Graph G;
  StrId Good = G.intern("caf\xc3\xa9");
  EXPECT_EQ(G.strings().numRepaired(), 0u);
  StrId Bad = G.intern("caf\xe9");
  EXPECT_EQ(G.str(Bad), "caf\xef\xbf\xbd"); // U+FFFD for the lone byte
  EXPECT_EQ(G.strings().numRepaired(), 1u);
  // Another spelling of the same damage finds the repaired string.
  EXPECT_EQ(G.intern("caf\xff"), Bad);
  EXPECT_EQ(G.intern("caf\xef\xbf\xbd"), Bad);
  EXPECT_NE(Good, Bad);
}

TEST(GraphTest, AttrsAndNotes) {
  Graph G;
  LaneId A = addLane(G, "a");
  TaskId T = addTask(G, A, "k", 0, 1, TaskKind::Kernel);
  EXPECT_EQ(G.attrs(T), nullptr);
  TaskAttrs At;
  At.Bytes = 64;
  G.setAttrs(T, At);
  At.Bytes = 128;
  G.setAttrs(T, At); // replaces: a new entry, since entries may be shared
  ASSERT_NE(G.attrs(T), nullptr);
  EXPECT_EQ(G.attrs(T)->Bytes, 128u);
  EXPECT_EQ(G.attrSlots().size(), 2u);
  EXPECT_EQ(G.attrSlots()[0].Bytes, 64u); // untouched for other users
  G.addNote(T, "k", "v");
  ASSERT_EQ(G.notes().size(), 1u);
  EXPECT_EQ(G.str(G.notes()[0].Value), "v");
}

} // namespace

namespace {

/// Every lane's list, walked from its head and checked back from its tail.
std::vector<std::vector<TaskId>> laneLists(const Graph &G) {
  std::vector<std::vector<TaskId>> Lists;
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    Lists.emplace_back();
    TaskId Prev = NoId;
    for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T)) {
      EXPECT_EQ(G.prevOnLane(T), Prev) << "task " << T;
      Lists.back().push_back(T);
      Prev = T;
    }
    EXPECT_EQ(G.laneTail(L), Prev) << "lane " << L;
  }
  return Lists;
}

// A graph whose tasks were appended into it in bulk (as a file is read)
// keeps only its lanes' ends and builds the links when first asked for, or
// when a list first changes. Random changes applied to it and to the same
// graph built task by task, without a look at the links in between, must
// leave the same lists.
TEST(GraphTest, LinksBuiltWhenFirstNeededAreTheSame) {
  for (uint32_t Seed = 0; Seed != 100; ++Seed) {
    SCOPED_TRACE("seed " + std::to_string(Seed));
    std::mt19937 Rng(Seed);
    auto Pick = [&](uint32_t N) { return uint32_t(Rng() % N); };
    Graph Eager, Lazy;
    for (Graph *G : {&Eager, &Lazy})
      for (unsigned L = 0; L != 4; ++L)
        addLane(*G, "lane" + std::to_string(L));
    std::vector<Task> Tasks;
    for (unsigned I = 0, N = 20 + Pick(40); I != N; ++I) {
      Task T;
      T.Name = Eager.intern("t");
      Lazy.intern("t");
      T.Lane = Pick(4);
      T.StartNs = I;
      Tasks.push_back(T);
      Eager.addTask(T);
    }
    // In two parts, as a file is read: the second part appended while the
    // links are pending leaves them pending.
    const size_t Half = Tasks.size() / 2;
    ASSERT_EQ(dd::GraphBuilder(Lazy).appendTasks(
                  llvm::makeArrayRef(Tasks).take_front(Half)),
              NoId);
    ASSERT_EQ(dd::GraphBuilder(Lazy).appendTasks(
                  llvm::makeArrayRef(Tasks).drop_front(Half)),
              NoId);
    EXPECT_TRUE(Lazy.lanesFollowSlotOrder());
    EXPECT_FALSE(Eager.lanesFollowSlotOrder());
    for (unsigned Step = 0, Steps = Pick(6); Step != Steps; ++Step) {
      const unsigned What = Pick(6);
      const TaskId T = Pick(Eager.numTaskSlots());
      // Up to three tasks after T on its lane (asked of the eager graph,
      // whose links exist already).
      std::vector<TaskId> Run;
      if (Eager.isLive(T))
        for (TaskId N = Eager.nextOnLane(T); N != NoId && Run.size() != 3;
             N = Eager.nextOnLane(N))
          Run.push_back(N);
      for (Graph *G : {&Eager, &Lazy}) {
        if (!G->isLive(T))
          continue;
        switch (What) {
        case 0:
          G->removeTask(T);
          break;
        case 1:
          G->insertTaskAfter(T, Tasks[0]);
          break;
        case 2:
          G->insertTaskBefore(T, Tasks[0]);
          break;
        case 3:
          G->moveTask(T, (G->task(T).Lane + 1) % 4);
          break;
        case 4:
          G->removeRunAfter(T, Run);
          break;
        default:
          G->addTask(Tasks[Step % Tasks.size()]);
        }
      }
    }
    // The walk in lane order sees each lane's list, links built or not.
    for (Graph *G : {&Eager, &Lazy}) {
      std::vector<std::vector<TaskId>> Walked(4);
      G->forEachInLaneOrder(
          [&](TaskId T) { Walked[G->task(T).Lane].push_back(T); });
      EXPECT_EQ(Walked, laneLists(Eager));
    }
    EXPECT_EQ(laneLists(Lazy), laneLists(Eager));
    EXPECT_FALSE(Lazy.lanesFollowSlotOrder());
  }
}

// Renumbered, a graph's lanes follow slot order again: their links wait
// until asked for, and are then what linking task by task gives.
TEST(GraphTest, PermutedLanesFollowSlotOrder) {
  Graph G;
  LaneId A = addLane(G, "a"), B = addLane(G, "b");
  TaskId X = addTask(G, A, "x", 0, 1), Y = addTask(G, B, "y", 0, 1);
  addTask(G, A, "z", 0, 1);
  G.insertTaskBefore(X, G.task(Y));
  // Lane a runs 3 (inserted), 0, 2; lane b runs 1. New ids keeping each
  // lane's order: lane a becomes 1, 2, 3 and lane b 0.
  G.permuteTasks({2, 0, 3, 1});
  EXPECT_TRUE(G.lanesFollowSlotOrder());
  EXPECT_EQ(laneLists(G), (std::vector<std::vector<TaskId>>{{1, 2, 3}, {0}}));
  EXPECT_FALSE(G.lanesFollowSlotOrder());
  EXPECT_EQ(G.task(2).Name, G.intern("x"));
  EXPECT_EQ(G.task(3).Name, G.intern("z"));
}

} // namespace
