//===- RecordFile.h - The .ddrec file of raw CUPTI records ------*- C++ -*-===//
//
// What libddtrace.so, loaded into a traced process, writes and what dd-trace
// (and dd-import) read back: the CUPTI activity records exactly as CUPTI
// produced them, plus the strings their pointer fields pointed to. Keeping
// the raw records, rather than a digest made inside the traced process,
// keeps the work done there to a copy, and lets an old recording be lowered
// again by a newer, better lowering.
//
// Layout (little-endian, as the machine that recorded it):
//   FileHeader, then frames until the end of the file. Each frame is a
//   FrameHeader and Size bytes of payload, padded with zeros to a multiple of
//   8 bytes so that records stay aligned where the file is mapped.
//
// A process that ended cleanly (exit, or a signal dd-trace's library caught)
// ends its file with an End frame; a file without one was cut short, and
// what it holds up to the last whole frame is still usable.
//
// This header is free of LLVM and CUPTI: the injection library includes it.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TRACE_RECORDFILE_H
#define DAYDREAM_TRACE_RECORDFILE_H

#include <cstdint>

namespace dd::trace {

/// The first eight bytes of every .ddrec file.
inline constexpr char RecordFileMagic[8] = {'D', 'D', 'R', 'E',
                                            'C', 'O', 'R', 'D'};
/// Bumped whenever a reader of the previous version would misread a file.
inline constexpr uint32_t RecordFileVersion = 1;

struct FileHeader {
  char Magic[8];
  uint32_t Version;             ///< RecordFileVersion
  uint32_t CuptiApiVersion;     ///< CUPTI_API_VERSION the writer was built with
  uint32_t CuptiRuntimeVersion; ///< cuptiGetVersion() in the traced process
  uint32_t Pid;                 ///< the traced process
  uint64_t StartNs;             ///< CUPTI timestamp when tracing started
  /// recordLayoutSignature() of the writer's CUPTI headers: a reader built
  /// with other headers reads the file if the layouts it keeps are the same,
  /// whatever the two API versions.
  uint32_t LayoutSignature;
  uint32_t Reserved; ///< zero
};
static_assert(sizeof(FileHeader) == 40, "FileHeader is part of the format");

enum class FrameType : uint32_t {
  /// One CUPTI activity record (it starts with its CUpti_ActivityKind), of
  /// the size CuptiRecords.h gives its kind, with each string field holding
  /// the id of a String frame written before it (0 for a null string) and
  /// every other pointer field zeroed.
  Record = 1,
  /// uint32_t id (1, 2, ...), then the text, not NUL-terminated.
  String = 2,
  /// uint32_t CUpti_CallbackDomain, uint32_t callback id, then the API's
  /// name as cuptiGetCallbackName gives it: API records carry only the id.
  ApiName = 3,
  /// uint64_t records CUPTI dropped (no buffer was free); the last such frame
  /// holds the total.
  Dropped = 4,
  /// uint64_t CUPTI timestamp when tracing ended. Written last, on a clean end.
  End = 5,
  /// uint64_t start and end CUPTI timestamps of the traced window, when
  /// tracing was limited to one (dd-trace -window); written when it closes.
  Window = 6,
};

struct FrameHeader {
  uint32_t Type; ///< FrameType
  uint32_t Size; ///< payload bytes, before padding
};
static_assert(sizeof(FrameHeader) == 8, "FrameHeader is part of the format");

/// Frames are padded to this alignment.
inline constexpr uint32_t FrameAlign = 8;

/// Bytes a payload of \p Size occupies, padding included.
constexpr uint64_t paddedSize(uint64_t Size) {
  return (Size + FrameAlign - 1) / FrameAlign * FrameAlign;
}

/// Environment variables through which the dd-trace launcher configures the
/// library it injects (docs/Trace.md).
namespace env {
/// Folder where each traced process writes <pid>.ddrec.
inline constexpr const char *OutputDir = "DDTRACE_OUTPUT_DIR";
/// Path of libcupti.so to load.
inline constexpr const char *CuptiLibrary = "DDTRACE_CUPTI_LIBRARY";
/// Total CUPTI buffer memory, in MiB.
inline constexpr const char *BufferMiB = "DDTRACE_BUFFER_MB";
/// "FIRST:LAST": trace only iterations FIRST to LAST (0-based, inclusive).
inline constexpr const char *Window = "DDTRACE_WINDOW";
/// Name (prefix) of the NVTX range that marks an iteration for the window.
inline constexpr const char *WindowRange = "DDTRACE_WINDOW_RANGE";
/// "1" to also record memory allocations and frees (CUPTI MEMORY2).
inline constexpr const char *Memory = "DDTRACE_MEMORY";
} // namespace env

} // namespace dd::trace

#endif // DAYDREAM_TRACE_RECORDFILE_H
