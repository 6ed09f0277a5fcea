//===- AnalysisManager.cpp - Cached analyses and their invalidation -------===//
//
// Invalidation walks the (few) cached results; the structure set key lives
// here so every library and plugin shares one address.
//
//===----------------------------------------------------------------------===//

#include "daydream/Pass/AnalysisManager.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>

using namespace dd;

AnalysisSetKey *StructureAnalyses::ID() {
  static AnalysisSetKey Key;
  return &Key;
}

void AnalysisManager::invalidate(const PreservedAnalyses &PA) {
  if (PA.areAllPreserved())
    return;
  llvm::SmallVector<AnalysisKey *, 8> Stale;
  for (auto &KV : Results)
    if (!PA.isPreserved(KV.first, KV.second.Set))
      Stale.push_back(KV.first);
  // Log in a stable order: by name.
  std::sort(Stale.begin(), Stale.end(), [&](AnalysisKey *A, AnalysisKey *B) {
    return Results.find(A)->second.Name < Results.find(B)->second.Name;
  });
  for (AnalysisKey *K : Stale) {
    if (DebugLog)
      *DebugLog << "Invalidating analysis: " << Results.find(K)->second.Name
                << "\n";
    Results.erase(K);
  }
}

void AnalysisManager::warning(const llvm::Twine &Message) {
  ++Warnings;
  if (!OnWarning)
    return;
  if (CurrentPass.empty())
    OnWarning(Message.str());
  else
    OnWarning((CurrentPass + ": " + Message).str());
}
