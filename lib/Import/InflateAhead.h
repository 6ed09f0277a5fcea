//===- InflateAhead.h - Gunzip beside the parser ----------------*- C++ -*-===//
//
// Inflating a .json.gz with zlib took 40-45% of its import on the one core
// the parser also needs. Deflate cannot be split, but it can run beside the
// parse: a thread of its own inflates into memory reserved for the whole
// output (so that the bytes never move), publishing each megabyte as it
// lands, while the Kineto reader parses the pieces (KinetoChunks.h) that
// have arrived and waits, at most, for the rest. The memory is sized by the
// gzip trailer; a text that outgrows it is inflated again, whole
// (InputFile::finishInflating()).
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_IMPORT_INFLATEAHEAD_H
#define DAYDREAM_LIB_IMPORT_INFLATEAHEAD_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace dd::import {

/// Where inflateGzip() writes: the writable bytes from offset Done on
/// (making more room where it can), or none when the output may not grow.
using InflateRoomFn = llvm::function_ref<llvm::MutableArrayRef<char>(size_t)>;

/// Inflates \p Compressed, one or more concatenated gzip members, through
/// \p Room, calling \p Arrived (if given) with the bytes written so far
/// after each step; zero bytes after the last member are ignored, as gzip
/// -d does. Sets \p Done to the bytes written. Errors say "truncated gzip
/// stream", "corrupt gzip stream: <zlib's reason>" or that the output
/// passed \p MaxBytes.
llvm::Error inflateGzip(llvm::StringRef Compressed, uint64_t MaxBytes,
                        InflateRoomFn Room,
                        llvm::function_ref<void(size_t)> Arrived, size_t &Done);

class InflateAhead {
public:
  /// Starts inflating \p Compressed, which must outlive the object, on a
  /// thread of its own, into \p Capacity bytes (at most \p MaxBytes: the
  /// gzip trailer's size, a guess) and the parser's padding, zeros. Bytes
  /// are published \p StepBytes at a time. \p OnDemand, for tests,
  /// inflates no further than a reader has asked for: the reader then sees
  /// as few bytes as it can, and waits at every step. Null where the memory
  /// cannot be had.
  static std::unique_ptr<InflateAhead>
  start(llvm::StringRef Compressed, uint64_t MaxBytes, uint64_t Capacity,
        size_t StepBytes = size_t(1) << 20, bool OnDemand = false);
  InflateAhead(const InflateAhead &) = delete;
  InflateAhead &operator=(const InflateAhead &) = delete;
  /// Stops the thread if it still runs.
  ~InflateAhead();

  /// Where the bytes go; they never move.
  const char *data() const { return Base; }
  /// Waits until \p N bytes have arrived or the stream has ended; returns
  /// how many have arrived.
  size_t waitFor(size_t N);
  /// Waits for the end of the stream; its error, if it was bad. A stream
  /// longer than the capacity (several members, or 4 GiB and more: the
  /// trailer's size is the last member's, modulo 4 GiB) is not an error
  /// short of MaxBytes: it stops there, and outgrew() says so.
  llvm::Error finish();
  /// Whether the stream, finished, was cut at the capacity.
  bool outgrew();

private:
  InflateAhead(llvm::StringRef Compressed, uint64_t MaxBytes, uint64_t Capacity,
               size_t StepBytes, bool OnDemand, char *Base);
  void run();

  llvm::StringRef Compressed;
  uint64_t MaxBytes;
  uint64_t Capacity;
  size_t StepBytes;
  bool OnDemand;
  char *Base; // Capacity bytes and the padding, new[]ed
  std::atomic<size_t> Arrived{0};
  std::atomic<bool> Stop{false};
  std::mutex M;
  std::condition_variable CV;
  bool Ended = false;   // guarded by M
  bool Outgrew = false; // guarded by M
  size_t Wanted = 0;    // guarded by M: the most bytes a reader asked for
  std::string Failure;  // guarded by M; empty if the stream was good
  std::thread Worker;
};

} // namespace dd::import

#endif // DAYDREAM_LIB_IMPORT_INFLATEAHEAD_H
