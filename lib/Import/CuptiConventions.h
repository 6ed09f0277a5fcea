//===- CuptiConventions.h - CUPTI's enums, as both CUPTI readers map them -===//
//
// Nsight Systems exports CUPTI's records as SQLite tables (NsysActivities.cpp)
// and dd-trace keeps them raw (CuptiModelBuilder.cpp); both map CUPTI's copy
// kinds, NCCL kernels, iteration ranges and event records the same way, here,
// so that a trace imports alike whichever way it was recorded. Private to
// lib/Import.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_IMPORT_CUPTICONVENTIONS_H
#define DAYDREAM_LIB_IMPORT_CUPTICONVENTIONS_H

#include "daydream/IR/Types.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <iterator>
#include <tuple>
#include <vector>

namespace dd::import::cupti {

/// Kineto's spelling of a CUPTI memcpy kind (CUpti_ActivityMemcpyKind), less
/// the memory kinds it appends ("Memcpy HtoD (Pinned -> Device)"), so that
/// every front-end names copies by direction.
inline llvm::StringRef memcpyName(int64_t Kind) {
  static const char *const Names[] = {
      "Memcpy",      "Memcpy HtoD", "Memcpy DtoH", "Memcpy HtoA",
      "Memcpy AtoH", "Memcpy AtoA", "Memcpy AtoD", "Memcpy DtoA",
      "Memcpy DtoD", "Memcpy HtoH", "Memcpy PtoP"};
  return Kind > 0 && Kind < int64_t(std::size(Names)) ? Names[Kind] : Names[0];
}

/// TaskAttrs::CopyKind keeps only the directions the simulator tells apart
/// (HtoD 1, DtoH 2, DtoD 8, PtoP 10, as CUPTI numbers them).
inline uint8_t copyKind(int64_t Kind) {
  switch (Kind) {
  case 1:
  case 2:
  case 8:
  case 10:
    return static_cast<uint8_t>(Kind);
  default:
    return static_cast<uint8_t>(CopyKind::Unknown);
  }
}

/// NCCL runs each collective as one kernel (ncclKernel_*, ncclDevKernel_*).
inline bool isNcclKernel(llvm::StringRef Name) {
  Name.consume_front("void ");
  return Name.startswith("nccl");
}

/// ProfilerStep#N, as PyTorch's profiler names iterations, or a user's
/// "iteration 3", "step_12", "Step#4" (utils/ddtrace_nvtx.py writes
/// "step#N").
inline bool isStepName(llvm::StringRef Name) {
  if (Name.startswith("ProfilerStep#"))
    return true;
  if (Name.startswith_insensitive("iteration"))
    Name = Name.drop_front(9);
  else if (Name.startswith_insensitive("step"))
    Name = Name.drop_front(4);
  else
    return false;
  if (!Name.empty() && (Name[0] == ' ' || Name[0] == '_' || Name[0] == '#'))
    Name = Name.drop_front();
  return !Name.empty() && llvm::isDigit(Name[0]);
}

/// A cudaEventRecord as CUPTI_ACTIVITY_KIND_CUDA_EVENT records it.
struct EventRecord {
  int64_t Event;
  uint32_t Correlation;
  int64_t Stream;
  bool operator<(const EventRecord &O) const {
    return std::tie(Event, Correlation) < std::tie(O.Event, O.Correlation);
  }
};

/// The record a wait on \p Event by the call \p Correlation waited for: the
/// event's latest cudaEventRecord before that call (correlation ids grow
/// with time). \p Sorted is sorted; null if there is none.
inline const EventRecord *
findWaitedRecord(const std::vector<EventRecord> &Sorted, int64_t Event,
                 uint32_t Correlation) {
  EventRecord Key{Event, Correlation, 0};
  auto It = std::lower_bound(Sorted.begin(), Sorted.end(), Key);
  if (It == Sorted.begin() || std::prev(It)->Event != Event)
    return nullptr;
  return &*std::prev(It);
}

} // namespace dd::import::cupti

#endif // DAYDREAM_LIB_IMPORT_CUPTICONVENTIONS_H
