//===- FreshMemory.h - Task-sized arrays faulted in at once -----*- C++ -*-===//
//
// An array of one slot per task is tens of megabytes at ten million tasks,
// and filling it from fresh memory takes a page fault for every 4 KiB,
// which on the development VM costs more than the loops that then use the
// array (about 0.9 ms a MB). Linux (5.14 on) faults a whole range in with
// one madvise(MADV_POPULATE_WRITE), somewhat cheaper. Huge pages
// (MADV_HUGEPAGE) fault 40 MB in several times faster still, but on this
// machine (`defrag=madvise`) half the runs then wait for the kernel to
// compact memory: dd-sim with its headline took 0.33-0.35 s or 0.50-0.84 s
// on a 5-million-task file, against 0.36-0.48 s without them
// (docs/Performance.md), so they are not asked for. The other way round, a
// file's records copied out of its mapping need not stay resident twice:
// dropFilePages() hands the copied pages back.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SUPPORT_FRESHMEMORY_H
#define DAYDREAM_SUPPORT_FRESHMEMORY_H

#include <cstddef>
#include <cstdint>
#include <vector>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace dd {

#ifdef __linux__
/// madvise(\p Advice) on the whole pages within [\p Begin, \p End).
inline void adviseWholePages(const void *Begin, const void *End, int Advice) {
  constexpr uintptr_t Page = 4096;
  // Rounded by pointer arithmetic, not by casting an integer back to a
  // pointer, so that the compiler still knows what the pointers point to.
  const char *First = static_cast<const char *>(Begin);
  const char *Last = static_cast<const char *>(End);
  const char *B =
      First + (Page - reinterpret_cast<uintptr_t>(First) % Page) % Page;
  const char *E = Last - reinterpret_cast<uintptr_t>(Last) % Page;
  if (E > B)
    (void)madvise(const_cast<char *>(B), size_t(E - B), Advice);
}
#endif

/// Faults in the whole pages within [\p Begin, \p End), memory not yet
/// touched, with one call where the kernel offers it; elsewhere (or if it
/// refuses) the first write faults them in as usual.
inline void prefault(const void *Begin, const void *End) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  adviseWholePages(Begin, End, MADV_POPULATE_WRITE);
#else
  (void)Begin;
  (void)End;
#endif
}

/// Hands back to the kernel the whole pages within [\p Begin, \p End) of a
/// read-only mapping of a file (MADV_DONTNEED): they leave the resident set,
/// and a later read maps them again from the file, unchanged. Only for
/// memory the process has not written: anonymous or written pages would
/// read back as zeros.
inline void dropFilePages(const void *Begin, const void *End) {
#if defined(__linux__) && defined(MADV_DONTNEED)
  adviseWholePages(Begin, End, MADV_DONTNEED);
#else
  (void)Begin;
  (void)End;
#endif
}

/// V.resize(N, X), the slots past its size faulted in at once. An empty
/// vector's room is reserved first, so that it too is fresh memory (with
/// elements, reserving would copy them).
template <class T> void resizeFresh(std::vector<T> &V, size_t N, T X) {
  if (V.empty())
    V.reserve(N);
  if (N > V.size() && V.capacity() >= N)
    prefault(V.data() + V.size(), V.data() + N);
  V.resize(N, X);
}

/// V.assign(N, X), in fresh prefaulted memory when V's capacity is short of
/// N (memory V already holds is refilled as it is).
template <class T> void assignFresh(std::vector<T> &V, size_t N, T X) {
  if (V.capacity() < N) {
    std::vector<T>().swap(V); // reserve() on a full vector would copy it
    V.reserve(N);
    prefault(V.data(), V.data() + N);
  }
  V.assign(N, X);
}

} // namespace dd

#endif // DAYDREAM_SUPPORT_FRESHMEMORY_H
