//===- AnalysisManager.cpp - Cached analyses and their invalidation -------===//
//
// Invalidation walks the (few) cached results; the structure set key lives
// here so every library and plugin shares one address.
//
//===----------------------------------------------------------------------===//

#include "daydream/Pass/AnalysisManager.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <string>

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

void AnalysisManager::count(llvm::StringRef Name, uint64_t N) {
  if (N == 0)
    return;
  std::string Key = CurrentPass + '\0' + Name.str();
  auto [It, New] = StatIndex.try_emplace(Key, Stats.size());
  if (New)
    Stats.push_back(Statistic{CurrentPass, Name.str(), 0});
  Stats[It->second].Value += N;
}

void dd::printStatistics(llvm::raw_ostream &OS,
                         const std::vector<AnalysisManager::Statistic> &Stats) {
  if (Stats.empty())
    return;
  size_t ValueWidth = 0, PassWidth = 0;
  for (const AnalysisManager::Statistic &S : Stats) {
    ValueWidth = std::max(ValueWidth, std::to_string(S.Value).size());
    PassWidth = std::max(PassWidth, S.Pass.size());
  }
  OS << "===" << std::string(73, '-') << "===\n"
     << std::string(26, ' ') << "... Statistics Collected ...\n"
     << "===" << std::string(73, '-') << "===\n\n";
  for (const AnalysisManager::Statistic &S : Stats)
    OS << llvm::format("%*llu %-*s - %s\n", int(ValueWidth),
                       (unsigned long long)S.Value, int(PassWidth),
                       S.Pass.c_str(), S.Name.c_str());
  OS << "\n";
}
