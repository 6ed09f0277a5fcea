//===- Primitives.h - Graph transformation primitives -----------*- C++ -*-===//
//
// The small set of rewrites that passes are built from (Daydream, section 4):
// scale or set task durations; insert a task on a lane with its edges; move
// a task to another lane; merge a group of tasks into one; remove tasks
// while keeping the ordering constraints that passed through them.
// Selection is in TaskSelector.h, kernel classes in KernelClass.h; the
// scheduling of ByPriority lanes is dd-sim's SchedulingPolicy hook.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TRANSFORMS_PRIMITIVES_H
#define DAYDREAM_TRANSFORMS_PRIMITIVES_H

#include "daydream/IR/Types.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <vector>

namespace dd {

class Graph;

/// Multiplies the duration of each task by \p Factor (rounded to the nearest
/// nanosecond, at least 0).
void scaleDurations(Graph &G, llvm::ArrayRef<TaskId> Tasks, double Factor);

/// Sets the duration of each task to \p DurationNs.
void setDurations(Graph &G, llvm::ArrayRef<TaskId> Tasks, int64_t DurationNs);

/// Removes \p Tasks, keeping every ordering constraint that ran through them:
/// each surviving predecessor of a removed task (its edges' sources and its
/// lane predecessor) is ordered before each surviving successor (its edges'
/// destinations and its lane successor), through chains of removed tasks too.
/// A bypass edge takes the kind of the edge that entered the successor, or,
/// when the successor only followed on the lane, the kind of the edge that
/// left the predecessor; predecessor and successor already adjacent on one
/// lane need no edge. A removed task's gap moves to its lane successor, since
/// the untraced time before it still elapses. Cost: linear in the graph plus
/// the number of bypass edges.
void removeTasks(Graph &G, llvm::ArrayRef<TaskId> Tasks);

/// The lane called \p Name of kind \p Kind, added (on \p Device, with
/// \p Order) if the graph has none. For passes that put new work on a
/// communication channel or a new stream.
LaneId findOrAddLane(Graph &G, LaneKind Kind, llvm::StringRef Name,
                     int32_t Device = -1, LaneOrder Order = LaneOrder::InOrder);

/// Inserts \p T on lane \p Lane right after \p After (at the lane's end if
/// NoId; \p After must be on \p Lane), with an edge of kind \p Kind from
/// each of \p Preds and to each of \p Succs. Returns its id. O(1) plus the
/// edges.
TaskId insertTask(Graph &G, const Task &T, LaneId Lane, TaskId After,
                  llvm::ArrayRef<TaskId> Preds, llvm::ArrayRef<TaskId> Succs,
                  EdgeKind Kind = EdgeKind::ProgramOrder);

/// Moves \p T to lane \p Lane, right after \p After (at the end if NoId).
/// Its edges stay; its old lane neighbours become adjacent.
void moveTask(Graph &G, TaskId T, LaneId Lane, TaskId After = NoId);

/// A group of tasks to merge into its first one, with the merged duration.
struct MergeGroup {
  std::vector<TaskId> Tasks;
  int64_t DurationNs = 0;
};

/// Merges each group into its first task, which gets the group's duration
/// and takes over the edges of the others (redirected to it; edges inside a
/// group vanish) and their lane order (a member on another lane than the
/// first waits for its lane predecessor and holds back its lane successor
/// through edges). The others are removed, gaps and all: a fused kernel has
/// nothing between its parts. Members on the first task's lane must be
/// consecutive on it, and no path may leave a group and come back into it;
/// fusion passes choose groups that way. One pass over the edges for all
/// groups.
void mergeTasks(Graph &G, llvm::ArrayRef<MergeGroup> Groups);

/// Merge groups stored flat, all members in one array: fusion passes merge
/// hundreds of thousands of groups of two or three tasks, and a vector per
/// group would cost more than the merge itself.
class MergeGroupList {
public:
  /// Appends a group of the tasks \p Tasks (the first one survives).
  void add(llvm::ArrayRef<TaskId> Tasks, int64_t DurationNs) {
    Members.insert(Members.end(), Tasks.begin(), Tasks.end());
    Begin.push_back(uint32_t(Members.size()));
    DurationsNs.push_back(DurationNs);
  }
  size_t size() const { return DurationsNs.size(); }
  bool empty() const { return DurationsNs.empty(); }
  llvm::ArrayRef<TaskId> tasks(size_t I) const {
    return llvm::ArrayRef<TaskId>(Members).slice(Begin[I],
                                                 Begin[I + 1] - Begin[I]);
  }
  int64_t durationNs(size_t I) const { return DurationsNs[I]; }
  /// The members of every group, group after group.
  llvm::ArrayRef<TaskId> allTasks() const { return Members; }

private:
  std::vector<TaskId> Members;
  std::vector<uint32_t> Begin = {0};
  std::vector<int64_t> DurationsNs;
};

/// mergeTasks() on groups stored flat; the same merge.
void mergeTasks(Graph &G, const MergeGroupList &Groups);

/// Consecutive tasks on one lane, viewed where the caller keeps them, and
/// the duration of what they become.
struct LaneRun {
  llvm::ArrayRef<TaskId> Tasks;
  int64_t DurationNs = 0;
};

/// Collapses each run into its first task (its head), for CPU work that
/// stops being run call by call (a CUDA graph's replay): the head gets the
/// run's duration, the others go
/// with their gaps, the edges that left them leave from the head, and the
/// edges that entered them from outside the run enter the task after the
/// run on the lane (and go with the run if it was the lane's last).
/// Unlike removeTasks(), a predecessor of the run is not ordered before the
/// run's own successors (the GPU work it launched): they now wait for the
/// head alone. Each edge made stands for a path of the graph before, so
/// no cycle is made. One pass over the edges, in place: no edge is added.
void collapseRuns(Graph &G, llvm::ArrayRef<LaneRun> Runs);

} // namespace dd

#endif // DAYDREAM_TRANSFORMS_PRIMITIVES_H
