//===- CuptiRecordsFixture.h - A small traced iteration as CUPTI records --===//
//
// The CUPTI activity records a one-iteration training step would produce,
// built as the structs CUPTI itself fills (CuptiRecords.h), one of every
// kind dd-trace enables. The builder test feeds them to CuptiModelBuilder
// directly; the reader test writes them with CuptiRecordWriter and reads the
// file back, and must get the same model.
//
// Times (ns) on thread (pid 100, tid 7), device 0:
//   [   0, 100000] NVTX "step#0"
//     [ 500,  60000] NVTX "## forward ##"
//       [1000, 1100] cudaMalloc                 corr 1 (2 MiB on device 0)
//       [2000, 7000] cudaLaunchKernel           corr 2 -> sgemm on stream 7
//                                                  [8000, 20000]
//       [7100, 7600] cudaMemcpyAsync            corr 3 -> HtoD on stream 7
//       [7700, 7900] cudaMemsetAsync            corr 4 -> memset on stream 7
//       [8000, 8300] cudaEventRecord            corr 5 (event 9 on stream 7)
//       [8400, 8600] cudaStreamWaitEvent        corr 6 (stream 13 waits)
//       [8700, 9500] cuLaunchKernel (driver)    corr 7 -> NCCL all-reduce on
//                                                  stream 13 [21000, 30000]
//     [61000, 90000] cudaDeviceSynchronize      corr 8
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_UNITTESTS_IMPORT_CUPTIRECORDSFIXTURE_H
#define DAYDREAM_UNITTESTS_IMPORT_CUPTIRECORDSFIXTURE_H

#include "daydream/Trace/CuptiRecords.h"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include <cstring>
#include <string>
#include <vector>

namespace dd::testing {

/// One record's bytes, as CUPTI would lay them in a buffer.
using RawRecord = std::vector<char>;

template <typename T> RawRecord raw(const T &R) {
  RawRecord Bytes(sizeof(T));
  std::memcpy(Bytes.data(), &R, sizeof(T));
  return Bytes;
}

struct ApiNameEntry {
  uint32_t Domain, Cbid;
  const char *Name;
};

struct CuptiRecordsFixture {
  static constexpr uint32_t Pid = 100, Tid = 7;

  std::vector<RawRecord> Records;
  std::vector<ApiNameEntry> ApiNames;
  /// Added to every time, to every correlation and event id, and to every
  /// NVTX range id: the same iteration again later, for benchmarks that
  /// write many (write-cupti-fixture --iterations=N).
  uint64_t T = 0;
  uint32_t Id = 0;
  std::string StepName = "step#0";

  CuptiRecordsFixture() { build(); }
  /// Iteration \p I of a run of fixtures, 100 us apart; the metadata
  /// records only in the first.
  explicit CuptiRecordsFixture(uint32_t I)
      : T(I * 100000ull), Id(I * 8), StepName("step#" + std::to_string(I)) {
    build(/*Metadata=*/I == 0);
  }

  void api(CUpti_ActivityKind Kind, uint32_t Cbid, const char *Name,
           uint64_t Start, uint64_t End, uint32_t Corr) {
    trace::ApiRecord R{};
    R.kind = Kind;
    R.cbid = Cbid;
    R.start = T + Start;
    R.end = T + End;
    R.processId = Pid;
    R.threadId = Tid;
    R.correlationId = Id + Corr;
    Records.push_back(raw(R));
    ApiNames.push_back({Kind == CUPTI_ACTIVITY_KIND_RUNTIME
                            ? uint32_t(CUPTI_CB_DOMAIN_RUNTIME_API)
                            : uint32_t(CUPTI_CB_DOMAIN_DRIVER_API),
                        Cbid, Name});
  }

  void kernel(const char *Name, uint32_t Stream, uint64_t Start, uint64_t End,
              uint32_t Corr) {
    trace::KernelRecord R{};
    R.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    R.name = Name;
    R.start = T + Start;
    R.end = T + End;
    R.deviceId = 0;
    R.contextId = 1;
    R.streamId = Stream;
    R.correlationId = Id + Corr;
    R.gridX = 128;
    R.gridY = R.gridZ = 1;
    R.blockX = 256;
    R.blockY = R.blockZ = 1;
    R.registersPerThread = 64;
    R.staticSharedMemory = 1024;
    R.dynamicSharedMemory = 3072;
    Records.push_back(raw(R));
  }

  void marker(uint32_t MarkerId, CUpti_ActivityFlag Flags, uint64_t Time,
              const char *Name) {
    trace::MarkerRecord R{};
    R.kind = CUPTI_ACTIVITY_KIND_MARKER;
    R.flags = Flags;
    R.timestamp = T + Time;
    R.id = Id + MarkerId;
    R.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    R.objectId.pt.processId = Pid;
    R.objectId.pt.threadId = Tid;
    R.name = Name;
    R.domain = nullptr;
    Records.push_back(raw(R));
  }

  void range(uint32_t RangeId, const char *Name, uint64_t Start, uint64_t End) {
    marker(RangeId, CUPTI_ACTIVITY_FLAG_MARKER_START, Start, Name);
    marker(RangeId, CUPTI_ACTIVITY_FLAG_MARKER_END, End, nullptr);
  }

  void build(bool Metadata = true) {
    if (Metadata)
      buildMetadata();
    buildWork();
  }

