//===- Graph.cpp - The in-memory trace graph ------------------------------===//
//
// Lane linked-list maintenance and O(1) insertion and removal of tasks.
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/Graph.h"

#include <cassert>

using namespace dd;

LaneId Graph::addLane(const Lane &L) {
  Lanes.push_back(L);
  LaneHead.push_back(NoId);
  LaneTail.push_back(NoId);
  return static_cast<LaneId>(Lanes.size() - 1);
}

LayerId Graph::addLayer(const Layer &L) {
  Layers.push_back(L);
  return static_cast<LayerId>(Layers.size() - 1);
}

void Graph::reserve(size_t NumTasks, size_t NumEdges, size_t NumAttrs) {
  Tasks.reserve(NumTasks);
  Prev.reserve(NumTasks);
  Next.reserve(NumTasks);
  Dead.reserve(NumTasks);
  Edges.reserve(NumEdges);
  Attrs.reserve(Attrs.size() + NumAttrs);
}

TaskId Graph::appendSlot(const Task &T) {
  assert(T.Lane < Lanes.size() && "task on a lane that does not exist");
  Tasks.push_back(T);
  Prev.push_back(NoId);
  Next.push_back(NoId);
  Dead.push_back(false);
  return static_cast<TaskId>(Tasks.size() - 1);
}

TaskId Graph::addTask(const Task &T) {
  TaskId Id = appendSlot(T);
  linkAtEnd(Id, T.Lane);
  return Id;
}

TaskId Graph::insertTaskAfter(TaskId Pos, const Task &T) {
  assert(isLive(Pos));
  Task Copy = T;
  Copy.Lane = Tasks[Pos].Lane;
  TaskId Id = appendSlot(Copy);
  linkAfter(Id, Pos);
  return Id;
}

TaskId Graph::insertTaskBefore(TaskId Pos, const Task &T) {
  assert(isLive(Pos));
  Task Copy = T;
  Copy.Lane = Tasks[Pos].Lane;
  TaskId Id = appendSlot(Copy);
  linkBefore(Id, Pos);
  return Id;
}

void Graph::removeTask(TaskId T) {
  if (Dead[T])
    return;
  unlink(T);
  Dead[T] = true;
  ++NumDead;
}

void Graph::moveTask(TaskId T, LaneId L, TaskId After) {
  assert(isLive(T) && L < Lanes.size());
  unlink(T);
  Tasks[T].Lane = L;
  if (After == NoId) {
    linkAtEnd(T, L);
  } else {
    assert(Tasks[After].Lane == L && "anchor is on another lane");
    linkAfter(T, After);
  }
}

// Entries may be shared by several tasks (writers deduplicate them), so a
// task never changes its entry in place: it gets a new one.
void Graph::setAttrs(TaskId T, const TaskAttrs &A) {
  Attrs.push_back(A);
  Tasks[T].Attrs = static_cast<AttrId>(Attrs.size() - 1);
}

void Graph::addNote(TaskId T, llvm::StringRef Key, llvm::StringRef Value) {
  Notes.push_back(TaskNote{T, intern(Key), intern(Value)});
}

size_t Graph::countLiveEdges() const {
  size_t N = 0;
  for (const Edge &E : Edges)
    N += isLive(E);
  return N;
}

void Graph::linkAtEnd(TaskId T, LaneId L) {
  Prev[T] = LaneTail[L];
  Next[T] = NoId;
  if (LaneTail[L] != NoId)
    Next[LaneTail[L]] = T;
  else
    LaneHead[L] = T;
  LaneTail[L] = T;
}

void Graph::linkAfter(TaskId T, TaskId Pos) {
  LaneId L = Tasks[Pos].Lane;
  Prev[T] = Pos;
  Next[T] = Next[Pos];
  if (Next[Pos] != NoId)
    Prev[Next[Pos]] = T;
  else
    LaneTail[L] = T;
  Next[Pos] = T;
}

void Graph::linkBefore(TaskId T, TaskId Pos) {
  LaneId L = Tasks[Pos].Lane;
  Next[T] = Pos;
  Prev[T] = Prev[Pos];
  if (Prev[Pos] != NoId)
    Next[Prev[Pos]] = T;
  else
    LaneHead[L] = T;
  Prev[Pos] = T;
}

void Graph::unlink(TaskId T) {
  LaneId L = Tasks[T].Lane;
  if (Prev[T] != NoId)
    Next[Prev[T]] = Next[T];
  else
    LaneHead[L] = Next[T];
  if (Next[T] != NoId)
    Prev[Next[T]] = Prev[T];
  else
    LaneTail[L] = Prev[T];
  Prev[T] = Next[T] = NoId;
}
