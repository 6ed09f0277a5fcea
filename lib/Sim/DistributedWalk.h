//===- DistributedWalk.h - What the walks over processes share --*- C++ -*-===//
//
// Private to lib/Sim. A simulation split over processes (DistributedReplay.h)
// runs one of three walks: the sweep and the linear walk of
// DistributedReplay.cpp, which keep every task's times and gather them on
// process 0, and the windowed sweep of DistributedWindowedSweep.cpp, which
// keeps none and reduces the results instead. They share the lanes' owners,
// the edges that cross processes and how an end is sent.
//
// A time message's first value is its kind. {FromTask, T, end, ...}: task
// T's end, for every successor of T on the receiving process; a collective's
// barrier sends one to each process with members. {IntoTask, D, ...}: what
// several of the sender's tasks, each with no other successor elsewhere,
// push into task D; the members a process owns arrive at a barrier in one
// message, not one each. Each walk says what follows. Batching messages
// further would only hold back a process waiting for one.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_SIM_DISTRIBUTEDWALK_H
#define DAYDREAM_LIB_SIM_DISTRIBUTEDWALK_H

#include "daydream/IR/Graph.h"
#include "daydream/Sim/DistributedReplay.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace dd::sim {

enum MessageKind : int64_t { FromTask = 0, IntoTask = 1 };

inline uint64_t nanosecondsSince(std::chrono::steady_clock::time_point T) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now() - T)
      .count();
}

/// A run of consecutive task slots on lanes of one rank (-1: of no rank),
/// from Begin to the next run's.
struct RankRun {
  TaskId Begin;
  int32_t Rank;
};

/// assignLanesToProcesses(), and where \p Runs is given and every task is
/// live, the runs of \p G's slots in the same pass over the tasks. Where
/// \p ProcessOfRank is given (by rank), the ranks go to those processes
/// rather than to blocks of about equal tasks.
std::vector<uint32_t> assignLanes(const Graph &G, unsigned Processes,
                                  std::vector<RankRun> *Runs,
                                  llvm::ArrayRef<uint32_t> ProcessOfRank = {});

/// (task of ours, process) for each task whose end is sent to another
/// process that has successors of it, one message each; sorted, no repeats.
using RemoteList = std::vector<std::pair<TaskId, uint32_t>>;

/// The edges of a graph laid out as a file holds it (isSweepable()) that
/// cross processes, found in one pass over the source-sorted edge array
/// (SweepCrossings.cpp), and the trees the times that many processes share
/// go through: a collective's arrivals are combined on their way up to its
/// barrier's process, and the barrier's end passed down, each process
/// sending to at most two others, so that a collective of P processes
/// costs 2 log2 P messages in a row rather than P - 1 on one process.
struct SweepCrossings {
  /// A task of another process that some of ours, each with that one edge
  /// to another process, push into together: one message, once the last
  /// of them has ended and the messages of the processes below us in the
  /// task's tree (Children) are in, to Parent (the task's process, or the
  /// next one up the tree).
  struct Group {
    TaskId Into;
    uint32_t Parent;
    uint32_t Edges = 0; ///< ours into Into
    uint32_t Children = 0;
    /// What the group waits for before its message goes: its edges, then
    /// the messages from below.
    uint32_t awaited() const { return Edges + Children; }
  };
  std::vector<Group> Groups;
  /// Group by task, for the messages from below.
  llvm::DenseMap<TaskId, uint32_t> GroupOf;
  /// (task of ours, its edge's group, its edge a Sync one), by task.
  struct IntoEdge {
    TaskId From;
    uint32_t Group;
    bool Sync;
  };
  std::vector<IntoEdge> Into;
  /// Our tasks with edges to other processes' tasks but not into a group,
  /// each with the processes its end is sent to: the first below it in
  /// its tree.
  RemoteList Remote;
  /// Tasks of other processes whose end we pass down their tree, with the
  /// processes we pass it to.
  llvm::DenseMap<TaskId, llvm::SmallVector<uint32_t, 2>> Forward;
  /// (task of ours, edges into it from other processes), sorted by task.
  std::vector<std::pair<TaskId, uint32_t>> Waiting;
};

