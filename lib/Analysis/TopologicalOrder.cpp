//===- TopologicalOrder.cpp - Cached canonical task order -----------------===//
//
// A thin analysis wrapper over computeCanonicalOrder().
//
//===----------------------------------------------------------------------===//

#include "daydream/Analysis/TopologicalOrder.h"

using namespace dd;

AnalysisKey TopologicalOrderAnalysis::Key;

TopologicalOrderAnalysis::Result
TopologicalOrderAnalysis::run(Graph &G, AnalysisManager &) {
  Result R;
  if (auto Order = computeCanonicalOrder(G))
    R.Order = std::move(*Order);
  else
    R.Error = llvm::toString(Order.takeError());
  return R;
}

llvm::Expected<const CanonicalOrder *>
dd::orderForSimulation(Graph &G, AnalysisManager &AM) {
  auto *Topo = AM.getCachedResult<TopologicalOrderAnalysis>();
  if (!Topo && !isInCanonicalOrder(G))
    Topo = &AM.getResult<TopologicalOrderAnalysis>(G);
  if (!Topo)
    return nullptr;
  if (!Topo->Error.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), Topo->Error);
  return &Topo->Order;
}
