//===- RunReaders.h - A training run's iterations from a file ---*- C++ -*-===//
//
// Three ways to describe a whole run, told apart by content, never by file
// name:
//
//  - CSV: a header line naming at least the columns iteration, seq_len and
//    time_us (in any order, more allowed), then one iteration a line. An
//    empty time_us cell means the iteration was not measured. Lines that
//    start with '#' are comments (a generated run says what made it there).
//  - JSON: [{"iteration": N, "seq_len": N, "time_us": X}, ...], or the same
//    array as {"iterations": [...]}; time_us may be null or absent.
//  - A PyTorch profiler (Kineto) trace of many iterations: each
//    ProfilerStep#N range is iteration N, its duration the iteration's time,
//    and its length one input dimension of the CPU ops inside it
//    (TraceLengthOptions).
//
// Every error names the input and what is wrong, with line and column for
// CSV: a missing column or cell, a value that is not a number or is
// negative, a duplicate iteration, an empty file, and a run of fewer than
// two iterations, which has nothing to choose from.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SEQPOINT_RUNREADERS_H
#define DAYDREAM_SEQPOINT_RUNREADERS_H

#include "daydream/SeqPoint/RunProfile.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <string>
#include <vector>

namespace dd::import {
struct InputFile;
} // namespace dd::import

namespace dd::seqpoint {

/// Which input dimension of a trace is an iteration's sequence length: the
/// dimension Dim of input Input of the first CPU op named Op in each
/// ProfilerStep (on the step's thread). With Op empty the reader picks the
/// first position, in op order, that every step has and whose value varies
/// across steps.
struct TraceLengthOptions {
  std::string Op;
  unsigned Input = 0;
  unsigned Dim = 0;
};

struct RunReadOptions {
  /// The CSV columns or JSON keys that hold an iteration's lengths.
  std::vector<std::string> LengthColumns = {"seq_len"};
  /// The CSV column or JSON key of its time, in microseconds.
  std::string TimeColumn = "time_us";
  TraceLengthOptions Trace;
};

/// Reads \p Path ("-" for stdin, gzip allowed) in whichever form it is.
llvm::Expected<RunProfile> readRunFile(llvm::StringRef Path,
                                       const RunReadOptions &Opts = {});

/// The readers of each form, for bytes already loaded. Errors start with
/// the input's name.
llvm::Expected<RunProfile> readRunCsv(const import::InputFile &In,
                                      const RunReadOptions &Opts);
llvm::Expected<RunProfile> readRunJson(const import::InputFile &In,
                                       const RunReadOptions &Opts);
llvm::Expected<RunProfile> readRunTrace(const import::InputFile &In,
                                        const TraceLengthOptions &Opts);

/// The checks every reader ends with: at least two iterations, each index
/// once. \p Where(I) says where the I-th iteration added was read
/// ("run.csv:4:1") for the message; without it the source's name is used. Sorts
/// \p Run by iteration.
llvm::Error
finishRun(RunProfile &Run,
          const std::function<std::string(size_t)> &Where = nullptr);

} // namespace dd::seqpoint

#endif // DAYDREAM_SEQPOINT_RUNREADERS_H
