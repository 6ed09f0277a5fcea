//===- Baselines.cpp - What SeqPoint is measured against ------------------===//
//
// The draws use std::mt19937_64, whose output the standard fixes, and a
// partial Fisher-Yates shuffle written here rather than a std::
// distribution, whose results differ between standard libraries: a seed
// must give the same figures on every machine, since tests pin them.
//
//===----------------------------------------------------------------------===//

#include "daydream/SeqPoint/Baselines.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace dd::seqpoint;

static std::vector<double> absolute(const std::vector<double> &Errors) {
  std::vector<double> A;
  A.reserve(Errors.size());
  for (double E : Errors)
    A.push_back(std::fabs(E));
  llvm::sort(A);
  return A;
}

double BaselineComparison::randomMedianAbsError() const {
  std::vector<double> A = absolute(RandomErrors);
  if (A.empty())
    return 0;
  size_t M = A.size() / 2;
  return A.size() % 2 ? A[M] : (A[M - 1] + A[M]) / 2;
}

double BaselineComparison::randomWorstAbsError() const {
  std::vector<double> A = absolute(RandomErrors);
  return A.empty() ? 0 : A.back();
}

llvm::Optional<BaselineComparison>
dd::seqpoint::compareBaselines(const RunProfile &Run, size_t N, unsigned Draws,
                               uint64_t Seed) {
  std::vector<double> Times;
  for (size_t I = 0; I != Run.size(); ++I)
    if (Run.hasTime(I))
      Times.push_back(Run.timeUs(I));
  if (N == 0 || Times.size() < N)
    return llvm::None;
  double Measured = 0;
  for (double T : Times)
    Measured += T;
  if (Measured == 0)
    return llvm::None;
  double Scale = double(Times.size()) / double(N);
  auto Error = [&](double SampleSum) {
    return (SampleSum * Scale - Measured) / Measured;
  };

  BaselineComparison C;
  C.N = N;
  C.Profiled = Times.size();
  C.Seed = Seed;
  double First = 0;
  for (size_t I = 0; I != N; ++I)
    First += Times[I];
  C.FirstNError = Error(First);

  std::mt19937_64 Gen(Seed);
  std::vector<size_t> Pool(Times.size());
  for (unsigned D = 0; D != Draws; ++D) {
    for (size_t I = 0; I != Pool.size(); ++I)
      Pool[I] = I;
    double Sum = 0;
    for (size_t I = 0; I != N; ++I) {
      size_t J = I + size_t(Gen() % (Pool.size() - I));
      std::swap(Pool[I], Pool[J]);
      Sum += Times[Pool[I]];
    }
    C.RandomErrors.push_back(Error(Sum));
  }
  return C;
}
