//===- GraphBuilder.h - Building a graph in bulk, for readers --*- C++ -*-===//
//
// What the IR readers and the importers need beyond the pass-facing Graph
// API: appending tasks by the million with one bounds check, viewing the
// tasks and edges of a mapped file in place (TaskStore.h), and attribute
// records as they are stored. A pass adds tasks one at a time with
// Graph::addTask() and never needs this header.
//
//   GraphBuilder B(G);
//   if (uint32_t Bad = B.appendTasks(Tasks, &Bounds); Bad != NoId) ...
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IR_GRAPHBUILDER_H
#define DAYDREAM_IR_GRAPHBUILDER_H

#include "daydream/IR/Graph.h"
#include "daydream/IR/TaskFieldBounds.h"

namespace dd {

class GraphBuilder {
public:
  explicit GraphBuilder(Graph &G) : G(G) {}

  /// Appends \p Ts, each at the end of its lane, as addTask() one by one
  /// would, in one pass and without per-task growth checks. If a task names
  /// a lane that does not exist, or has a field outside \p Check where it is
  /// given, nothing is appended and its index in \p Ts is returned; NoId on
  /// success.
  uint32_t appendTasks(llvm::ArrayRef<Task> Ts,
                       const TaskFieldBounds *Check = nullptr) {
    return G.appendTasks(Ts, Check);
  }
  /// The same for a graph without tasks yet, but the graph keeps using \p Ts
  /// where they are (TaskStore.h) until it first adds a task: they must
  /// outlive it (Graph::holdBuffer()) and be writable memory no one else
  /// sees. Where \p Ts lie at the start of \p Room, which the graph then
  /// keeps, tasks added go after them in place while it has room.
  uint32_t adoptTasks(llvm::MutableArrayRef<Task> Ts,
                      const TaskFieldBounds *Check = nullptr,
                      std::unique_ptr<GrowableFileMapping> Room = nullptr) {
    return G.adoptTasks(Ts, std::move(Room), Check);
  }
  /// Appends an attribute record as stored (tasks refer to it by index).
  void addAttrSlot(const TaskAttrs &A) { G.addAttrSlot(A); }
  /// Appends \p Es, as Graph::addEdge() one by one would.
  void appendEdges(llvm::ArrayRef<Edge> Es) { G.appendEdges(Es); }
  /// The same for a graph without edges yet, but the graph keeps using
  /// \p Es where they are until it first adds an edge past their room, as
  /// adoptTasks() does.
  void adoptEdges(llvm::MutableArrayRef<Edge> Es,
                  std::unique_ptr<GrowableFileMapping> Room = nullptr) {
    G.adoptEdges(Es, std::move(Room));
  }

private:
  Graph &G;
};

} // namespace dd

#endif // DAYDREAM_IR_GRAPHBUILDER_H
