//===- MachineMemory.h - This machine's physical memory ---------*- C++ -*-===//
//
// What a tool compares a job's needs with before it spends the work: a job
// that cannot fit is refused with the numbers, rather than left to run the
// machine out of memory.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SUPPORT_MACHINEMEMORY_H
#define DAYDREAM_SUPPORT_MACHINEMEMORY_H

#include <cstdint>

#include <unistd.h>

namespace dd {

/// This machine's physical memory in bytes, or 0 if unknown.
inline uint64_t machineMemoryBytes() {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  long Pages = sysconf(_SC_PHYS_PAGES), Size = sysconf(_SC_PAGESIZE);
  if (Pages > 0 && Size > 0)
    return uint64_t(Pages) * uint64_t(Size);
#endif
  return 0;
}

} // namespace dd

#endif // DAYDREAM_SUPPORT_MACHINEMEMORY_H
