//===- BufferPool.h - Bounded memory for CUPTI's buffers --------*- C++ -*-===//
//
// CUPTI asks the tracer for a buffer whenever it needs room for records and
// hands it back full, from its own thread, when it is done. A program that
// launches kernels faster than the buffers are written out would otherwise
// make the tracer allocate without bound; the pool caps the total
// (DDTRACE_BUFFER_MB) and, once every buffer is out, refuses: CUPTI then
// drops records and counts them, which the file reports (a Dropped frame)
// rather than the traced program running out of memory.
//
// Buffers are allocated when first needed, not up front, so a short program
// costs a few megabytes whatever the cap, and are reused once returned.
// Thread-safe.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_TRACE_INJECTION_BUFFERPOOL_H
#define DAYDREAM_LIB_TRACE_INJECTION_BUFFERPOOL_H

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace dd::trace {

class BufferPool {
public:
  /// CUPTI requires buffers aligned to 8 bytes.
  static constexpr size_t Alignment = 8;

  /// A pool of at most \p TotalBytes, in buffers of \p BufferBytes (fewer
  /// bytes if the total is smaller; at least one buffer).
  BufferPool(uint64_t TotalBytes, size_t BufferBytes);
  BufferPool(const BufferPool &) = delete;
  BufferPool &operator=(const BufferPool &) = delete;
  ~BufferPool();

  /// A free buffer of bufferBytes() bytes, or null when all are in use or
  /// memory ran out.
  uint8_t *acquire();
  /// Takes back a buffer acquire() returned (null is ignored).
  void release(uint8_t *Buffer);

  size_t bufferBytes() const { return BufferBytes; }
  size_t capacity() const { return MaxBuffers; }
  /// How many times acquire() refused.
  uint64_t refusals() const;

private:
  size_t BufferBytes;
  size_t MaxBuffers;
  mutable std::mutex Mutex;
  std::vector<uint8_t *> Free;
  size_t Allocated = 0;
  uint64_t Refusals = 0;
};

} // namespace dd::trace

#endif // DAYDREAM_LIB_TRACE_INJECTION_BUFFERPOOL_H
