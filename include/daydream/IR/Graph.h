//===- Graph.h - The in-memory trace graph ---------------------*- C++ -*-===//
//
// A trace graph: tasks on lanes, typed dependency edges between tasks, the
// layers, iterations and device metadata they refer to, and the allocator's
// memory events beside them. Everything lives in flat arrays indexed by
// stable ids. Removing a task only marks it dead and unlinks it from its
// lane, and adding one appends it, so both are O(1); writers compact the
// arrays into the canonical order (see CanonicalOrder.h).
//
// Order on a lane is a doubly linked list threaded through the task arrays,
// so tasks can be inserted anywhere on a lane in O(1). Edges touching a dead
// task are dead too; they are skipped by every iterator and dropped on write.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IR_GRAPH_H
#define DAYDREAM_IR_GRAPH_H

#include "daydream/IR/GrowableFileMapping.h"
#include "daydream/IR/StringTable.h"
#include "daydream/IR/TaskStore.h"
#include "daydream/IR/Types.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cassert>
#include <cstddef>
#include <iterator>
#include <memory>
#include <vector>

namespace dd {

/// Hashes task attributes by value, to share or store each value once.
struct TaskAttrsHash {
  size_t operator()(const TaskAttrs &A) const;
};

/// The ids of a graph's live tasks in slot order (Graph::liveTasks()):
/// the dead slots a removal leaves are skipped.
class LiveTaskRange {
public:
  class iterator {
  public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = TaskId;
    using difference_type = std::ptrdiff_t;
    using pointer = const TaskId *;
    using reference = TaskId;

    iterator(const std::vector<bool> *Dead, TaskId T, TaskId End)
        : Dead(Dead), T(T), End(End) {
      skipDead();
    }
    TaskId operator*() const { return T; }
    iterator &operator++() {
      ++T;
      skipDead();
      return *this;
    }
    bool operator==(const iterator &O) const { return T == O.T; }
    bool operator!=(const iterator &O) const { return T != O.T; }

  private:
    void skipDead() {
      while (T != End && (*Dead)[T])
        ++T;
    }
    const std::vector<bool> *Dead;
    TaskId T, End;
  };

  LiveTaskRange(const std::vector<bool> &Dead, TaskId NumSlots)
      : Dead(&Dead), NumSlots(NumSlots) {}
  iterator begin() const { return iterator(Dead, 0, NumSlots); }
  iterator end() const { return iterator(Dead, NumSlots, NumSlots); }

private:
  const std::vector<bool> *Dead;
  TaskId NumSlots;
};

struct TaskFieldBounds;

class Graph {
public:
  Graph() = default;
  Graph(Graph &&) = default;
  Graph &operator=(Graph &&) = default;
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;

  //===--- Strings -------------------------------------------------------===//
  StringTable &strings() { return Strings; }
  const StringTable &strings() const { return Strings; }
  llvm::StringRef str(StrId Id) const { return Strings.get(Id); }
  StrId intern(llvm::StringRef S) { return Strings.intern(S); }

  //===--- Metadata, lanes, layers, iterations ---------------------------===//
  Metadata &metadata() { return Meta; }
  const Metadata &metadata() const { return Meta; }

  size_t numLanes() const { return Lanes.size(); }
  Lane &lane(LaneId L) { return Lanes[L]; }
  const Lane &lane(LaneId L) const { return Lanes[L]; }
  llvm::ArrayRef<Lane> lanes() const { return Lanes; }
  LaneId addLane(const Lane &L);

  size_t numLayers() const { return Layers.size(); }
  const Layer &layer(LayerId L) const { return Layers[L]; }
  llvm::ArrayRef<Layer> layers() const { return Layers; }
  LayerId addLayer(const Layer &L);

  llvm::ArrayRef<Iteration> iterations() const { return Iterations; }
  std::vector<Iteration> &iterationsMut() { return Iterations; }

  //===--- Memory events -------------------------------------------------===//
  /// In the order added. Writers sort them by time (canonicalMemoryEvents()
  /// in CanonicalOrder.h); a graph read from a file is already sorted.
  llvm::ArrayRef<MemoryEvent> memoryEvents() const { return MemoryEvents; }
  void addMemoryEvent(const MemoryEvent &E) { MemoryEvents.push_back(E); }
  /// The same events, for passes that move a block's free or change what
  /// an event belongs to.
  llvm::MutableArrayRef<MemoryEvent> memoryEventsMut() { return MemoryEvents; }
  void setMemoryEventTask(size_t Event, TaskId T) {
    MemoryEvents[Event].Task = T;
  }
  void reserveMemoryEvents(size_t N) { MemoryEvents.reserve(N); }

  //===--- Tasks ---------------------------------------------------------===//
  /// Number of task slots, live or dead: valid TaskIds are below this.
  size_t numTaskSlots() const { return Tasks.size(); }
  /// Number of live tasks.
  size_t numTasks() const { return Tasks.size() - NumDead; }
  bool isLive(TaskId T) const { return !Dead[T]; }
  /// The live tasks' ids, in slot order: for (TaskId T : G.liveTasks()).
  LiveTaskRange liveTasks() const {
    return LiveTaskRange(Dead, TaskId(Tasks.size()));
  }

