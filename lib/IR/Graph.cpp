//===- Graph.cpp - The in-memory trace graph ------------------------------===//
//
// Lane linked-list maintenance and O(1) insertion and removal of tasks.
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/Graph.h"
#include "Support/FreshMemory.h"
#include "daydream/IR/TaskFieldBounds.h"

#include <algorithm>
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

void Graph::reserveFresh(size_t NewTasks, size_t NewEdges) {
  std::vector<MemoryRange> ToFault;
  reserveRoom(NewTasks, NewEdges, ToFault);
  faultIn(ToFault);
}

void Graph::faultIn(llvm::ArrayRef<MemoryRange> Ranges) {
  for (auto [Begin, End] : Ranges)
    prefault(Begin, End);
}

void Graph::reserveRoom(size_t NewTasks, size_t NewEdges,
                        std::vector<MemoryRange> &ToFault) {
  ensureLinks();
  const Task *T = Tasks.roomFor(NewTasks);
  ToFault.push_back({T, T + NewTasks});
  const Edge *E = Edges.roomFor(NewEdges);
  ToFault.push_back({E, E + NewEdges});
  for (std::vector<TaskId> *V : {&Prev, &Next}) {
    V->reserve(V->size() + NewTasks);
    ToFault.push_back(
        {V->data() + V->size(), V->data() + V->size() + NewTasks});
  }
  Dead.reserve(Dead.size() + NewTasks);
}

