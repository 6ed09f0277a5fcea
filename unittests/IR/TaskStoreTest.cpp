//===- TaskStoreTest.cpp - The task array, borrowed then owned ------------===//
//
// A borrowed store (of tasks or edges) reads and writes the caller's
// records in place, ignores reserve(), and copies them out on its first
// growth, after which the caller's memory is no longer touched; a graph
// that adopts a task array links its lanes as appending one task at a time
// does.
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/TaskStore.h"
#include "daydream/IR/Graph.h"
#include "daydream/IR/GraphBuilder.h"

#include "gtest/gtest.h"

using namespace dd;

namespace {

std::vector<Task> threeTasks() {
  std::vector<Task> Ts(3);
  for (size_t I = 0; I != Ts.size(); ++I) {
    Ts[I].StartNs = 10 * int64_t(I);
    Ts[I].Lane = I == 1 ? 1 : 0;
  }
  return Ts;
}

TEST(TaskStoreTest, BorrowsInPlaceUntilItGrows) {
  std::vector<Task> Mine = threeTasks();
  TaskStore S;
  S.borrow(Mine);
  EXPECT_TRUE(S.borrowed());
  ASSERT_EQ(S.size(), 3u);
  EXPECT_EQ(&S[1], &Mine[1]);
  S[1].DurationNs = 7; // writes land in the borrowed records
  EXPECT_EQ(Mine[1].DurationNs, 7);
  S.reserve(100);
  EXPECT_TRUE(S.borrowed());

  Task Extra;
  Extra.StartNs = 99;
  S.push_back(Extra);
  EXPECT_FALSE(S.borrowed());
  ASSERT_EQ(S.size(), 4u);
  EXPECT_NE(&S[1], &Mine[1]);
  EXPECT_EQ(S[1].DurationNs, 7);
  EXPECT_EQ(S[3].StartNs, 99);
  S[0].DurationNs = 5; // no longer the caller's memory
  EXPECT_EQ(Mine[0].DurationNs, 0);

  S.append(threeTasks());
  ASSERT_EQ(S.size(), 7u);
  EXPECT_EQ(llvm::ArrayRef<Task>(S)[6].StartNs, 20);
}

TEST(TaskStoreTest, EdgesAreBorrowedTheSameWay) {
  std::vector<Edge> Mine = {{0, 1, EdgeKind::Launch}, {1, 2, EdgeKind::Sync}};
  EdgeStore S;
  S.reserve(8);
  S.borrow(Mine);
  EXPECT_TRUE(S.borrowed());
  EXPECT_EQ(&S[1], &Mine[1]);
  for (Edge &E : S) // writes land in the borrowed records
    ++E.Dst;
  EXPECT_EQ(Mine[1].Dst, 3u);
  S.push_back({2, 4, EdgeKind::Data});
  EXPECT_FALSE(S.borrowed());
  ASSERT_EQ(S.size(), 3u);
  EXPECT_EQ(llvm::ArrayRef<Edge>(S)[1].Dst, 3u);
  S.clear();
  EXPECT_TRUE(S.empty());

  EdgeStore B;
  B.borrow(Mine);
  B.clear(); // views none; the caller's records stay as they were
  EXPECT_TRUE(B.empty());
  EXPECT_FALSE(B.borrowed());
  EXPECT_EQ(Mine.size(), 2u);
}

TEST(TaskStoreTest, MovesKeepTheRecords) {
  std::vector<Task> Mine = threeTasks();
  TaskStore A;
  A.borrow(Mine);
  TaskStore B(std::move(A));
  EXPECT_TRUE(B.borrowed());
  EXPECT_EQ(&B[2], &Mine[2]);
  // What a moved-from store holds is part of the contract tested here.
  EXPECT_EQ(A.size(), 0u); // NOLINT(bugprone-use-after-move)
  B.append(threeTasks());
  TaskStore C;
  C = std::move(B);
  ASSERT_EQ(C.size(), 6u);
  EXPECT_FALSE(C.borrowed());
  EXPECT_EQ(C[4].Lane, 1u);
}

TEST(TaskStoreTest, AdoptedTasksAreLinkedLikeAddedOnes) {
  Graph Added, Adopted;
  for (Graph *G : {&Added, &Adopted}) {
    G->addLane(Lane());
    G->addLane(Lane());
  }
  std::vector<Task> Mine = threeTasks();
  for (const Task &T : Mine)
    Added.addTask(T);
  EXPECT_EQ(GraphBuilder(Adopted).adoptTasks(Mine), NoId);
  ASSERT_EQ(Adopted.numTasks(), 3u);
  EXPECT_EQ(&Adopted.task(0), &Mine[0]);
  for (LaneId L = 0; L != 2; ++L) {
    EXPECT_EQ(Adopted.laneHead(L), Added.laneHead(L));
    EXPECT_EQ(Adopted.laneTail(L), Added.laneTail(L));
  }
  for (TaskId T = 0; T != 3; ++T) {
    EXPECT_EQ(Adopted.nextOnLane(T), Added.nextOnLane(T));
    EXPECT_EQ(Adopted.prevOnLane(T), Added.prevOnLane(T));
  }
  // Adding a task copies the adopted ones out first.
  Adopted.addTask(Mine[0]);
  EXPECT_NE(&Adopted.task(0), &Mine[0]);
  EXPECT_EQ(Adopted.laneTail(0), 3u);
  EXPECT_EQ(Adopted.nextOnLane(2), 3u);

  Graph Bad;
  Bad.addLane(Lane());
  EXPECT_EQ(GraphBuilder(Bad).adoptTasks(Mine), 1u); // task 1 is on lane 1
  EXPECT_EQ(Bad.numTaskSlots(), 0u);
  EXPECT_EQ(Bad.laneHead(0), NoId);
  EXPECT_EQ(Bad.laneTail(0), NoId);
}

TEST(TaskStoreTest, AppendingATaskOnAMissingLaneLeavesTheGraphAsItWas) {
  Graph G;
  G.addLane(Lane());
  G.addLane(Lane());
  std::vector<Task> Mine = threeTasks();
  ASSERT_EQ(GraphBuilder(G).appendTasks(Mine), NoId);
  // Lanes 0 and 1 get two more tasks before one names lane 2.
  std::vector<Task> More = threeTasks();
  More.push_back(More[0]);
  More.back().Lane = 2;
  EXPECT_EQ(GraphBuilder(G).appendTasks(More), 3u);
  ASSERT_EQ(G.numTaskSlots(), 3u);
  Graph Fresh;
  Fresh.addLane(Lane());
  Fresh.addLane(Lane());
  ASSERT_EQ(GraphBuilder(Fresh).appendTasks(Mine), NoId);
  for (LaneId L = 0; L != 2; ++L) {
    EXPECT_EQ(G.laneHead(L), Fresh.laneHead(L));
    EXPECT_EQ(G.laneTail(L), Fresh.laneTail(L));
  }
  for (TaskId T = 0; T != 3; ++T) {
    EXPECT_EQ(G.nextOnLane(T), Fresh.nextOnLane(T));
    EXPECT_EQ(G.prevOnLane(T), Fresh.prevOnLane(T));
  }
}

} // namespace
