//===- SimulationRun.cpp - dd-sim's simulation, as a library call ---------===//

#include "SimulationRun.h"

#include "ShareMemory.h"

#include "daydream/IR/Graph.h"
#include "daydream/IR/RankCopies.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Format.h"

#include <cassert>

using namespace dd;

void PhaseTimes::mark(llvm::StringRef Step, llvm::StringRef Note) {
  auto Now = std::chrono::steady_clock::now();
  Steps.push_back({Step.str(), Note.str(),
                   std::chrono::duration<double>(Now - Last).count()});
  Last = Now;
}

void PhaseTimes::print(llvm::raw_ostream &OS, llvm::StringRef Tool,
                       size_t Simulated) const {
  OS << Tool << ": time:";
  const char *Sep = " ";
  for (const auto &[Step, Note, Seconds] : Steps) {
    OS << Sep << Step << llvm::format(" %.3f s", Seconds);
    if (Step == "simulate" && Seconds > 0)
      OS << llvm::format(" (%zu tasks, %.1f M tasks/s)", Simulated,
                         Simulated / Seconds / 1e6);
    if (!Note.empty())
      OS << " (" << Note << ")";
    Sep = ", ";
  }
  OS << "\n";
}

namespace {

/// -stats: what the simulation of \p G (as simulated: after the symmetry
/// reduction) did, as LLVM-style counters; \p Job: the whole job's counts
/// where \p G is a share of it.
std::vector<AnalysisManager::Statistic>
simulationStatistics(const Graph &G, const SimResult &R,
                     const SymmetryReduction &Symmetry, const JobCounts *Job) {
  std::vector<AnalysisManager::Statistic> Stats = {
      {"simulate", "tasks simulated", Job ? Job->Tasks : G.numTasks()},
      {"simulate", "edges followed", Job ? Job->Edges : G.countLiveEdges()},
      {"simulate", "lanes", G.numLanes()},
      {"simulate", "iterations", G.iterations().size()},
      {"simulate", ("runs of the " + engineName(R.Engine) + " engine").str(),
       1}};
  if (Symmetry.used()) {
    Stats.push_back({"symmetry", "ranks in the job", Symmetry.Ranks});
    Stats.push_back({"symmetry",
                     "ranks simulated (one a class of identical ones)",
                     Symmetry.Classes});
    Stats.push_back({"symmetry", "tasks left out", Symmetry.RemovedTasks});
  }
  return Stats;
}

/// -time-phases' note on a simulation split over processes: each one's
/// reading of its share of a split job (wall and CPU time), if it read one,
/// setup, walk and, of the walk, waits, and how long process 0 took to
/// collect the results (every task's times, or the others' sums).
std::string describeShares(llvm::ArrayRef<ProcessShare> Shares, bool OfShares) {
  if (Shares.empty())
    return "";
  std::string Note;
  llvm::raw_string_ostream OS(Note);
  OS << Shares.size() << " processes, " << (OfShares ? "read/cpu/" : "")
     << "setup/walk/waits";
  for (size_t P = 0; P != Shares.size(); ++P) {
    OS << (P ? ", " : ": ");
    if (OfShares)
      OS << llvm::format("%.3f/%.3f/", Shares[P].Read.WallNs / 1e9,
                         Shares[P].Read.CpuNs / 1e9);
    OS << llvm::format("%.3f/%.3f/%.3f s", Shares[P].SetupNs / 1e9,
                       Shares[P].WalkNs / 1e9, Shares[P].WaitNs / 1e9);
  }
  OS << llvm::format("; results %.3f s", Shares[0].GatherNs / 1e9);
  return OS.str();
}

llvm::Error named(llvm::StringRef InputName, llvm::Error E) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 InputName + ": " +
                                     llvm::toString(std::move(E)));
}

} // namespace

SimReportInfo SimulationRun::reportInfo(llvm::StringRef InputName,
                                        llvm::StringRef PolicyName) const {
  return SimReportInfo{InputName,
                       PolicyName,
                       Headline ? &*Headline : nullptr,
                       Symmetry.used() ? &Symmetry : nullptr,
                       Memory ? &*Memory : nullptr,
                       Job ? &*Job : nullptr};
}

