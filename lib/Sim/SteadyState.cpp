//===- SteadyState.cpp - The one figure a what-if is read by --------------===//

#include "daydream/Sim/SteadyState.h"

#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <vector>

using namespace dd;

const char *const dd::SteadyStateRule =
    "median over complete steps (recorded and predicted; a job's step is its "
    "slowest rank's)";

namespace {

int64_t median(std::vector<int64_t> &V) {
  size_t Mid = V.size() / 2;
  std::nth_element(V.begin(), V.begin() + Mid, V.end());
  if (V.size() % 2)
    return V[Mid];
  int64_t Upper = V[Mid];
  int64_t Lower = *std::max_element(V.begin(), V.begin() + Mid);
  return Lower + (Upper - Lower) / 2;
}

} // namespace

SteadyState dd::steadyState(llvm::ArrayRef<IterationResult> Iterations) {
  // Slowest rank of each step name, in first-seen order.
  llvm::StringMap<size_t> Index;
  std::vector<int64_t> Baseline, Predicted;
  for (const IterationResult &I : Iterations) {
    if (I.MeasuredNs <= 0 || I.PredictedNs <= 0)
      continue;
    auto [It, New] = I.Name.empty()
                         ? std::make_pair(Index.end(), true)
                         : Index.try_emplace(I.Name, Baseline.size());
    if (New) {
      Baseline.push_back(I.MeasuredNs);
      Predicted.push_back(I.PredictedNs);
      continue;
    }
    Baseline[It->second] = std::max(Baseline[It->second], I.MeasuredNs);
    Predicted[It->second] = std::max(Predicted[It->second], I.PredictedNs);
  }
  SteadyState S;
  S.Steps = Baseline.size();
  if (S.Steps) {
    S.BaselineNs = median(Baseline);
    S.PredictedNs = median(Predicted);
  }
  return S;
}
