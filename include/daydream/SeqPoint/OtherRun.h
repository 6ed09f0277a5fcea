//===- OtherRun.h - SeqPoints carried over to another recording -*- C++ -*-===//
//
// SeqPoints are chosen once, on one recording of a run, and then stand for
// the run under other hardware or settings: that is what makes them worth
// having (the paper projects speedups of architectural changes this way).
// This checks it where a second full recording of the same run exists: the
// same iterations with the same lengths, timed under the other settings.
// The SeqPoints' times in it, with the first run's weights, project its
// total and the speedup between the two, next to what was measured.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SEQPOINT_OTHERRUN_H
#define DAYDREAM_SEQPOINT_OTHERRUN_H

#include "daydream/SeqPoint/SeqPoint.h"

namespace dd::seqpoint {

struct OtherRunProjection {
  std::string Source;
  /// The other run's total: projected from the SeqPoints, and measured (-1
  /// unless every iteration has a time).
  double ProjectedUs = 0, MeasuredUs = -1;
  /// First run / other run, projected (from both projections) and measured
  /// (from both measured totals; 0 if either is unknown).
  double ProjectedSpeedup = 0, MeasuredSpeedup = 0;
};

/// Fails, naming \p Other, if it is not a recording of the same run (other
/// iterations or other lengths), or if a SeqPoint has no time in it.
/// \p Base is \p Run's own projection from \p Bins.
llvm::Expected<OtherRunProjection>
projectOtherRun(const RunProfile &Run, llvm::ArrayRef<SeqPointBin> Bins,
                const Projection &Base, const RunProfile &Other);

} // namespace dd::seqpoint

#endif // DAYDREAM_SEQPOINT_OTHERRUN_H
