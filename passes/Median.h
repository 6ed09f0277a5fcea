//===- Median.h - The median of recorded durations --------------*- C++ -*-===//
//
// Passes that take a cost from the trace itself (a loader's period, a
// launch's CPU time) take the median of what it recorded: one slow outlier,
// such as a step's data loading, does not move it.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_PASSES_MEDIAN_H
#define DAYDREAM_PASSES_MEDIAN_H

#include <algorithm>
#include <cstdint>
#include <vector>

namespace dd {

/// The median of \p V (the upper one of an even count); 0 if empty.
inline int64_t median(std::vector<int64_t> V) {
  if (V.empty())
    return 0;
  auto Mid = V.begin() + V.size() / 2;
  std::nth_element(V.begin(), Mid, V.end());
  return *Mid;
}

} // namespace dd

#endif // DAYDREAM_PASSES_MEDIAN_H
