//===- SimulationRun.h - dd-sim's simulation, as a library call -*- C++ -*-===//
//
// Everything dd-sim does between reading a graph and printing its report:
// the symmetry reduction of identical ranks, the rank copies, the
// simulation, the headline (critical path, utilization; simulated again
// keeping every task's times where the lanes' sums do not do) and the
// memory replay. dd-sim and the Python module (bindings/python) call it, so
// that both report the same figures.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TOOLS_SIMULATIONRUN_H
#define DAYDREAM_TOOLS_SIMULATIONRUN_H

#include "SimReport.h"
#include "daydream/Analysis/MemoryBreakdown.h"
#include "daydream/Analysis/Utilization.h"
#include "daydream/IR/CanonicalOrder.h"
#include "daydream/Pass/AnalysisManager.h"
#include "daydream/Sim/DistributedReplay.h"
#include "daydream/Sim/Simulator.h"
#include "daydream/Sim/Symmetry.h"

#include "llvm/ADT/Optional.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <string>
#include <vector>

namespace dd {

class Graph;
class SchedulingPolicy;

/// dd-sim -time-phases: the wall time of each step, so that the
/// simulation's own speed can be told from loading and reporting
/// (docs/Performance.md).
class PhaseTimes {
public:
  /// Ends step \p Step, with \p Note said of it after its time.
  void mark(llvm::StringRef Step, llvm::StringRef Note = "");
  /// \p Simulated: the tasks the simulate step replayed.
  void print(llvm::raw_ostream &OS, llvm::StringRef Tool,
             size_t Simulated) const;

private:
  std::chrono::steady_clock::time_point Last = std::chrono::steady_clock::now();
  struct Step {
    std::string Name, Note;
    double Seconds;
  };
  std::vector<Step> Steps;
};

struct SimulationRequest {
  /// The input as messages name it.
  llvm::StringRef InputName;
  /// Null: recorded order.
  SchedulingPolicy *Policy = nullptr;
  bool Headline = true;
  /// Simulate one rank of each class of identical ones.
  bool Symmetry = true;
  /// Keep every task's times (pictures, a predicted trace): every rank is
  /// then simulated.
  bool KeepTimes = false;
  /// Fill SimulationRun::Stats (dd-sim -stats).
  bool Stats = false;
  /// Marked at each step, when given.
  PhaseTimes *Times = nullptr;
  /// More than one process (mpirun), over which the simulation is split
  /// (DistributedReplay.h); every process calls runSimulation(). Null for
  /// one process.
  ProcessGroup *Processes = nullptr;
  /// With Processes, where the graph is this process's share of a split
  /// job (Import/JobShare.h): the process of each rank, by rank. Only the
  /// report is made (no times kept), and the caller has checked that the
  /// job has no identical ranks, so that the symmetry reduction does not
  /// apply, and that each memory event is on its own rank's device, so
  /// that each process replays its own ranks' (ShareMemory.h).
  llvm::ArrayRef<uint32_t> ProcessOfRank;
  /// With ProcessOfRank: how long this process took to read its share.
  ShareReadTime ShareRead;
  /// With ProcessOfRank: whether any process's share has memory events
  /// (then every process takes part in the memory replay, ShareMemory.h).
  bool SharesHaveMemory = false;
};

/// What runSimulation() made; the report reads it (reportInfo()). Not
/// copied or moved: SO points into it.
struct SimulationRun {
  SymmetryReduction Symmetry;
  SimOptions SO;
  llvm::Optional<UtilizationObserver> Utilization;
  llvm::Optional<CanonicalOrder> Order;
  llvm::Optional<SimResult> R;
  llvm::Optional<SimHeadline> Headline;
  /// The memory replayed in simulated time; none without memory events.
  llvm::Optional<MemoryBreakdown> Memory;
  std::vector<AnalysisManager::Statistic> Stats;
  /// Split over processes: whether this process took part in the
  /// agreement before the replay (a process failing before it must still
  /// take part, with false), and whether another process failed there, in
  /// which case this one stops without a result or an error of its own.
  bool Agreed = false;
  bool OtherFailed = false;
  /// Split over processes: what each process did (-stats, -time-phases).
  std::vector<ProcessShare> Shares;
  /// Over shares of a split job: every process agreed that some share
  /// could not be walked so (DistributedReplay.h: simulateShares()), and
  /// nothing was simulated; or, on process 0 alone, the headline needs
  /// every task's times after all (a collective on a GPU's only stream),
  /// which only the whole job gives. The caller reads the whole job then.
  bool SharesDeclined = false;
  bool HeadlineNeedsWhole = false;
  /// Over shares of a split job, on process 0: the whole job's tasks and
  /// edges, which the report counts.
  llvm::Optional<JobCounts> Job;

  SimulationRun() = default;
  SimulationRun(const SimulationRun &) = delete;
  SimulationRun &operator=(const SimulationRun &) = delete;

  SimReportInfo reportInfo(llvm::StringRef InputName,
                           llvm::StringRef PolicyName) const;
};

/// Simulates \p G as dd-sim does into \p Run; \p G may be reduced by
/// symmetry or have its rank copies expanded. Errors name the input. Split
/// over processes, only process 0 gets Run.R and the rest of the results;
/// the others return once their share is sent.
llvm::Error runSimulation(Graph &G, const SimulationRequest &Req,
                          SimulationRun &Run);

} // namespace dd

#endif // DAYDREAM_TOOLS_SIMULATIONRUN_H
