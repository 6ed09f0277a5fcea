//===- Baselines.h - What SeqPoint is measured against ----------*- C++ -*-===//
//
// The usual way to profile a training run is to time a few iterations and
// scale them up. SeqPoint is worth its trouble only if it beats that with
// the same number of profiled iterations, so every report compares it with
// the two usual choices of N = (number of SeqPoints) iterations:
//  - first-N: the run's first N profiled iterations, their mean time times
//    the number of profiled iterations (what "profile the first steps"
//    gives);
//  - random-N: N profiled iterations drawn without replacement, scaled the
//    same way, over many draws from one seeded generator (a uniform sample
//    is unbiased, so what matters is how far one draw can be off: the
//    median and the worst |error| of the draws).
// All errors are of the profiled iterations' total, the one SeqPoint was
// validated on, so the three are measured on the same ground.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SEQPOINT_BASELINES_H
#define DAYDREAM_SEQPOINT_BASELINES_H

#include "daydream/SeqPoint/RunProfile.h"

#include "llvm/ADT/Optional.h"

#include <cstdint>
#include <vector>

namespace dd::seqpoint {

struct BaselineComparison {
  /// Iterations each method profiles, and the profiled iterations' count.
  size_t N = 0, Profiled = 0;
  /// (projected - measured) / measured of the first N.
  double FirstNError = 0;
  /// Each random draw's error, in draw order.
  std::vector<double> RandomErrors;
  uint64_t Seed = 0;
  /// Median and largest |error| of the random draws.
  double randomMedianAbsError() const;
  double randomWorstAbsError() const;
};

/// None if fewer than \p N iterations of \p Run are profiled, or N is 0.
llvm::Optional<BaselineComparison> compareBaselines(const RunProfile &Run,
                                                    size_t N, unsigned Draws,
                                                    uint64_t Seed);

} // namespace dd::seqpoint

#endif // DAYDREAM_SEQPOINT_BASELINES_H
