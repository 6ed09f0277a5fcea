//===- CuptiRecordWriter.h - Writes a .ddrec file ---------------*- C++ -*-===//
//
// The writing half of RecordFile.h: libddtrace.so hands it each CUPTI record
// as CUPTI's buffer-completed callback delivers it; the unit tests hand it
// records they build, to check the reader against the writer.
//
// Each string a record points to is written once, as a String frame, the
// first time its text is seen (kernel names repeat every iteration). Frames
// are gathered in a buffer and written in large blocks; a failed write is
// remembered and reported by close(), so that the traced program is never
// interrupted for it.
//
// Not thread-safe: the injection library serializes calls with a mutex.
// Free of LLVM (it runs inside the traced process).
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TRACE_CUPTIRECORDWRITER_H
#define DAYDREAM_TRACE_CUPTIRECORDWRITER_H

#include "daydream/Trace/CuptiRecords.h"
#include "daydream/Trace/RecordFile.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace dd::trace {

class CuptiRecordWriter {
public:
  CuptiRecordWriter() = default;
  CuptiRecordWriter(const CuptiRecordWriter &) = delete;
  CuptiRecordWriter &operator=(const CuptiRecordWriter &) = delete;
  ~CuptiRecordWriter();

  /// Creates \p Path (truncating it) and writes the header. On failure
  /// returns false with a message in \p Err.
  bool open(const char *Path, uint32_t CuptiRuntimeVersion, uint32_t Pid,
            uint64_t StartNs, std::string &Err);
  bool isOpen() const { return Fd >= 0; }

  /// Appends \p Record if its kind is one RecordLayout knows; returns whether
  /// it was kept.
  bool addRecord(const CUpti_Activity *Record);
  /// Names callback \p Cbid of \p Domain, once per (domain, id).
  void addApiName(uint32_t Domain, uint32_t Cbid, const char *Name);
  void addDropped(uint64_t Total);
  void addWindow(uint64_t StartNs, uint64_t EndNs);
  /// Writes the End frame, flushes and closes. Returns false, with a message
  /// in \p Err, if any write failed since open().
  bool close(uint64_t EndNs, std::string &Err);
  /// Writes out what is buffered (the file stays open).
  void flush();
  /// Forgets the file without writing to it: for a child process after
  /// fork(), which must not write into its parent's file.
  void abandon();

private:
  void addFrame(FrameType Type, const void *Payload, uint32_t Size,
                const void *Tail = nullptr, uint32_t TailSize = 0);
  uint32_t internString(const char *S);

  int Fd = -1;
  int WriteErrno = 0;
  std::vector<char> Buffer;
  std::unordered_map<std::string, uint32_t> StringIds;
  std::unordered_map<uint64_t, bool> NamedApis;
};

} // namespace dd::trace

#endif // DAYDREAM_TRACE_CUPTIRECORDWRITER_H
