//===- CuptiRecords.h - The CUPTI activity records dd-trace keeps -*- C++
//-*-===//
//
// One table of the CUPTI activity kinds dd-trace enables, the record struct
// CUPTI writes for each (the newest version in the CUPTI headers the project
// is built with), and where each struct holds pointers: the writer
// (CuptiRecordWriter) replaces string pointers by string ids and zeroes the
// others, the reader (dd::import's CuptiReader) turns the ids back into
// strings. The lowering and its unit tests use the same struct names, so a
// test builds exactly what CUPTI hands the library.
//
// Free of LLVM: the injection library includes it.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TRACE_CUPTIRECORDS_H
#define DAYDREAM_TRACE_CUPTIRECORDS_H

#include <cupti_activity.h>
#include <cupti_version.h>

#include <cstddef>
#include <cstdint>

namespace dd::trace {

using KernelRecord = CUpti_ActivityKernel10;
using MemcpyRecord = CUpti_ActivityMemcpy6;
using PeerMemcpyRecord = CUpti_ActivityMemcpyPtoP4;
using MemsetRecord = CUpti_ActivityMemset4;
using ApiRecord = CUpti_ActivityAPI; ///< RUNTIME and DRIVER
using SynchronizationRecord = CUpti_ActivitySynchronization2;
using CudaEventRecord = CUpti_ActivityCudaEvent2;
using MarkerRecord = CUpti_ActivityMarker2;
using MarkerDataRecord = CUpti_ActivityMarkerData2;
using ExternalCorrelationRecord = CUpti_ActivityExternalCorrelation;
using OverheadRecord = CUpti_ActivityOverhead3;
using DeviceRecord = CUpti_ActivityDevice5;
using ContextRecord = CUpti_ActivityContext3;
using NameRecord = CUpti_ActivityName;
using MemoryRecord = CUpti_ActivityMemory4;

/// Where a record struct holds pointers. Offsets of 0 are unused slots (no
/// pointer field sits at offset 0: that is the kind).
struct RecordLayout {
  uint32_t Size = 0;                  ///< sizeof the struct; 0: kind not kept
  uint16_t StringFields[2] = {0, 0};  ///< const char * fields
  uint16_t OtherPointers[2] = {0, 0}; ///< pointers that mean nothing outside
                                      ///< the traced process
};

/// The layout of \p Kind's record (a CUpti_ActivityKind, taken as an
/// integer since a file may hold any value), with Size 0 for a kind dd-trace
/// does not keep.
constexpr RecordLayout recordLayout(uint32_t Kind) {
  auto Of = [](uint32_t Size, uint16_t S0 = 0, uint16_t S1 = 0, uint16_t P0 = 0,
               uint16_t P1 = 0) {
    RecordLayout L;
    L.Size = Size;
    L.StringFields[0] = S0;
    L.StringFields[1] = S1;
    L.OtherPointers[0] = P0;
    L.OtherPointers[1] = P1;
    return L;
  };
  switch (Kind) {
  case CUPTI_ACTIVITY_KIND_KERNEL:
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    return Of(sizeof(KernelRecord), offsetof(KernelRecord, name), 0,
              offsetof(KernelRecord, reserved0),
              offsetof(KernelRecord, pAccessPolicyWindow));
  case CUPTI_ACTIVITY_KIND_MEMCPY:
    return Of(sizeof(MemcpyRecord), 0, 0, offsetof(MemcpyRecord, reserved0));
  case CUPTI_ACTIVITY_KIND_MEMCPY2:
    return Of(sizeof(PeerMemcpyRecord), 0, 0,
              offsetof(PeerMemcpyRecord, reserved0));
  case CUPTI_ACTIVITY_KIND_MEMSET:
    return Of(sizeof(MemsetRecord), 0, 0, offsetof(MemsetRecord, reserved0));
  case CUPTI_ACTIVITY_KIND_RUNTIME:
  case CUPTI_ACTIVITY_KIND_DRIVER:
    return Of(sizeof(ApiRecord));
  case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
    return Of(sizeof(SynchronizationRecord));
  case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
    return Of(sizeof(CudaEventRecord), 0, 0,
              offsetof(CudaEventRecord, reserved0));
  case CUPTI_ACTIVITY_KIND_MARKER:
    return Of(sizeof(MarkerRecord), offsetof(MarkerRecord, name),
              offsetof(MarkerRecord, domain));
  case CUPTI_ACTIVITY_KIND_MARKER_DATA:
    return Of(sizeof(MarkerDataRecord));
  case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
    return Of(sizeof(ExternalCorrelationRecord));
  case CUPTI_ACTIVITY_KIND_OVERHEAD:
    return Of(sizeof(OverheadRecord), 0, 0,
              offsetof(OverheadRecord, overheadData));
  case CUPTI_ACTIVITY_KIND_DEVICE:
    return Of(sizeof(DeviceRecord), offsetof(DeviceRecord, name));
  case CUPTI_ACTIVITY_KIND_CONTEXT:
    return Of(sizeof(ContextRecord));
  case CUPTI_ACTIVITY_KIND_NAME:
    return Of(sizeof(NameRecord), offsetof(NameRecord, name));
  case CUPTI_ACTIVITY_KIND_MEMORY2:
    return Of(sizeof(MemoryRecord), offsetof(MemoryRecord, name),
              offsetof(MemoryRecord, source));
  default:
    return RecordLayout();
  }
}

/// A hash of the layouts of every kind kept (sizes and pointer offsets), so
/// that a file written with one release of the CUPTI headers is read by a
/// build with another exactly when the records it holds are the same.
constexpr uint32_t recordLayoutSignature() {
  uint32_t H = 2166136261u; // FNV-1a
  auto Mix = [&H](uint32_t V) {
    for (int B = 0; B < 4; ++B) {
      H ^= (V >> (8 * B)) & 0xFF;
      H *= 16777619u;
    }
  };
  for (uint32_t Kind = 0; Kind < 64; ++Kind) {
    RecordLayout L = recordLayout(Kind);
    if (L.Size == 0)
      continue;
    Mix(Kind);
    Mix(L.Size);
    for (uint16_t Off : L.StringFields)
      Mix(Off);
    for (uint16_t Off : L.OtherPointers)
      Mix(Off);
  }
  return H;
}

/// The kinds dd-trace enables, in the order it enables them. MEMORY2 only
/// when asked (-memory): allocation tracking costs time in the traced process.
inline constexpr CUpti_ActivityKind TracedKinds[] = {
    CUPTI_ACTIVITY_KIND_DEVICE,
    CUPTI_ACTIVITY_KIND_CONTEXT,
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
    CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMCPY2,
    CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_RUNTIME,
    CUPTI_ACTIVITY_KIND_DRIVER,
    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
    CUPTI_ACTIVITY_KIND_CUDA_EVENT,
    CUPTI_ACTIVITY_KIND_MARKER,
    CUPTI_ACTIVITY_KIND_MARKER_DATA,
    CUPTI_ACTIVITY_KIND_NAME,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
    CUPTI_ACTIVITY_KIND_OVERHEAD,
};

} // namespace dd::trace

#endif // DAYDREAM_TRACE_CUPTIRECORDS_H
