//===- Simulation.h - The simulated run as a cached analysis ----*- C++ -*-===//
//
// The graph simulated as the pipeline left it, with the default scheduling
// policy (recorded order) and every result (task times, lanes, iterations),
// computed once and shared by the printers that report on it: in
// `-passes='print<utilization>,print<critical-path>'` the second printer
// reads the first one's run. It depends on times as well as structure, so
// any pass that changes either invalidates it; a pass that changed nothing
// (PreservedAnalyses::all()) keeps it.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_ANALYSIS_SIMULATION_H
#define DAYDREAM_ANALYSIS_SIMULATION_H

#include "daydream/Pass/AnalysisManager.h"
#include "daydream/Sim/Simulator.h"

#include <string>

namespace dd {

class SimulationAnalysis {
public:
  struct Result {
    SimResult Run;
    /// Set if the graph could not be simulated (a cycle after a faulty
    /// pass); Run is then empty.
    std::string Error;
  };
  static AnalysisKey Key;
  static llvm::StringRef name() { return "simulation"; }
  Result run(Graph &G, AnalysisManager &AM);
};

/// The cached simulated run of \p G, computing it if there is none, or the
/// error that stopped it.
llvm::Expected<const SimResult *> simulatedRun(Graph &G, AnalysisManager &AM);

} // namespace dd

#endif // DAYDREAM_ANALYSIS_SIMULATION_H
