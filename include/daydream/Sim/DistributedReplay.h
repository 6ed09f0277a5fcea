//===- DistributedReplay.h - One simulation over many processes -*- C++ -*-===//
//
// `mpirun -np P dd-sim job.ddir`: the job's ranks are shared out among P
// processes, each replays its ranks' tasks by the formulas of Simulator.h,
// and the only times that cross processes are those of the collectives:
// the arrivals of a process's ranks at a collective go, in one message, up
// a binary tree over the processes with members to the process that owns
// the collective's barrier, each process folding in those from below it,
// and the barrier's end comes back down the tree (the comm and sync edges
// MatchCollectives.h make); no process sends more than three messages a
// collective, and a collective of P processes is 2 log2 P messages deep
// (the walk over a caller's order, below, sends each end straight to every
// process that needs it). That is
// conservative synchronization, as in the parallel discrete-event
// simulators (Chandy and Misra; SST, ROSS): a process waits for a time
// only when its next task needs it, and never computes one it would have
// to take back.
//
// Every process walks the same topological order (for a graph as read from
// a file, slot order, pushing ends along the source-sorted edges as the
// sweep engines do; otherwise the canonical order, pulling from an
// incoming adjacency as the linear engine does), skipping the tasks it
// does not own, and sends a time as soon as it is computed. That cannot
// deadlock: the first task in the order whose time is not known has every
// predecessor's time computed and sent (a message that pushes several into
// it goes once the last of them, all its predecessors, is computed), so
// its owner can go on. A time on its way through a tree is passed on by
// a process inside whatever wait it is in, and one that has finished its
// walk keeps receiving until what it passes up has gone; a process a
// barrier's end goes down to has a task that waits for it.
//
// Process 0 then has exactly the SimResult simulate() gives, for the same
// report, critical path and utilization, byte for byte: the formulas are
// the same and every time is an integer. Where the caller reads no task's
// times and the graph is one the windowed sweep takes (its edges reach a
// small window ahead, as a job's do), no process keeps any: each adds up
// its tasks' lanes and iterations, the critical path's totals (which the
// messages carry with the times) and what an observer sees, and process 0
// adds those up. Otherwise process 0 gathers every task's times.
//
// Who owns what (assignLanesToProcesses()): the ranks, in rank order, in
// contiguous blocks of about equal live tasks; a lane of no rank (a process
// group's barriers, a pass's network lane) goes with the lowest rank that
// leads into it, so the world's barriers are on process 0 and a group
// within one process's ranks needs no message; other lanes of no rank (a
// single-rank trace's) go to process 0. A lane's tasks are always on one
// process, so the lane order needs no message.
//
// What it is not (docs/Distributed.md): every process reads the whole
// graph and finds its tasks in it (the sweeps then walk only its ranks'
// runs of slots; the walk over a caller's order walks it all), so the
// processes divide the replay's arithmetic, its sums and its waits, not
// the reading nor the graph's memory; by-priority lanes, whose order is
// decided as time advances, are refused.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SIM_DISTRIBUTEDREPLAY_H
#define DAYDREAM_SIM_DISTRIBUTEDREPLAY_H

#include "daydream/Sim/ProcessGroup.h"
#include "daydream/Sim/Simulator.h"

#include "llvm/ADT/Optional.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace dd {

class Graph;

/// The process that simulates each lane of \p G, indexed by LaneId, out of
/// \p Processes: the ranks in increasing order, cut into contiguous blocks
/// of about equal numbers of live tasks; a lane of rank -1 goes with the
/// lowest rank whose tasks have edges into it, and to process 0 if none.
std::vector<uint32_t> assignLanesToProcesses(const Graph &G,
                                             unsigned Processes);

/// How long a process took to read its share of a split job (JobShare.h):
/// wall and CPU time. Where processes share cores, as under mpirun on one
/// machine, the CPU time is what a process would take on a core of its own.
struct ShareReadTime {
  uint64_t WallNs = 0, CpuNs = 0;
};

/// What one process did (dd-sim -stats on process 0 lists every one, and
/// -time-phases the times, for docs/Distributed.md's projection).
struct ProcessShare {
  uint64_t Tasks = 0;    ///< tasks it simulated
  uint64_t Edges = 0;    ///< edges out of them (the windowed sweep counts)
  uint64_t Messages = 0; ///< time messages it sent
  uint64_t Waits = 0;    ///< times it waited for another process
  /// Values (8 bytes each) of results: sent, by a process other than 0
  /// (its sums, and what its observer merged up its tree, or every task's
  /// times); received, by process 0.
  uint64_t ResultValues = 0;
  /// Wall times: finding its tasks and their crossings (every process
  /// looks at the whole graph), then walking the order, of which waiting
  /// for other processes' times; on process 0, collecting the results
  /// (every task's times, or the other processes' sums).
  uint64_t SetupNs = 0, WalkNs = 0, WaitNs = 0, GatherNs = 0;
  /// Of a share of a split job, reading it (simulateShares()).
  ShareReadTime Read;
};

/// simulate(G, Opts), every process of \p PG calling it with the same
/// graph and options (but each its own Opts.Observer). Process 0 gets the
/// result simulate() would give, and, where \p Shares is given, every
/// process's share; the others get None once their part is sent to it.
/// Engine: DistributedWindowed where Opts.TaskTimes is false and the
/// windowed sweep takes \p G (no task's times then, and Opts.CriticalPath
/// and Observer taken up as by the windowed sweep); otherwise
/// DistributedSweep or DistributedLinear, with every task's times (and
/// Opts.CriticalPath and Observer not taken up). Fails, on every process
/// alike, where the graph has a by-priority lane or simulate() would fail
/// for its order.
llvm::Expected<llvm::Optional<SimResult>>
simulateDistributed(const Graph &G, const SimOptions &Opts, ProcessGroup &PG,
                    std::vector<ProcessShare> *Shares = nullptr);

/// The same where each process holds its share of a split job: \p Share,
/// its ranks whole and the others as their collective tables
/// (Import/JobShare.h), with \p ProcessOfRank the process of each rank.
/// Only the windowed sweep does (no task's times kept, Opts.TaskTimes
/// false), as it sums on each process what the report shows; the messages
/// name a barrier by its lane and place there, which every share has
/// alike. Every process calls it; they first agree whether each can (the
/// sweep's window, every crossing a barrier, no lane by priority), and
/// where one cannot, none does and \p Declined is set. The sums of lanes
/// and iterations add up only if every share numbers them as the whole
/// job does, which JobShare.h ensures. \p Read: how long this process
/// took to read \p Share, which process 0 gets in \p Shares.
llvm::Expected<llvm::Optional<SimResult>>
simulateShares(const Graph &Share, const SimOptions &Opts, ProcessGroup &PG,
               llvm::ArrayRef<uint32_t> ProcessOfRank, ShareReadTime Read,
               std::vector<ProcessShare> *Shares, bool &Declined);

} // namespace dd

#endif // DAYDREAM_SIM_DISTRIBUTEDREPLAY_H
