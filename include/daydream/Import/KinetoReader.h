//===- KinetoReader.h - PyTorch profiler trace front-end -------*- C++ -*-===//
//
// Reads a PyTorch profiler (Kineto) Chrome-trace JSON file, in the current
// category spellings (cpu_op, cuda_runtime, kernel, ...) and the 2021 ones
// (Operator, Runtime, Kernel, ...), into a TraceModel. It only extracts:
// CPU ranges, API calls, GPU activities, synchronization records, memory
// events, thread and stream names, and device metadata; the lowering decides
// what depends on what. ../shared/docs/trace-formats.md describes the format
// field by field.
//
// Events the model has no place for, and events lacking a field they need,
// are counted in TraceModel::Stats and passed over: real traces carry many of
// both, and one odd event must not cost the user the whole trace. Only
// malformed JSON, or JSON that is not a trace, is an error.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IMPORT_KINETOREADER_H
#define DAYDREAM_IMPORT_KINETOREADER_H

#include "daydream/Import/InputFile.h"
#include "daydream/Import/TraceModel.h"

#include "llvm/ADT/Optional.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace dd::import {

struct KinetoOptions {
  /// Keep python_function events (with_stack traces) as CPU ranges: Module
  /// for "nn.Module: ..." frames, Op for the rest. Off by default because
  /// they are most of the events of such traces and the lowering attributes
  /// work to cpu_op ranges anyway.
  bool KeepPythonFunctions = false;
  /// Traces of at least twice this many bytes are parsed this many bytes of
  /// events at a time, which is faster than one document and gives the same
  /// model (lib/Import/KinetoChunks.h); 0 parses every trace whole. Small
  /// enough that a piece and simdjson's index of it fit in a core's L2 cache
  /// together.
  size_t PieceBytes = size_t(1) << 18;
};

/// Called about every 16 MB of input with the bytes parsed so far and the
/// total (decompressed) size, and once at the end with both equal.
using ProgressFn =
    llvm::function_ref<void(uint64_t BytesDone, uint64_t BytesTotal)>;

/// Reads the Kineto trace in \p In. Times are integer nanoseconds: ts and
/// dur converted exactly from their decimal microseconds, plus
/// baseTimeNanoseconds when the trace has one. Errors name the input:
/// "<name>: malformed JSON at byte <offset>: <reason>", "<name>: empty
/// trace", "<name>: not a Kineto trace (no traceEvents array)", "<name>:
/// empty trace (no events)". \p In may still be arriving (InputFile::Ahead):
/// pieces are parsed as their bytes arrive; a bad gzip is then the
/// caller's error to report (InputFile::finishInflating()).
llvm::Expected<TraceModel> readKinetoTrace(const InputFile &In,
                                           const KinetoOptions &Opts = {},
                                           ProgressFn Progress = nullptr);

/// Converts a JSON number of microseconds, as written in the trace (e.g.
/// "1712195495505583.123"), to nanoseconds without going through a double,
/// which cannot hold such a value exactly. Digits below a nanosecond are
/// rounded half away from zero. None if \p Token is not a JSON number or the
/// result does not fit in 64 bits.
llvm::Optional<int64_t> parseMicrosAsNanos(llvm::StringRef Token);

/// Parses a JSON number token that must be an integer (a fraction of zeros,
/// as in "7.0", is accepted); None otherwise or if it does not fit.
llvm::Optional<int64_t> parseIntegerToken(llvm::StringRef Token);

} // namespace dd::import

#endif // DAYDREAM_IMPORT_KINETOREADER_H
