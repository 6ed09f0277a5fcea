//===- Prefault.h - Task-sized arrays faulted in at once --------*- C++ -*-===//
//
// Private to lib/Sim. An array of one slot per task is tens of megabytes at
// ten million tasks, and filling it from fresh memory takes a page fault
// for every 4 KiB, which on the development VM costs more than the loops
// that then use the array (about 1.3 ms a MB). Linux (5.14 on) faults a
// whole range in with one madvise(MADV_POPULATE_WRITE), about a third
// cheaper; unlike huge pages it never waits for memory to be compacted.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_SIM_PREFAULT_H
#define DAYDREAM_LIB_SIM_PREFAULT_H

#include <cstddef>
#include <cstdint>
#include <vector>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace dd::sim {

/// V.assign(N, X), with V's pages faulted in by one call where the kernel
/// offers it; elsewhere (or if it refuses) the fill faults them in.
template <class T> void assignPrefaulted(std::vector<T> &V, size_t N, T X) {
  if (V.capacity() < N) {
    std::vector<T>().swap(V); // reserve() on a full vector would copy it
    V.reserve(N);
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    constexpr uintptr_t Page = 4096;
    const uintptr_t Begin =
        (reinterpret_cast<uintptr_t>(V.data()) + Page - 1) & ~(Page - 1);
    const uintptr_t End =
        reinterpret_cast<uintptr_t>(V.data() + N) & ~(Page - 1);
    if (End > Begin)
      (void)madvise(reinterpret_cast<void *>(Begin), End - Begin,
                    MADV_POPULATE_WRITE);
#endif
  }
  V.assign(N, X);
}

} // namespace dd::sim

#endif // DAYDREAM_LIB_SIM_PREFAULT_H
