//===- BufferPool.cpp - Bounded memory for CUPTI's activity buffers -------===//
//
// acquire() runs on whichever thread CUPTI needs room on, often one that is
// launching kernels, so it does no more than pop a free list or allocate.
//
//===----------------------------------------------------------------------===//

#include "BufferPool.h"

#include <algorithm>
#include <cstdlib>

using namespace dd::trace;

BufferPool::BufferPool(uint64_t TotalBytes, size_t BufferBytes) {
  // Whole multiples of the alignment, so that a buffer's end is aligned too.
  uint64_t Size = std::min<uint64_t>(BufferBytes, TotalBytes);
  Size = std::max<uint64_t>(Size / Alignment * Alignment, Alignment);
  this->BufferBytes = size_t(Size);
  MaxBuffers = size_t(std::max<uint64_t>(TotalBytes / Size, 1));
  // release() then rarely needs to grow the free list.
  Free.reserve(std::min<size_t>(MaxBuffers, 4096));
}

BufferPool::~BufferPool() {
  // Buffers still with CUPTI are not freed: CUPTI may yet write into them.
  for (uint8_t *B : Free)
    std::free(B);
}

uint8_t *BufferPool::acquire() {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (!Free.empty()) {
    uint8_t *B = Free.back();
    Free.pop_back();
    return B;
  }
  void *B = nullptr;
  if (Allocated < MaxBuffers &&
      posix_memalign(&B, Alignment, BufferBytes) == 0) {
    ++Allocated;
    return static_cast<uint8_t *>(B);
  }
  ++Refusals;
  return nullptr;
}

void BufferPool::release(uint8_t *Buffer) {
  if (!Buffer)
    return;
  std::lock_guard<std::mutex> Lock(Mutex);
  Free.push_back(Buffer);
}

uint64_t BufferPool::refusals() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return Refusals;
}
