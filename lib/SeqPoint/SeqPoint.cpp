//===- SeqPoint.cpp - Representative iterations of a sequence model -------===//
//
// The iterations are sorted by (key, index) once; every bin is then a
// contiguous range of that order, so trying K bins costs one scan, and
// growing K up to the cap stays linear in the run for each K tried.
//
//===----------------------------------------------------------------------===//

#include "daydream/SeqPoint/SeqPoint.h"
#include "Error.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <numeric>
#include <tuple>

using namespace dd::seqpoint;

namespace {

/// Iteration indices sorted by (key, index), and where each distinct key
/// starts in that order.
struct KeyOrder {
  std::vector<size_t> Order;
  std::vector<size_t> DistinctStart;

  explicit KeyOrder(llvm::ArrayRef<int64_t> Keys) : Order(Keys.size()) {
    std::iota(Order.begin(), Order.end(), 0);
    llvm::stable_sort(Order,
                      [&](size_t A, size_t B) { return Keys[A] < Keys[B]; });
    for (size_t I = 0; I != Order.size(); ++I)
      if (I == 0 || Keys[Order[I]] != Keys[Order[I - 1]])
        DistinctStart.push_back(I);
    DistinctStart.push_back(Order.size());
  }
  size_t distinct() const { return DistinctStart.size() - 1; }
};

std::vector<SeqPointBin> binWith(const RunProfile &Run,
                                 llvm::ArrayRef<int64_t> Keys,
                                 const KeyOrder &KO, unsigned K) {
  size_t U = KO.distinct();
  std::vector<SeqPointBin> Bins;
  for (unsigned J = 0; J != K; ++J) {
    size_t Begin = KO.DistinctStart[J * U / K];
    size_t End = KO.DistinctStart[(J + 1) * U / K];
    SeqPointBin B;
    B.Weight = End - Begin;
    B.MinKey = Keys[KO.Order[Begin]];
    B.MaxKey = Keys[KO.Order[End - 1]];
    int64_t Median = Keys[KO.Order[Begin + (B.Weight - 1) / 2]];
    // Untimed last, then the nearest key, the smaller key, the smaller index.
    auto Rank = [&](size_t I) {
      return std::make_tuple(!Run.hasTime(I), std::llabs(Keys[I] - Median),
                             Keys[I], I);
    };
    B.Rep = KO.Order[Begin];
    for (size_t P = Begin; P != End; ++P) {
      size_t I = KO.Order[P];
      B.Timed += Run.hasTime(I);
      if (Rank(I) < Rank(B.Rep))
        B.Rep = I;
    }
    B.Key = Keys[B.Rep];
    Bins.push_back(B);
  }
  return Bins;
}

} // namespace

std::vector<SeqPointBin> dd::seqpoint::binRun(const RunProfile &Run,
                                              llvm::ArrayRef<int64_t> Keys,
                                              unsigned K) {
  return binWith(Run, Keys, KeyOrder(Keys), K);
}

Projection dd::seqpoint::project(const RunProfile &Run,
                                 llvm::ArrayRef<SeqPointBin> Bins) {
  Projection P;
  P.ProjectedUs = 0;
  for (const SeqPointBin &B : Bins) {
    if (!Run.hasTime(B.Rep)) {
      P.ProjectedUs = -1;
      break;
    }
    P.ProjectedUs += double(B.Weight) * Run.timeUs(B.Rep);
  }
  for (const SeqPointBin &B : Bins)
    if (B.Timed)
      P.ProfiledProjectedUs += double(B.Timed) * Run.timeUs(B.Rep);
  for (size_t I = 0; I != Run.size(); ++I)
    if (Run.hasTime(I)) {
      ++P.Profiled;
      P.ProfiledMeasuredUs += Run.timeUs(I);
    }
  if (P.Profiled == Run.size())
    P.MeasuredUs = P.ProfiledMeasuredUs;
  return P;
}

double dd::seqpoint::profiledError(const Projection &P) {
  if (P.Profiled == 0 || P.ProfiledMeasuredUs == 0)
    return 0;
  return (P.ProfiledProjectedUs - P.ProfiledMeasuredUs) / P.ProfiledMeasuredUs;
}

llvm::Expected<Selection>
dd::seqpoint::selectSeqPoints(const RunProfile &Run,
                              llvm::ArrayRef<int64_t> Keys,
                              const SelectOptions &Opts) {
  KeyOrder KO(Keys);
  Selection S;
  S.DistinctKeys = KO.distinct();
  if (Opts.Fixed) {
    if (Opts.Fixed > S.DistinctKeys)
      return makeError(Run.source() + ": " + llvm::Twine(Opts.Fixed) +
                       " SeqPoints asked for, but the run has only " +
                       llvm::Twine(S.DistinctKeys) + " distinct lengths");
    S.Bins = binWith(Run, Keys, KO, Opts.Fixed);
    S.ProfiledError = profiledError(project(Run, S.Bins));
    return std::move(S);
  }
  if (Run.numTimed() == 0)
    return makeError(Run.source() +
                     ": no iteration has a measured time to validate "
                     "SeqPoints against; give -seqpoints=N to choose N "
                     "without validation");
  unsigned MaxK = unsigned(
      std::min<size_t>(std::max(1u, Opts.MaxSeqPoints), S.DistinctKeys));
  double Best = INFINITY;
  for (unsigned K = 1; K <= MaxK; ++K) {
    std::vector<SeqPointBin> Bins = binWith(Run, Keys, KO, K);
    double Err = profiledError(project(Run, Bins));
    S.ErrorByK.push_back(Err);
    if (std::fabs(Err) < Best) {
      Best = std::fabs(Err);
      S.Bins = std::move(Bins);
      S.ProfiledError = Err;
    }
    if (std::fabs(Err) < Opts.Threshold)
      return std::move(S);
  }
  S.Converged = false;
  return std::move(S);
}