  Task &task(TaskId T) { return Tasks[T]; }
  const Task &task(TaskId T) const { return Tasks[T]; }
  /// All slots, dead ones included; check isLive() when iterating.
  llvm::ArrayRef<Task> taskSlots() const { return Tasks; }

  /// Appends \p T at the end of its lane.
  TaskId addTask(const Task &T);
  /// Inserts \p T on the lane of \p Pos, just after (or before) it.
  TaskId insertTaskAfter(TaskId Pos, const Task &T);
  TaskId insertTaskBefore(TaskId Pos, const Task &T);
  /// Marks \p T dead and unlinks it from its lane (O(1); while the lane
  /// links are pending, without building them unless \p T is its lane's
  /// first or last task). Its edges die with it;
  /// keeping the ordering constraints through it is the job of the
  /// removeTasks() primitive (Transforms/Primitives.h).
  void removeTask(TaskId T);
  /// Removes \p Run, the tasks that follow \p Head on its lane one after
  /// another, as removeTask() would; O(1) each, without building pending
  /// lane links even when the run ends its lane.
  void removeRunAfter(TaskId Head, llvm::ArrayRef<TaskId> Run);
  /// Removes every task of lane \p L at once (the lane stays, empty).
  void removeLaneTasks(LaneId L);
  /// Moves \p T to the end of lane \p L (or after \p After on that lane).
  void moveTask(TaskId T, LaneId L, TaskId After = NoId);
  /// Renumbers the tasks of a graph without dead tasks: task T becomes
  /// \p NewId[T], a permutation that keeps every lane's order (a topological
  /// order does). Numbered by its canonical order (CanonicalOrder.h), a
  /// graph is written without ordering it again.
  void permuteTasks(llvm::ArrayRef<TaskId> NewId);

  //===--- Lane order ----------------------------------------------------===//
  TaskId laneHead(LaneId L) const { return LaneHead[L]; }
  TaskId laneTail(LaneId L) const { return LaneTail[L]; }
  TaskId nextOnLane(TaskId T) const {
    if (LLVM_UNLIKELY(LinksPending))
      buildLinks();
    return Next[T];
  }
  TaskId prevOnLane(TaskId T) const {
    if (LLVM_UNLIKELY(LinksPending))
      buildLinks();
    return Prev[T];
  }
  /// Calls \p Visit(T) for every live task, each lane's in lane order:
  /// one sweep in slot order, the lanes interleaved, where lanes follow
  /// slot order (no links are built), else lane after lane.
  template <class Fn> void forEachInLaneOrder(Fn Visit) const {
    if (LinksPending) {
      for (TaskId T : liveTasks())
        Visit(T);
      return;
    }
    for (LaneId L = 0; L != Lanes.size(); ++L)
      for (TaskId T = LaneHead[L]; T != NoId; T = Next[T])
        Visit(T);
  }
  /// Whether every lane's list is known to be its live tasks in increasing
  /// ids, without looking: true for a graph as read from a file, whose lane
  /// links are then not even built until something asks for one (the
  /// sweeps over slot order do not need them), and after permuteTasks().
  bool lanesFollowSlotOrder() const { return LinksPending; }
  /// Builds the lane links now if they are pending (else the first
  /// nextOnLane() or prevOnLane() does): a caller may pay for them on
  /// another thread, as long as nothing else asks for a link meanwhile.
  void prepareLaneLinks() const {
    if (LinksPending)
      buildLinks();
  }

  //===--- Task payloads -------------------------------------------------===//
  const TaskAttrs *attrs(TaskId T) const {
    return Tasks[T].Attrs == NoId ? nullptr : &Attrs[Tasks[T].Attrs];
  }
  llvm::ArrayRef<TaskAttrs> attrSlots() const { return Attrs; }
  /// Sets (or replaces) the attributes of \p T. Entries can be shared by
  /// tasks, so this adds a new one, returned; writers drop unused ones.
  AttrId setAttrs(TaskId T, const TaskAttrs &A);
  /// Gives \p T the existing entry \p A, shared with the tasks that have it.
  void shareAttrs(TaskId T, AttrId A) { Tasks[T].Attrs = A; }

  llvm::ArrayRef<TaskNote> notes() const { return Notes; }
  void addNote(TaskId T, llvm::StringRef Key, llvm::StringRef Value);
  /// The same with the key and value interned already.
  void addNote(const TaskNote &N) { Notes.push_back(N); }

  //===--- Edges ---------------------------------------------------------===//
  /// All edges ever added, including those touching dead tasks.
  llvm::ArrayRef<Edge> edgeSlots() const { return Edges; }
  /// The same, to redirect edges in place (mergeTasks()).
  llvm::MutableArrayRef<Edge> edgeSlotsMut() { return Edges; }
  bool isLive(const Edge &E) const { return !Dead[E.Src] && !Dead[E.Dst]; }
  void addEdge(TaskId Src, TaskId Dst, EdgeKind K) {
    Edges.push_back(Edge{Src, Dst, K});
  }
  /// Drops every edge (importers rebuild edges when breaking cycles).
  void clearEdges() { Edges.clear(); }
  /// Number of live edges. O(E).
  size_t countLiveEdges() const;

