//===- Window.h - Which iterations dd-trace records -------------*- C++ -*-===//
//
// Long training jobs are traced only where asked (dd-trace -window 10:20):
// the tracer counts the starts of the NVTX ranges that mark an iteration and
// records from the start of iteration FIRST to the start of iteration
// LAST+1. This file holds the counting, free of CUPTI calls so that it is
// tested on its own; the tracer turns its answers into enabling and
// disabling CUPTI activity kinds.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_TRACE_INJECTION_WINDOW_H
#define DAYDREAM_LIB_TRACE_INJECTION_WINDOW_H

#include <cstdint>
#include <string>

namespace dd::trace {

/// Whether \p Name reads as the name of one training iteration:
/// "ProfilerStep#N" (the PyTorch profiler's), "step N", "step_N", "step#N",
/// "iteration N" and the like. The rule: one of the words ProfilerStep, step,
/// iteration (any case), then at most one ' ', '_' or '#', then a digit.
bool isIterationName(const char *Name);

/// Whether a range named \p Name starts an iteration: it begins with
/// \p Prefix (DDTRACE_WINDOW_RANGE), or, for an empty prefix, it passes
/// isIterationName.
bool startsIteration(const char *Name, const std::string &Prefix);

/// Parses "FIRST:LAST" (0-based, inclusive, FIRST <= LAST). On failure
/// returns false with a message in \p Err.
bool parseWindow(const char *Text, uint32_t &First, uint32_t &Last,
                 std::string &Err);

/// Counts iterations and says when the window opens and closes. Not
/// thread-safe: the tracer serializes calls.
class IterationWindow {
public:
  enum class Step {
    None,  ///< nothing changes
    Open,  ///< iteration FIRST starts: start recording
    Close, ///< iteration LAST+1 starts: stop recording the CPU side
    Drain, ///< iteration LAST+2 starts: stop recording the GPU side too
  };

  IterationWindow(uint32_t First, uint32_t Last, std::string Prefix)
      : First(First), Last(Last), Prefix(std::move(Prefix)) {}

  /// Called with the name of every NVTX range that starts.
  Step onRangeStart(const char *Name);
  /// Iterations started so far.
  uint64_t iterations() const { return Seen; }
  /// Whether a range is still worth looking at (the window has not drained).
  bool done() const { return Seen > uint64_t(Last) + 2; }
  uint32_t first() const { return First; }
  uint32_t last() const { return Last; }
  const std::string &prefix() const { return Prefix; }

private:
  uint32_t First;
  uint32_t Last;
  std::string Prefix;
  uint64_t Seen = 0;
};

} // namespace dd::trace

#endif // DAYDREAM_LIB_TRACE_INJECTION_WINDOW_H
