//===- Simulation.cpp - The simulated run as a cached analysis ------------===//
//
// A thin analysis wrapper over simulate(), in the order the cached
// topological-order analysis gives (orderForSimulation()).
//
//===----------------------------------------------------------------------===//

#include "daydream/Analysis/Simulation.h"
#include "daydream/Analysis/TopologicalOrder.h"

using namespace dd;

AnalysisKey SimulationAnalysis::Key;

SimulationAnalysis::Result SimulationAnalysis::run(Graph &G,
                                                   AnalysisManager &AM) {
  Result R;
  llvm::Expected<const CanonicalOrder *> Order = orderForSimulation(G, AM);
  if (!Order) {
    R.Error = llvm::toString(Order.takeError());
    return R;
  }
  SimOptions SO;
  if (*Order)
    SO.Order = &(*Order)->Order;
  if (llvm::Expected<SimResult> Run = simulate(G, SO))
    R.Run = std::move(*Run);
  else
    R.Error = llvm::toString(Run.takeError());
  return R;
}

llvm::Expected<const SimResult *> dd::simulatedRun(Graph &G,
                                                   AnalysisManager &AM) {
  const SimulationAnalysis::Result &R = AM.getResult<SimulationAnalysis>(G);
  if (!R.Error.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), R.Error);
  return &R.Run;
}
