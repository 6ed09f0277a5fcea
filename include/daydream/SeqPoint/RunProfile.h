//===- RunProfile.h - Every iteration of a training run, flat ---*- C++ -*-===//
//
// What SeqPoint knows of a whole training run: for each iteration its index,
// the sequence length or lengths that decide its cost (a second length for
// an encoder-decoder, a batch size for variable batches) and, where it was
// measured, its time. Lengths are cheap to know for every iteration (a pass
// over the data loader); times are what profiling costs, so a run may have
// them for all iterations, some, or none.
//
// Flat arrays, one entry per iteration, sorted by iteration index (run
// order), because the readers' runs have tens of thousands of iterations
// and every step of the selection is a scan or a sort over them.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SEQPOINT_RUNPROFILE_H
#define DAYDREAM_SEQPOINT_RUNPROFILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dd::seqpoint {

/// How an iteration's lengths make the one number it is characterized by.
enum class LengthCombine {
  /// Their sum: the tokens of a source and a target sequence.
  Sum,
  /// Their product: batch size times sequence length.
  Product,
};

class RunProfile {
public:
  /// \p LengthNames names the lengths each iteration has, in order.
  RunProfile(std::string Source, std::vector<std::string> LengthNames);

  /// Appends an iteration; \p TimeUs < 0 means not measured.
  void add(int64_t Iteration, llvm::ArrayRef<int64_t> Lengths, double TimeUs);
  /// Sorts the iterations by index (stable: readers check duplicates).
  void sortByIteration();

  /// The input it came from, as named in errors and reports.
  llvm::StringRef source() const { return Source; }
  /// What the lengths are: column names, or the trace position used.
  llvm::ArrayRef<std::string> lengthNames() const { return LengthNames; }
  /// "seq_len", or "seq_len+seq_len2" for several.
  std::string describeLengths(LengthCombine C) const;

  size_t size() const { return Iterations.size(); }
  size_t numLengths() const { return LengthNames.size(); }
  int64_t iteration(size_t I) const { return Iterations[I]; }
  llvm::ArrayRef<int64_t> lengths(size_t I) const {
    return llvm::makeArrayRef(Lengths).slice(I * numLengths(), numLengths());
  }
  bool hasTime(size_t I) const { return TimesUs[I] >= 0; }
  /// Microseconds; -1 when not measured.
  double timeUs(size_t I) const { return TimesUs[I]; }
  /// How many iterations have a measured time.
  size_t numTimed() const;

  /// Each iteration's lengths combined into one number (saturating).
  std::vector<int64_t> keys(LengthCombine C) const;

private:
  std::string Source;
  std::vector<std::string> LengthNames;
  std::vector<int64_t> Iterations;
  /// numLengths() per iteration.
  std::vector<int64_t> Lengths;
  std::vector<double> TimesUs;
};

} // namespace dd::seqpoint

#endif // DAYDREAM_SEQPOINT_RUNPROFILE_H