llvm::Error dd::runSimulation(Graph &G, const SimulationRequest &Req,
                              SimulationRun &Run) {
  PhaseTimes Unused;
  PhaseTimes &Times = Req.Times ? *Req.Times : Unused;
  // A share of a split job: the caller found no identical ranks in the
  // job, and every memory event on its own rank's device.
  const bool OfShares = !Req.ProcessOfRank.empty();
  // The memory replay needs every rank simulated and its events' tasks'
  // times, since the events move with their tasks (MemoryBreakdown.h): all
  // times kept, as pictures need them, or in shares those of each
  // process's own events (ShareMemory.h). A graph without memory events
  // pays nothing for it.
  const bool Memory =
      OfShares ? Req.SharesHaveMemory : !G.memoryEvents().empty();
  const bool KeepTimes = Req.KeepTimes || (Memory && !OfShares);
  assert((!OfShares || (Req.Processes && !KeepTimes)) && "shares: the report");
  SymmetryReduction &Symmetry = Run.Symmetry;
  if (Req.Symmetry && !KeepTimes && !OfShares)
    Symmetry = reduceBySymmetry(G);
  // Stored copies the reduction did not stand in for (it was off, or a
  // by-priority lane ruled it out) are simulated as the other ranks.
  if (!Symmetry.StoredCopies)
    if (llvm::Error E = expandRankCopies(G))
      return named(Req.InputName, std::move(E));
  Times.mark("symmetry");
  SimOptions &SO = Run.SO;
  SO.Policy = Req.Policy;
  // The report alone reads no task's times, and the pictures do. The
  // headline's are measured during the simulation where it can, and from
  // the times kept otherwise (Simulator.h), whether the simulation is split
  // over processes or not.
  const bool Split = Req.Processes;
  SO.TaskTimes = KeepTimes;
  if (Req.Headline && !SO.TaskTimes)
    requestHeadline(G, SO, Run.Utilization);
  // The headline's critical path may need the canonical order; the
  // simulation then uses the same one instead of computing its own. A graph
  // as read from a file needs none (slot order is topological, and the
  // simulator and the critical path sweep it), so the order is computed
  // here only for one the symmetry reduction left tasks dead in; otherwise
  // whichever needs one computes it.
  if (Req.Headline && G.numTasks() != G.numTaskSlots()) {
    auto O = computeCanonicalOrder(G);
    if (!O)
      return named(Req.InputName, O.takeError());
    Run.Order = std::move(*O);
    SO.Order = &Run.Order->Order;
    Times.mark("order");
  }
  llvm::Optional<ShareMemoryTimes> MemoryTimes;
  llvm::Optional<MemoryBreakdown> SharesMemory;
  if (OfShares && Memory) {
    MemoryTimes.emplace(G, SO.Observer);
    SO.Observer = &*MemoryTimes;
  }
  llvm::Expected<SimResult> R = SimResult();
  if (Split) {
    // From here on every process waits for the others' times, so each must
    // know that all got this far.
    Run.Agreed = true;
    if (!llvm::all_of(Req.Processes->agree(true),
                      [](uint8_t Ok) { return Ok; })) {
      Run.OtherFailed = true;
      return llvm::Error::success();
    }
    auto Mine =
        OfShares
            ? simulateShares(G, SO, *Req.Processes, Req.ProcessOfRank,
                             Req.ShareRead, &Run.Shares, Run.SharesDeclined)
            : simulateDistributed(G, SO, *Req.Processes, &Run.Shares);
    if (MemoryTimes)
      SO.Observer = MemoryTimes->inner(); // not kept past this call
    if (!Mine)
      return named(Req.InputName, Mine.takeError());
    if (!*Mine) {
      // The others' part of the memory replay (process 0's comes below),
      // where the walk was not declined.
      if (MemoryTimes && !Run.SharesDeclined)
        gatherShareMemory(G, *MemoryTimes, nullptr, *Req.Processes);
      return llvm::Error::success();
    }
    *R = std::move(**Mine);
    if (OfShares) {
      JobCounts C;
      for (const ProcessShare &S : Run.Shares) {
        C.Tasks += S.Tasks;
        C.Edges += S.Edges;
      }
      Run.Job = C;
    }
  } else {
    R = simulate(G, SO);
    if (!R)
      return named(Req.InputName, R.takeError());
  }
  Times.mark("simulate", describeShares(Run.Shares, OfShares));
  if (MemoryTimes) {
    SharesMemory = gatherShareMemory(G, *MemoryTimes, &*R, *Req.Processes);
    Times.mark("memory", "each process its own ranks' devices");
  }
  if (Req.Stats) {
    Run.Stats =
        simulationStatistics(G, *R, Symmetry, Run.Job ? &*Run.Job : nullptr);
    for (size_t P = 0; P != Run.Shares.size(); ++P) {
      const std::string Of = " by process " + std::to_string(P);
      Run.Stats.push_back(
          {"distributed", "tasks simulated" + Of, Run.Shares[P].Tasks});
      Run.Stats.push_back(
          {"distributed", "time messages sent" + Of, Run.Shares[P].Messages});
      Run.Stats.push_back({"distributed", "waits for another process" + Of,
                           Run.Shares[P].Waits});
      Run.Stats.push_back({"distributed",
                           P == 0 ? "values of results received by process 0"
                                  : "values of results sent" + Of,
                           Run.Shares[P].ResultValues});
    }
  }

  // From the results as simulate() gave them, which the measures taken on
  // the way go with; expandHeadline() then adds the ranks left out.
  if (Req.Headline) {
    const CanonicalOrder *Order = Run.Order ? &*Run.Order : nullptr;
    auto H = computeHeadline(G, *R, Order,
                             Run.Utilization ? &*Run.Utilization : nullptr);
    const bool Again = H && !*H;
    if (Again && OfShares) {
      // Process 0's share has its own ranks' tasks only.
      Run.HeadlineNeedsWhole = true;
      return llvm::Error::success();
    }
    if (Again) {
      // The lanes' sums did not do (a collective ran on a GPU's only
      // stream) and no times were kept: once more, keeping them.
      SO.TaskTimes = true;
      SO.Observer = nullptr;
      R = simulate(G, SO);
      if (!R)
        return named(Req.InputName, R.takeError());
      if (Req.Stats)
        Run.Stats.push_back(
            {"simulate",
             ("runs of the " + engineName(R->Engine) +
              " engine (again, keeping the times for the headline)")
                 .str(),
             1});
      H = computeHeadline(G, *R, Order);
    }
    if (!H)
      return named(Req.InputName, H.takeError());
    assert(*H && "the task times are kept");
    Run.Headline = std::move(**H);
    expandHeadline(Symmetry, G, *Run.Headline);
    Times.mark("headline",
               (llvm::Twine(Again ? "simulated again; " : "") +
                "critical path from " + Run.Headline->PathFrom +
                ", utilization from " + Run.Headline->UtilizationFrom)
                   .str());
  }
  expandResults(Symmetry, *R);
  Run.R = std::move(*R);
  if (SharesMemory) {
    Run.Memory = std::move(SharesMemory);
  } else if (Memory) {
    Run.Memory = computeMemoryBreakdown(G, &*Run.R);
    Times.mark("memory");
  }
  return llvm::Error::success();
}