/// The owners, this process's share and the sending of ends.
class WalkBase {
public:
  /// \p ProcessOfRank: see assignLanes(). Given, \p G is a process's share
  /// of a split job (JobShare.h), whose ids are its own: messages then
  /// name a barrier by its place among the barriers, and a member's kernel
  /// by its barrier and rank, instead (wire()), and no other task may be
  /// named across processes (wireable()).
  WalkBase(const Graph &G, ProcessGroup &PG,
           llvm::ArrayRef<uint32_t> ProcessOfRank = {});

  ProcessShare &share() { return Share; }
  /// After the walk: every time message delivered.
  void finish() { PG.finishSends(); }

  /// How a process's results begin: its share and its earliest recorded
  /// start, in ShareValues values; ResultValuesAt is where the results'
  /// size goes, which a walk may fill in once it has packed them.
  static constexpr size_t ShareValues = 11, ResultValuesAt = 10;
  void appendShare(std::vector<int64_t> &Out) const {
    Out.insert(Out.end(), {static_cast<int64_t>(Share.Tasks),
                           static_cast<int64_t>(Share.Messages),
                           static_cast<int64_t>(Share.Waits),
                           static_cast<int64_t>(Share.SetupNs),
                           static_cast<int64_t>(Share.WalkNs),
                           static_cast<int64_t>(Share.WaitNs), MinStart,
                           static_cast<int64_t>(Share.Edges),
                           static_cast<int64_t>(Share.Read.WallNs),
                           static_cast<int64_t>(Share.Read.CpuNs),
                           static_cast<int64_t>(Share.ResultValues)});
  }
  /// Process 0: receives process \p P's results into \p In, which begin
  /// as appendShare() wrote them: records its share in \p Shares, if
  /// given, and lowers \p Origin to its earliest recorded start.
  void receiveResults(unsigned P, std::vector<int64_t> &In, int64_t &Origin,
                      std::vector<ProcessShare> *Shares) {
    In.clear();
    PG.receive(P, ProcessGroup::Channel::Results, In);
    Origin = std::min(Origin, In[6]);
    if (!Shares)
      return;
    ProcessShare &S = (*Shares)[P];
    S.Tasks = static_cast<uint64_t>(In[0]);
    S.Messages = static_cast<uint64_t>(In[1]);
    S.Waits = static_cast<uint64_t>(In[2]);
    S.SetupNs = static_cast<uint64_t>(In[3]);
    S.WalkNs = static_cast<uint64_t>(In[4]);
    S.WaitNs = static_cast<uint64_t>(In[5]);
    S.Edges = static_cast<uint64_t>(In[7]);
    S.Read = {static_cast<uint64_t>(In[8]), static_cast<uint64_t>(In[9])};
    S.ResultValues = static_cast<uint64_t>(In[ResultValuesAt]);
  }

  /// Whether every task that messages would name in \p X can be named on
  /// the wire: always, unless \p G is a share, where only a collective's
  /// barrier and its members' kernels can (a member's arrival goes into its
  /// barrier's group, a barrier's end down its tree or into the one
  /// member's kernel on another process: all that crosses between a split
  /// job's ranks; a pass's edge from rank to rank would not).
  bool wireable(const SweepCrossings &X) const;

protected:
  /// Fills WireOf and LocalOf for a share.
  void nameOnTheWire();
  bool owns(TaskId T) const { return Owner[G.task(T).Lane] == Me; }
  /// Task \p T as messages name it: its id, or in a share its name as a
  /// barrier or a member's kernel, the same on every process
  /// (nameOnTheWire()); and back.
  int64_t wire(TaskId T) const {
    return IsShare ? static_cast<int64_t>(WireOf.lookup(T)) : T;
  }
  TaskId local(int64_t W) const {
    return IsShare ? LocalOf.lookup(static_cast<uint64_t>(W))
                   : static_cast<TaskId>(W);
  }
  uint32_t ownerOf(TaskId T) const { return Owner[G.task(T).Lane]; }
  /// Sends \p Values, a FromTask message for task \p T, to each process in
  /// \p Remote's run for \p T, which starts at \p Next; advances \p Next
  /// past it.
  void sendEnd(const RemoteList &Remote, TaskId T,
               llvm::ArrayRef<int64_t> Values, size_t &Next) {
    for (; Next != Remote.size() && Remote[Next].first == T; ++Next) {
      PG.send(Remote[Next].second, ProcessGroup::Channel::Times, Values);
      ++Share.Messages;
    }
  }
  /// Receives time messages into Message, handing each to \p Apply, until
  /// \p Done() (one wait, if there is anything to wait for).
  template <typename DoneFn, typename ApplyFn>
  void receiveUntil(DoneFn Done, ApplyFn Apply) {
    if (Done())
      return;
    ++Share.Waits;
    const auto Began = std::chrono::steady_clock::now();
    do {
      Message.clear();
      PG.receive(ProcessGroup::AnyProcess, ProcessGroup::Channel::Times,
                 Message);
      Apply(llvm::ArrayRef<int64_t>(Message));
    } while (!Done());
    Share.WaitNs += nanosecondsSince(Began);
  }
  void noteVisited(const Task &Tk) {
    ++Share.Tasks;
    MinStart = std::min(MinStart, Tk.StartNs);
  }

