//===- TraceFile.h - Reads back a .ddrec, for tests -------------*- C++ -*-===//
//
// A plain walk over the frames of a .ddrec file (RecordFile.h), checking
// sizes and padding as it goes: the tests look at the bytes the tracer
// wrote, independently of the project's reader (lib/Import).
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_UNITTESTS_TRACE_TRACEFILE_H
#define DAYDREAM_UNITTESTS_TRACE_TRACEFILE_H

#include "daydream/Trace/CuptiRecords.h"
#include "daydream/Trace/RecordFile.h"

#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace dd::trace::testing {

struct Frame {
  FrameType Type;
  std::vector<char> Payload;

  template <typename T> T as(size_t Offset = 0) const {
    T V{};
    std::memcpy(&V, Payload.data() + Offset, sizeof(T));
    return V;
  }
  CUpti_ActivityKind kind() const { return as<CUpti_ActivityKind>(); }
};

struct TraceFile {
  /// Empty when the file was read whole; what is wrong otherwise.
  std::string Error;
  FileHeader Header{};
  std::vector<Frame> Frames;
  std::map<uint64_t, std::string> Strings;

  std::vector<const Frame *> frames(FrameType Type) const;
  /// Record frames of \p Kind.
  std::vector<const Frame *> records(CUpti_ActivityKind Kind) const;
  /// The names of the kernel records, in file order.
  std::vector<std::string> kernelNames() const;
  /// The correlation ids of the API records of \p Kind.
  std::vector<uint32_t> apiCorrelations(CUpti_ActivityKind Kind) const;
  bool endsCleanly() const {
    return !Frames.empty() && Frames.back().Type == FrameType::End;
  }
};

TraceFile readTraceFile(const std::string &Path);

/// The files in \p Dir.
std::vector<std::string> listDir(const std::string &Dir);

} // namespace dd::trace::testing

#endif // DAYDREAM_UNITTESTS_TRACE_TRACEFILE_H