TaskId Graph::appendSlot(const Task &T) {
  assert(T.Lane < Lanes.size() && "task on a lane that does not exist");
  ensureLinks();
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

uint32_t Graph::appendTasks(llvm::ArrayRef<Task> Ts,
                            const TaskFieldBounds *Check) {
  const TaskId First = Tasks.size();
  Tasks.append(Ts);
  return linkNewTasks(First, Check);
}

uint32_t Graph::adoptTasks(llvm::MutableArrayRef<Task> Ts,
                           std::unique_ptr<GrowableFileMapping> Room,
                           const TaskFieldBounds *Check) {
  assert(Tasks.empty() && "adopting tasks into a graph that has some");
  if (Room)
    Tasks.borrow(Ts, std::move(Room));
  else
    Tasks.borrow(Ts);
  return linkNewTasks(0, Check);
}

uint32_t Graph::linkNewTasks(TaskId First, const TaskFieldBounds *Check) {
  return Check ? linkNewTasks<true>(First, *Check)
               : linkNewTasks<false>(First, TaskFieldBounds());
}

template <bool Checked>
uint32_t Graph::linkNewTasks(TaskId First, const TaskFieldBounds &Check) {
  // New tasks go to the ends of their lanes, so where every list was its
  // tasks in slot order (no task yet, or links still pending) it stays so:
  // only the lanes' ends are kept, and the links wait until asked for.
  const bool Lazy = First == 0 || LinksPending;
  const std::vector<TaskId> HeadBefore =
                                Lazy ? LaneHead : std::vector<TaskId>(),
                            TailBefore =
                                Lazy ? LaneTail : std::vector<TaskId>();
  if (!Lazy) {
    // Eight bytes a task of fresh memory, prefaulted (FreshMemory.h).
    resizeFresh(Prev, Tasks.size(), NoId);
    resizeFresh(Next, Tasks.size(), NoId);
  }
  Dead.resize(Tasks.size(), false);
  // Lanes (and the other fields, if asked) are checked in the same pass
  // that links: a separate pass over the tasks cost as much as linking them
  // (tens of milliseconds at ten million tasks, read from memory a file's
  // mapping just brought in).
  const size_t NumLanes = Lanes.size();
  TimeTotal Total;
  for (TaskId T = First, E = Tasks.size(); T != E; ++T) {
    const LaneId L = Tasks[T].Lane;
    // Both are evaluated: the total must take every task.
    const bool InTotal = !Checked || Total.add(Tasks[T]);
    if (Checked ? !(Check.valid(Tasks[T]) && InTotal) : L >= NumLanes) {
      if (Lazy) {
        LaneHead = HeadBefore;
        LaneTail = TailBefore;
        dropNewTasks(First);
      } else {
        unlinkNewTasks(First, T);
      }
      return T - First;
    }
    TaskId &Tail = LaneTail[L];
    if (!Lazy) {
      Prev[T] = Tail;
      if (Tail != NoId)
        Next[Tail] = T;
    }
    if (Tail == NoId)
      LaneHead[L] = T;
    Tail = T;
  }
  LinksPending = Lazy && !Tasks.empty();
  return NoId;
}

void Graph::unlinkNewTasks(TaskId First, TaskId Linked) {
  // Back to front, so that each lane's tail steps back to where it was.
  for (TaskId T = Linked; T-- != First;) {
    const LaneId L = Tasks[T].Lane;
    LaneTail[L] = Prev[T];
    if (Prev[T] != NoId)
      Next[Prev[T]] = NoId;
    else
      LaneHead[L] = NoId;
  }
  dropNewTasks(First);
}

void Graph::dropNewTasks(TaskId First) {
  Tasks.truncate(First);
  Prev.resize(std::min(Prev.size(), size_t(First)));
  Next.resize(std::min(Next.size(), size_t(First)));
  Dead.resize(First);
}

void Graph::buildLinks() const {
  // Eight bytes a task of fresh memory, prefaulted (FreshMemory.h).
  resizeFresh(Prev, Tasks.size(), NoId);
  resizeFresh(Next, Tasks.size(), NoId);
  std::vector<TaskId> Tail(Lanes.size(), NoId);
  for (TaskId T = 0, E = Tasks.size(); T != E; ++T) {
    if (Dead[T])
      continue;
    TaskId &Last = Tail[Tasks[T].Lane];
    Prev[T] = Last;
    if (Last != NoId)
      Next[Last] = T;
    Last = T;
  }
  LinksPending = false;
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
  // While links are pending, a lane's list is its live tasks in slot order,
  // so a task inside it goes by being marked dead; only a lane's first or
  // last task needs the links, to find the one that takes its place.
  const LaneId L = Tasks[T].Lane;
  if (LinksPending && T != LaneHead[L] && T != LaneTail[L]) {
    Dead[T] = true;
    ++NumDead;
    return;
  }
  ensureLinks();
  unlink(T);
  Dead[T] = true;
  ++NumDead;
}

void Graph::removeRunAfter(TaskId Head, llvm::ArrayRef<TaskId> Run) {
  if (!LinksPending || Run.empty()) {
    for (TaskId T : Run)
      removeTask(T);
    return;
  }
  const LaneId L = Tasks[Head].Lane;
  for (TaskId T : Run) {
    assert(!Dead[T] && Tasks[T].Lane == L && T > Head && "not a run");
    Dead[T] = true;
  }
  NumDead += Run.size();
  if (LaneTail[L] == Run.back())
    LaneTail[L] = Head;
}

void Graph::removeLaneTasks(LaneId L) {
  ensureLinks();
  for (TaskId T = LaneHead[L]; T != NoId;) {
    TaskId N = Next[T];
    Prev[T] = Next[T] = NoId;
    Dead[T] = true;
    ++NumDead;
    T = N;
  }
  LaneHead[L] = LaneTail[L] = NoId;
}

void Graph::moveTask(TaskId T, LaneId L, TaskId After) {
  ensureLinks();
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

// In place, one cycle of the permutation at a time: a canonical order moves
// few tasks far, and a copy of the task array would touch as much memory
// again.
void Graph::permuteTasks(llvm::ArrayRef<TaskId> NewId) {
  assert(NumDead == 0 && NewId.size() == Tasks.size());
  std::vector<TaskId> Dest(NewId.begin(), NewId.end());
  for (TaskId T = 0, E = Tasks.size(); T != E; ++T)
    while (Dest[T] != T) {
      TaskId D = Dest[T];
      std::swap(Tasks[T], Tasks[D]);
      std::swap(Dest[T], Dest[D]);
    }
  for (Edge &E : Edges) {
    E.Src = NewId[E.Src];
    E.Dst = NewId[E.Dst];
  }
  for (TaskNote &N : Notes)
    if (N.Task < NewId.size())
      N.Task = NewId[N.Task];
  for (MemoryEvent &E : MemoryEvents)
    if (E.Task < NewId.size())
      E.Task = NewId[E.Task];
  // Each lane keeps its order, so its list is its tasks in id order: only
  // the ends are kept, and the links wait until asked for.
  std::fill(LaneHead.begin(), LaneHead.end(), NoId);
  std::fill(LaneTail.begin(), LaneTail.end(), NoId);
  for (TaskId T = 0, E = Tasks.size(); T != E; ++T) {
    const LaneId L = Tasks[T].Lane;
    if (LaneHead[L] == NoId)
      LaneHead[L] = T;
    LaneTail[L] = T;
  }
  std::vector<TaskId>().swap(Prev);
  std::vector<TaskId>().swap(Next);
  LinksPending = !Tasks.empty();
}

// Entries may be shared by several tasks (writers deduplicate them), so a
// task never changes its entry in place: it gets a new one.
AttrId Graph::setAttrs(TaskId T, const TaskAttrs &A) {
  Attrs.push_back(A);
  return Tasks[T].Attrs = static_cast<AttrId>(Attrs.size() - 1);
}

// The fields packed into six words, each mixed in with a multiply: a tenth
// of what hash_combine costs, and the hash only picks a bucket.
size_t TaskAttrsHash::operator()(const TaskAttrs &A) const {
  const uint64_t Words[] = {A.Bytes,
                            A.Flops,
                            uint64_t(A.Grid[0]) << 32 | A.Grid[1],
                            uint64_t(A.Grid[2]) << 32 | A.Block[0],
                            uint64_t(A.Block[1]) << 32 | A.Block[2],
                            uint64_t(A.SharedMemBytes) << 32 |
                                uint64_t(A.RegistersPerThread) << 16 |
                                uint64_t(A.DType) << 8 | A.CopyKind};
  uint64_t H = 0;
  for (uint64_t W : Words) {
    H = (H ^ W) * 0x9E3779B97F4A7C15ULL; // 2^64 / golden ratio
    H ^= H >> 32;
  }
  return H;
}

void Graph::addNote(TaskId T, llvm::StringRef Key, llvm::StringRef Value) {
  Notes.push_back(TaskNote{T, intern(Key), intern(Value)});
}

size_t Graph::countLiveEdges() const {
  // Every task live (every graph read from a file): every edge is too.
  if (numTasks() == numTaskSlots())
    return Edges.size();
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