  //===--- Memory ---------------------------------------------------------===//
  /// Reserves room for \p NumTasks tasks, \p NumEdges edges and
  /// \p NumAttrs attribute records.
  void reserve(size_t NumTasks, size_t NumEdges, size_t NumAttrs = 0);
  /// Room for \p NewTasks more tasks and \p NewEdges more edges, faulted
  /// in at once: for a pass about to add millions (a fault every 4 KiB of
  /// fresh memory costs more than the copies; FreshMemory.h).
  void reserveFresh(size_t NewTasks, size_t NewEdges);
  /// The same room, not yet faulted in: the memory ranges to fault in go
  /// to \p ToFault, for another thread to fault in (prefault(), which
  /// leaves what is already written as it is) while this one fills them.
  using MemoryRange = std::pair<const void *, const void *>;
  void reserveRoom(size_t NewTasks, size_t NewEdges,
                   std::vector<MemoryRange> &ToFault);
  /// Faults \p Ranges in (FreshMemory.h's prefault()).
  static void faultIn(llvm::ArrayRef<MemoryRange> Ranges);
  /// Keeps \p Buf alive as long as the graph: string-table entries may point
  /// into it (StringTable::appendUnowned()).
  void holdBuffer(std::unique_ptr<llvm::MemoryBuffer> Buf) {
    Buffers.push_back(std::move(Buf));
  }

private:
  /// Readers build a graph in bulk, and from memory they map, through
  /// GraphBuilder (GraphBuilder.h): passes never need to.
  friend class GraphBuilder;

  uint32_t appendTasks(llvm::ArrayRef<Task> Ts, const TaskFieldBounds *Check);
  uint32_t adoptTasks(llvm::MutableArrayRef<Task> Ts,
                      std::unique_ptr<GrowableFileMapping> Room,
                      const TaskFieldBounds *Check);
  void addAttrSlot(const TaskAttrs &A) { Attrs.push_back(A); }
  void appendEdges(llvm::ArrayRef<Edge> Es) { Edges.append(Es); }
  void adoptEdges(llvm::MutableArrayRef<Edge> Es,
                  std::unique_ptr<GrowableFileMapping> Room) {
    assert(Edges.empty() && "adopting edges into a graph that has some");
    if (Room)
      Edges.borrow(Es, std::move(Room));
    else
      Edges.borrow(Es);
  }

private:
  void linkAtEnd(TaskId T, LaneId L);
  void linkAfter(TaskId T, TaskId Pos);
  void linkBefore(TaskId T, TaskId Pos);
  void unlink(TaskId T);
  TaskId appendSlot(const Task &T);
  /// Links tasks \p First.. (just added) at the ends of their lanes. If one
  /// names a lane that does not exist or fails \p Check, drops them all
  /// again and returns its index counted from \p First; NoId on success.
  uint32_t linkNewTasks(TaskId First, const TaskFieldBounds *Check);
  template <bool Checked>
  uint32_t linkNewTasks(TaskId First, const TaskFieldBounds &Check);
  /// Undoes linkNewTasks() of tasks [First, Linked) and drops tasks First..
  void unlinkNewTasks(TaskId First, TaskId Linked);
  /// Drops tasks First.. (not linked, or unlinked already).
  void dropNewTasks(TaskId First);
  /// Builds Prev and Next from the tasks' lanes in slot order, where they
  /// are pending (LinksPending); every change to a lane list calls it first.
  void buildLinks() const;
  void ensureLinks() const {
    if (LinksPending)
      buildLinks();
  }

  Metadata Meta;
  StringTable Strings;
  std::vector<Lane> Lanes;
  std::vector<TaskId> LaneHead, LaneTail;
  std::vector<Layer> Layers;
  std::vector<Iteration> Iterations;

  TaskStore Tasks;
  /// The lane links, built only when first needed while LinksPending: a
  /// graph whose lanes follow slot order (as read, or renumbered) has its
  /// list in each task's Lane field already, and building eight bytes a
  /// task of fresh memory was a fifth of dd-sim's run on a file. Mutable:
  /// building them changes nothing a caller can see (not thread-safe,
  /// like the rest of the graph).
  mutable std::vector<TaskId> Prev, Next;
  mutable bool LinksPending = false;
  std::vector<bool> Dead;
  size_t NumDead = 0;

  std::vector<TaskAttrs> Attrs;
  std::vector<TaskNote> Notes;
  EdgeStore Edges;
  std::vector<MemoryEvent> MemoryEvents;

  std::vector<std::unique_ptr<llvm::MemoryBuffer>> Buffers;
};

} // namespace dd

#endif // DAYDREAM_IR_GRAPH_H