  /// The first of task \p B's edges at or after \p E (edges sorted by
  /// source): where a walk that skipped to \p B resumes.
  static const Edge *edgesFrom(const Edge *E, const Edge *End, TaskId B) {
    return std::lower_bound(E, End, B,
                            [](const Edge &X, TaskId T) { return X.Src < T; });
  }
  /// Task \p Src's edges, of a graph whose edges are sorted by source.
  llvm::ArrayRef<Edge> edgesOutOf(TaskId Src) const {
    llvm::ArrayRef<Edge> All = G.edgeSlots();
    const Edge *First = edgesFrom(All.begin(), All.end(), Src);
    const Edge *Last = First;
    while (Last != All.end() && Last->Src == Src)
      ++Last;
    return llvm::makeArrayRef(First, Last);
  }
  /// Passes a FromTask message \p M for task \p Src on down its tree: to
  /// the processes below this one there, if any (X.Forward).
  void passDown(const SweepCrossings &X, TaskId Src,
                llvm::ArrayRef<int64_t> M) {
    auto It = X.Forward.find(Src);
    if (It == X.Forward.end())
      return;
    for (uint32_t To : It->second) {
      PG.send(To, ProcessGroup::Channel::Times, M);
      ++Share.Messages;
    }
  }

  const Graph &G;
  ProcessGroup &PG;
  const unsigned Me;
  std::vector<uint32_t> Owner;
  /// Of a graph with every task live, the ranges of slots [first, second)
  /// that may hold this process's tasks: its ranks' runs, and the runs of
  /// lanes of no rank, whose owners are per lane. Every task of ours is
  /// in one; a walk looks at no other.
  std::vector<std::pair<TaskId, TaskId>> OwnedRuns;
  std::vector<int64_t> Message;
  ProcessShare Share;
  /// Whether G is a share of a split job, and then wire() and local()'s
  /// tables (nameOnTheWire()).
  bool IsShare = false;
  llvm::DenseMap<TaskId, uint64_t> WireOf;
  llvm::DenseMap<uint64_t, TaskId> LocalOf;
  /// The earliest recorded start among this process's tasks.
  int64_t MinStart = std::numeric_limits<int64_t>::max();
};

/// Finds the crossings of \p G for process \p Me, given the lanes' owners.
SweepCrossings findSweepCrossings(const Graph &G,
                                  llvm::ArrayRef<uint32_t> Owner, unsigned Me);

/// The windowed sweep over processes (DistributedWindowedSweep.cpp), for a
/// graph whose sweepWindow() is \p Window: no array of times, the lanes and
/// iterations added up on each process and the critical path's totals
/// carried along the messages, all reduced on process 0. \p Began: when
/// the setup began (the checks that chose this walk are part of it).
llvm::Optional<SimResult>
simulateWindowedOverProcesses(const Graph &G, const SimOptions &Opts,
                              uint64_t Window, ProcessGroup &PG,
                              std::vector<ProcessShare> *Shares,
                              std::chrono::steady_clock::time_point Began);

/// The same over shares of a split job (DistributedReplay.h:
/// simulateShares()): None with \p Declined set where any process cannot.
llvm::Optional<SimResult> simulateWindowedOverShares(
    const Graph &Share, const SimOptions &Opts, ProcessGroup &PG,
    llvm::ArrayRef<uint32_t> ProcessOfRank, ShareReadTime Read,
    std::vector<ProcessShare> *Shares, bool &Declined,
    std::chrono::steady_clock::time_point Began);

} // namespace dd::sim

#endif // DAYDREAM_LIB_SIM_DISTRIBUTEDWALK_H
