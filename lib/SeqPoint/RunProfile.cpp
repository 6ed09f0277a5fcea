//===- RunProfile.cpp - Every iteration of a training run, flat -----------===//
//
// Storage and the one derived quantity, the key an iteration is binned by.
// Keys saturate instead of wrapping, so that an absurd product of lengths
// still sorts last rather than turning negative.
//
//===----------------------------------------------------------------------===//

#include "daydream/SeqPoint/RunProfile.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <numeric>

using namespace dd::seqpoint;

RunProfile::RunProfile(std::string Source, std::vector<std::string> LengthNames)
    : Source(std::move(Source)), LengthNames(std::move(LengthNames)) {}

void RunProfile::add(int64_t Iteration, llvm::ArrayRef<int64_t> L,
                     double TimeUs) {
  Iterations.push_back(Iteration);
  Lengths.insert(Lengths.end(), L.begin(), L.end());
  TimesUs.push_back(TimeUs < 0 ? -1 : TimeUs);
}

void RunProfile::sortByIteration() {
  if (std::is_sorted(Iterations.begin(), Iterations.end()))
    return;
  std::vector<size_t> Order(size());
  std::iota(Order.begin(), Order.end(), 0);
  std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    return Iterations[A] < Iterations[B];
  });
  std::vector<int64_t> NewIterations, NewLengths;
  std::vector<double> NewTimes;
  for (size_t I : Order) {
    NewIterations.push_back(Iterations[I]);
    llvm::ArrayRef<int64_t> L = lengths(I);
    NewLengths.insert(NewLengths.end(), L.begin(), L.end());
    NewTimes.push_back(TimesUs[I]);
  }
  Iterations = std::move(NewIterations);
  Lengths = std::move(NewLengths);
  TimesUs = std::move(NewTimes);
}

std::string RunProfile::describeLengths(LengthCombine C) const {
  std::string S;
  for (const std::string &Name : LengthNames) {
    if (!S.empty())
      S += C == LengthCombine::Sum ? "+" : "*";
    S += Name;
  }
  return S;
}

size_t RunProfile::numTimed() const {
  return std::count_if(TimesUs.begin(), TimesUs.end(),
                       [](double T) { return T >= 0; });
}

std::vector<int64_t> RunProfile::keys(LengthCombine C) const {
  std::vector<int64_t> Keys(size());
  for (size_t I = 0; I != size(); ++I) {
    uint64_t K = C == LengthCombine::Sum ? 0 : 1;
    for (int64_t L : lengths(I))
      K = C == LengthCombine::Sum ? llvm::SaturatingAdd(K, uint64_t(L))
                                  : llvm::SaturatingMultiply(K, uint64_t(L));
    Keys[I] = int64_t(std::min<uint64_t>(K, INT64_MAX));
  }
  return Keys;
}
