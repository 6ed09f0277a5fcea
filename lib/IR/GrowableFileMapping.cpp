//===- GrowableFileMapping.cpp - A file's records with room after them ----===//

#include "daydream/IR/GrowableFileMapping.h"

#include <algorithm>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#include <unistd.h>
#define DAYDREAM_HAVE_MMAP 1
#endif

using namespace dd;

std::unique_ptr<GrowableFileMapping> GrowableFileMapping::map(int FD,
                                                              uint64_t Offset,
                                                              size_t Bytes,
                                                              size_t Capacity) {
#ifdef DAYDREAM_HAVE_MMAP
  const long PageSize = sysconf(_SC_PAGESIZE);
  if (PageSize <= 0)
    return nullptr;
  const uint64_t Page = uint64_t(PageSize);
  const uint64_t Start = Offset - Offset % Page;
  const size_t Lead = size_t(Offset - Start);
  const auto RoundUp = [&](size_t N) { return (N + Page - 1) / Page * Page; };
  Capacity = std::max(Capacity, Bytes);
  if (Capacity > SIZE_MAX - Lead - Page)
    return nullptr;
  const size_t Length = RoundUp(Lead + Capacity);
  // The room: private, zero-filled, and not counted against the system's
  // commit limit until written.
  void *Base = mmap(nullptr, Length, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (Base == MAP_FAILED)
    return nullptr;
  // The file's pages over its start. The last one may run past the records
  // (into the file's next section, or past its end, which reads as zeros):
  // it is a private copy, so writing there changes nothing anyone else sees.
  if (Bytes && mmap(Base, RoundUp(Lead + Bytes), PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_FIXED, FD, off_t(Start)) == MAP_FAILED) {
    munmap(Base, Length);
    return nullptr;
  }
  return std::unique_ptr<GrowableFileMapping>(new GrowableFileMapping(
      Base, Length, static_cast<char *>(Base) + Lead, Length - Lead));
#else
  (void)FD;
  (void)Offset;
  (void)Bytes;
  (void)Capacity;
  return nullptr;
#endif
}

GrowableFileMapping::~GrowableFileMapping() {
#ifdef DAYDREAM_HAVE_MMAP
  munmap(Base, Length);
#endif
}
