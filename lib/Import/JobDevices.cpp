//===- JobDevices.cpp - One index per GPU across a job's ranks ------------===//

#include "JobDevices.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace dd;
using namespace dd::import;

int32_t RankDevices::operator()(int32_t Recorded) const {
  auto It = llvm::lower_bound(Map, std::make_pair(Recorded, INT32_MIN));
  return It != Map.end() && It->first == Recorded ? It->second : Recorded;
}

llvm::SmallVector<std::pair<int32_t, int32_t>, 2>
RankDevices::renumbered() const {
  llvm::SmallVector<std::pair<int32_t, int32_t>, 2> Changed;
  for (const auto &[From, To] : Map)
    if (From != To)
      Changed.push_back({From, To});
  return Changed;
}

RankDevices JobDevices::number(int32_t Rank, llvm::ArrayRef<Lane> Lanes,
                               llvm::ArrayRef<Device> Declared) {
  llvm::SmallVector<int32_t, 4> Recorded;
  for (const Lane &L : Lanes)
    if (L.Device >= 0)
      Recorded.push_back(L.Device);
  llvm::sort(Recorded);
  Recorded.erase(std::unique(Recorded.begin(), Recorded.end()), Recorded.end());
  // Decide which keep their index before giving any a new one, so that a
  // rank's own devices never push each other along.
  RankDevices D;
  for (int32_t R : Recorded)
    if (!Used.count(R))
      D.Map.push_back({R, R});
  auto Taken = [&](int32_t I) {
    return Used.count(I) || Named.count(I) ||
           llvm::any_of(D.Map, [&](auto &P) { return P.second == I; }) ||
           llvm::any_of(Declared,
                        [&](const Device &E) { return E.Index == I; });
  };
  for (int32_t R : Recorded) {
    if (!Used.count(R))
      continue;
    while (Used.count(LowestFree) || Named.count(LowestFree))
      ++LowestFree;
    int32_t I = LowestFree;
    while (Taken(I))
      ++I;
    D.Map.push_back({R, I});
    if (Renumbered++ == 0)
      First = llvm::formatv("rank {0}'s device {1} is the job's device {2}",
                            Rank, R, I)
                  .str();
  }
  llvm::sort(D.Map);
  for (const auto &[From, To] : D.Map)
    Used.insert(To);
  for (const Device &E : Declared)
    Named.insert(D(E.Index));
  return D;
}
