//===- OtherRun.cpp - SeqPoints carried over to another recording ---------===//
//
// Both profiles are sorted by iteration, so "the same run" is checked
// entry by entry: same iteration numbers in the same order, same lengths.
//
//===----------------------------------------------------------------------===//

#include "daydream/SeqPoint/OtherRun.h"
#include "Error.h"

using namespace dd::seqpoint;

llvm::Expected<OtherRunProjection>
dd::seqpoint::projectOtherRun(const RunProfile &Run,
                              llvm::ArrayRef<SeqPointBin> Bins,
                              const Projection &Base, const RunProfile &Other) {
  if (Other.size() != Run.size())
    return makeError(Other.source() + ": " + llvm::Twine(Other.size()) +
                     " iterations where " + Run.source() + " has " +
                     llvm::Twine(Run.size()) +
                     ": not a recording of the same run");
  if (Other.numLengths() != Run.numLengths())
    return makeError(Other.source() + ": " + llvm::Twine(Other.numLengths()) +
                     " lengths an iteration where " + Run.source() + " has " +
                     llvm::Twine(Run.numLengths()));
  for (size_t I = 0; I != Run.size(); ++I) {
    if (Other.iteration(I) != Run.iteration(I))
      return makeError(Other.source() + ": iteration " +
                       llvm::Twine(Other.iteration(I)) + " where " +
                       Run.source() + " has " + llvm::Twine(Run.iteration(I)) +
                       ": not a recording of the same run");
    if (Other.lengths(I) != Run.lengths(I))
      return makeError(Other.source() + ": iteration " +
                       llvm::Twine(Run.iteration(I)) +
                       " has other lengths than in " + Run.source() +
                       ": not a recording of the same run");
  }
  OtherRunProjection P;
  P.Source = Other.source().str();
  for (const SeqPointBin &B : Bins) {
    if (!Other.hasTime(B.Rep))
      return makeError(Other.source() + ": SeqPoint iteration " +
                       llvm::Twine(Other.iteration(B.Rep)) +
                       " has no measured time");
    P.ProjectedUs += double(B.Weight) * Other.timeUs(B.Rep);
  }
  Projection Measured = project(Other, Bins);
  P.MeasuredUs = Measured.MeasuredUs;
  if (Base.ProjectedUs > 0 && P.ProjectedUs > 0)
    P.ProjectedSpeedup = Base.ProjectedUs / P.ProjectedUs;
  if (Base.MeasuredUs > 0 && P.MeasuredUs > 0)
    P.MeasuredSpeedup = Base.MeasuredUs / P.MeasuredUs;
  return std::move(P);
}