  void buildMetadata() {
    // First, as CUPTI delivers it.
    trace::DeviceRecord D{};
    D.kind = CUPTI_ACTIVITY_KIND_DEVICE;
    D.id = 0;
    D.name = "NVIDIA H200";
    D.numMultiprocessors = 132;
    D.globalMemorySize = 150ull << 30;
    D.globalMemoryBandwidth = 4800000000ull; // kB/s
    Records.push_back(raw(D));
    trace::ContextRecord C{};
    C.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
    C.contextId = 1;
    C.deviceId = 0;
    Records.push_back(raw(C));
    trace::NameRecord N{};
    N.kind = CUPTI_ACTIVITY_KIND_NAME;
    N.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    N.objectId.pt.processId = Pid;
    N.objectId.pt.threadId = Tid;
    N.name = "trainer";
    Records.push_back(raw(N));
  }

  void buildWork() {
    // GPU work before the calls that launched it: CUPTI's buffers for GPU
    // activity and for API calls complete in any order.
    kernel("sgemm_128x64", 7, 8000, 20000, 2);
    kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 13, 21000, 30000, 7);
    trace::MemcpyRecord Copy{};
    Copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    Copy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    Copy.bytes = 4096;
    Copy.start = T + 20100;
    Copy.end = T + 20400;
    Copy.deviceId = 0;
    Copy.contextId = 1;
    Copy.streamId = 7;
    Copy.correlationId = Id + 3;
    Records.push_back(raw(Copy));
    trace::MemsetRecord Set{};
    Set.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    Set.bytes = 512;
    Set.start = T + 20500;
    Set.end = T + 20600;
    Set.deviceId = 0;
    Set.contextId = 1;
    Set.streamId = 7;
    Set.correlationId = Id + 4;
    Records.push_back(raw(Set));

    range(2, "## forward ##", 500, 60000);
    range(1, StepName.c_str(), 0, 100000);
    api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
        "cudaMalloc_v3020", 1000, 1100, 1);
    api(CUPTI_ACTIVITY_KIND_RUNTIME,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
        "cudaLaunchKernel_v7000", 2000, 7000, 2);
    api(CUPTI_ACTIVITY_KIND_RUNTIME,
        CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, "cudaMemcpyAsync_v3020",
        7100, 7600, 3);
    api(CUPTI_ACTIVITY_KIND_RUNTIME,
        CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, "cudaMemsetAsync_v3020",
        7700, 7900, 4);
    api(CUPTI_ACTIVITY_KIND_RUNTIME,
        CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, "cudaEventRecord_v3020",
        8000, 8300, 5);
    api(CUPTI_ACTIVITY_KIND_RUNTIME,
        CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020,
        "cudaStreamWaitEvent_v3020", 8400, 8600, 6);
    api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
        "cuLaunchKernel", 8700, 9500, 7);
    api(CUPTI_ACTIVITY_KIND_RUNTIME,
        CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
        "cudaDeviceSynchronize_v3020", 61000, 90000, 8);

    trace::CudaEventRecord Event{};
    Event.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
    Event.correlationId = Id + 5;
    Event.contextId = 1;
    Event.streamId = 7;
    Event.eventId = Id + 9;
    Event.cudaEventSyncId = Id + 55;
    Records.push_back(raw(Event));
    trace::SynchronizationRecord Wait{};
    Wait.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    Wait.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
    Wait.start = T + 8400;
    Wait.end = T + 8600;
    Wait.correlationId = Id + 6;
    Wait.contextId = 1;
    Wait.streamId = 13;
    Wait.cudaEventId = Id + 9;
    Wait.cudaEventSyncId = Id + 55;
    Records.push_back(raw(Wait));
    trace::SynchronizationRecord DeviceSync{};
    DeviceSync.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    DeviceSync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
    DeviceSync.start = T + 61000;
    DeviceSync.end = T + 90000;
    DeviceSync.correlationId = Id + 8;
    DeviceSync.contextId = 1;
    DeviceSync.streamId = 0xFFFFFFFFu;
    Records.push_back(raw(DeviceSync));

    trace::MemoryRecord Alloc{};
    Alloc.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
    Alloc.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
    Alloc.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    Alloc.correlationId = Id + 1;
    Alloc.address = 0x7f0000000000ull + (uint64_t(Id) << 20);
    Alloc.bytes = 2 << 20;
    Alloc.timestamp = T + 1050;
    Alloc.processId = Pid;
    Alloc.deviceId = 0;
    Alloc.contextId = 1;
    Records.push_back(raw(Alloc));

    // Kinds read but not modelled.
    trace::OverheadRecord Overhead{};
    Overhead.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
    Overhead.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
    Overhead.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    Overhead.objectId.pt.processId = Pid;
    Overhead.objectId.pt.threadId = Tid;
    Overhead.start = T + 95000;
    Overhead.end = T + 95750;
    Records.push_back(raw(Overhead));
    trace::ExternalCorrelationRecord External{};
    External.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
    External.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
    External.externalId = 4242;
    External.correlationId = Id + 2;
    Records.push_back(raw(External));
    trace::MarkerDataRecord Data{};
    Data.kind = CUPTI_ACTIVITY_KIND_MARKER_DATA;
    Data.id = Id + 1;
    Data.color = 0xff00ff00u;
    Records.push_back(raw(Data));
  }
};

} // namespace dd::testing

#endif // DAYDREAM_UNITTESTS_IMPORT_CUPTIRECORDSFIXTURE_H
