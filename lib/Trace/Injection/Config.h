//===- Config.h - What the dd-trace launcher asks for -----------*- C++ -*-===//
//
// The launcher configures libddtrace.so through environment variables
// (RecordFile.h, namespace env), read once when CUDA initializes the
// library. They are gathered and checked here, before CUPTI is touched, so
// that a mistake is reported as such and the program runs untraced instead
// of half-traced.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_TRACE_INJECTION_CONFIG_H
#define DAYDREAM_LIB_TRACE_INJECTION_CONFIG_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace dd::trace {

struct TraceConfig {
  /// Where <pid>.ddrec is written (DDTRACE_OUTPUT_DIR).
  std::string OutputDir;
  /// The libcupti to load (DDTRACE_CUPTI_LIBRARY).
  std::string CuptiLibrary = "libcupti.so";
  /// Cap on CUPTI buffer memory (DDTRACE_BUFFER_MB, default 256 MiB).
  uint64_t BufferPoolBytes = uint64_t(256) << 20;
  /// Size of one CUPTI buffer. Not configurable by the launcher: 8 MiB holds
  /// tens of thousands of records, so buffers complete rarely; the unit
  /// tests shrink it to run the pool dry.
  size_t BufferBytes = size_t(8) << 20;
  /// DDTRACE_WINDOW, when set.
  bool HasWindow = false;
  uint32_t WindowFirst = 0;
  uint32_t WindowLast = 0;
  /// DDTRACE_WINDOW_RANGE; empty: the default iteration-name rule.
  std::string WindowRange;
  /// DDTRACE_MEMORY=1: also record allocations (CUPTI MEMORY2).
  bool Memory = false;
};

/// Reads the configuration through \p Getenv (getenv, or a test's table).
/// On a missing or malformed variable returns false with a message in
/// \p Err.
bool readConfig(const std::function<const char *(const char *)> &Getenv,
                TraceConfig &Config, std::string &Err);

} // namespace dd::trace

#endif // DAYDREAM_LIB_TRACE_INJECTION_CONFIG_H
