//===- SeqPoint.h - The iterations that stand for a run ---------*- C++ -*-===//
//
// SeqPoint (Pati et al., ISPASS 2020): the iterations of a sequence model
// differ in cost because their inputs differ in length, and the length,
// known for every iteration without profiling, decides the cost. So the
// run's iterations are grouped by length, one iteration of each group is
// profiled, and the run's time is projected as the sum over groups of the
// group's size times its representative's time.
//
// The variant implemented, step by step (docs/SeqPoint.md):
//  1. Characterize: each iteration's key is its length (several lengths
//     combined by RunProfile::keys).
//  2. Bin: the sorted distinct keys are split into K contiguous bins of
//     (as nearly as possible) equal numbers of distinct keys: bin j holds
//     distinct keys [floor(j*U/K), floor((j+1)*U/K)) of U.
//  3. Represent: a bin's SeqPoint is the iteration whose key is the median
//     key of the bin's iterations (the lower median); ties go to the
//     smallest iteration index, and an iteration with a measured time is
//     preferred to one without, then the nearest key.
//  4. Weight: the number of the run's iterations in the bin.
//  5. Validate and grow: starting from K = 1, the profiled iterations' (the
//     ones with a measured time) total is projected from the SeqPoints
//     (each bin's profiled count times its SeqPoint's time) and compared
//     with their measured total; K grows until the relative error is below
//     the threshold or the cap is reached, in which case the K with the
//     smallest error is kept.
// Everything is deterministic: no sampling, ties by iteration index.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SEQPOINT_SEQPOINT_H
#define DAYDREAM_SEQPOINT_SEQPOINT_H

#include "daydream/SeqPoint/RunProfile.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace dd::seqpoint {

struct SelectOptions {
  /// K grows until |projection error| on the profiled iterations is below
  /// this fraction.
  double Threshold = 0.005;
  /// K grows to this at most.
  unsigned MaxSeqPoints = 50;
  /// If not 0: exactly this many SeqPoints, without validation (for runs
  /// with no measured time, whose SeqPoints are yet to be profiled).
  unsigned Fixed = 0;
};

/// One bin and the iteration that stands for it.
struct SeqPointBin {
  /// The representative: an index into the RunProfile (not its iteration
  /// number), and its key.
  size_t Rep = 0;
  int64_t Key = 0;
  /// The bin's iterations: how many (the weight), how many of them have a
  /// measured time, and their smallest and largest key.
  uint64_t Weight = 0;
  uint64_t Timed = 0;
  int64_t MinKey = 0, MaxKey = 0;
};

struct Selection {
  /// In key order.
  std::vector<SeqPointBin> Bins;
  /// (projected - measured) / measured over the profiled iterations; 0
  /// when none has a time (Fixed without validation).
  double ProfiledError = 0;
  /// That error for each K tried, K = 1, 2, ...
  std::vector<double> ErrorByK;
  /// Whether the threshold was met (always true for Fixed).
  bool Converged = true;
  size_t DistinctKeys = 0;
};

/// The K bins of step 2 with their SeqPoints (steps 3 and 4). \p Keys has
/// one entry per iteration of \p Run; 1 <= K <= the number of distinct keys.
std::vector<SeqPointBin> binRun(const RunProfile &Run,
                                llvm::ArrayRef<int64_t> Keys, unsigned K);

/// Steps 1 to 5. Fails if Fixed exceeds the distinct keys, or if no
/// iteration has a measured time and Fixed is 0 (nothing to validate on).
llvm::Expected<Selection> selectSeqPoints(const RunProfile &Run,
                                          llvm::ArrayRef<int64_t> Keys,
                                          const SelectOptions &Opts);

/// The run's time as projected from SeqPoints and as measured.
struct Projection {
  /// Sum of weight times the SeqPoint's time; -1 if a SeqPoint has none.
  double ProjectedUs = -1;
  /// Sum of all iterations' times; -1 unless every iteration has one.
  double MeasuredUs = -1;
  /// The same restricted to the profiled iterations (what validation saw).
  size_t Profiled = 0;
  double ProfiledProjectedUs = 0, ProfiledMeasuredUs = 0;
};

Projection project(const RunProfile &Run, llvm::ArrayRef<SeqPointBin> Bins);

/// (projected - measured) / measured of the profiled iterations.
double profiledError(const Projection &P);

} // namespace dd::seqpoint

#endif // DAYDREAM_SEQPOINT_SEQPOINT_H
