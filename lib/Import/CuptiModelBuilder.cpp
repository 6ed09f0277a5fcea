//===- CuptiModelBuilder.cpp - CUPTI activity records to a TraceModel -----===//
//
// One method per record kind, each a field-by-field copy into the model, and
// the pairing done once all of a process's records are in. CUPTI's own enum
// values are mapped through CuptiConventions.h, as the Nsight Systems reader
// maps the same values from its tables.
//
//===----------------------------------------------------------------------===//

#include "daydream/Import/CuptiModelBuilder.h"

#include "CuptiConventions.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

using namespace dd;
using namespace dd::import;
using namespace dd::import::cupti;
using namespace dd::trace;

namespace {

/// CUPTI marks a stream, device or context that does not apply with
/// 0xFFFFFFFF.
constexpr uint32_t NotApplicable = 0xFFFFFFFFu;

int64_t optionalId(uint32_t V) { return V == NotApplicable ? -1 : V; }

/// An enum field's bits, read as an integer: records come from files, where
/// a field may hold a value its enum does not list, and reading that as the
/// enum type is undefined behaviour.
template <typename EnumT> uint32_t bitsOf(const EnumT &Field) {
  static_assert(sizeof(EnumT) == sizeof(uint32_t), "CUPTI enums are 32-bit");
  uint32_t V;
  std::memcpy(&V, &Field, sizeof(V));
  return V;
}

int64_t ns(uint64_t T) {
  return T > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(T);
}

uint32_t clamp32(int64_t V) {
  return V < 0 ? 0 : V > int64_t(UINT32_MAX) ? UINT32_MAX : uint32_t(V);
}

/// A device id as the model keeps it (int32_t, never negative: -1 means
/// host memory).
int32_t deviceId(uint32_t Id) {
  return int32_t(std::min<uint32_t>(Id, uint32_t(INT32_MAX)));
}

/// Whether a CUPTI memory kind is memory on a GPU (device, static device,
/// managed), as opposed to host memory.
bool isDeviceMemory(uint32_t Kind) {
  return Kind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE ||
         Kind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC ||
         Kind == CUPTI_ACTIVITY_MEMORY_KIND_MANAGED ||
         Kind == CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC;
}

} // namespace

CuptiModelBuilder::CuptiModelBuilder() { M.Meta.SourceFormat = "cupti"; }

void CuptiModelBuilder::setApiName(uint32_t Domain, uint32_t Cbid,
                                   llvm::StringRef Name) {
  // CUPTI names runtime APIs by the version that introduced them
  // ("cudaLaunchKernel_v7000"); the PyTorch profiler and the graphs name
  // them without it. Driver names keep theirs: "cuMemcpyHtoD_v2" is the
  // function's own name.
  llvm::StringRef Base = Name.rtrim("0123456789");
  if (Domain == CUPTI_CB_DOMAIN_RUNTIME_API && Base.size() < Name.size() &&
      Base.consume_back("_v") && !Base.empty())
    Name = Base;
  ApiNames[uint64_t(Domain) << 32 | Cbid] = M.Strings.intern(Name);
}

void CuptiModelBuilder::add(const CUpti_Activity *Record) {
  ++M.Stats.Events;
  // Each cast is to the struct CUPTI writes for that kind (CuptiRecords.h).
  switch (bitsOf(Record->kind)) {
  case CUPTI_ACTIVITY_KIND_KERNEL:
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    return addKernel(*reinterpret_cast<const KernelRecord *>(Record));
  case CUPTI_ACTIVITY_KIND_MEMCPY:
    return addCopy(*reinterpret_cast<const MemcpyRecord *>(Record));
  case CUPTI_ACTIVITY_KIND_MEMCPY2:
    return addCopy(*reinterpret_cast<const PeerMemcpyRecord *>(Record));
  case CUPTI_ACTIVITY_KIND_MEMSET:
    return addMemset(*reinterpret_cast<const MemsetRecord *>(Record));
  case CUPTI_ACTIVITY_KIND_RUNTIME:
  case CUPTI_ACTIVITY_KIND_DRIVER:
    return addApi(*reinterpret_cast<const ApiRecord *>(Record));
  case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
    return addSynchronization(
        *reinterpret_cast<const SynchronizationRecord *>(Record));
  case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
    return addCudaEvent(*reinterpret_cast<const CudaEventRecord *>(Record));
  case CUPTI_ACTIVITY_KIND_MARKER:
    return addMarker(*reinterpret_cast<const MarkerRecord *>(Record));
  case CUPTI_ACTIVITY_KIND_DEVICE:
    return addDevice(*reinterpret_cast<const DeviceRecord *>(Record));
  case CUPTI_ACTIVITY_KIND_CONTEXT: {
    const auto &C = *reinterpret_cast<const ContextRecord *>(Record);
    ContextDevice[C.contextId] = deviceId(C.deviceId);
    return;
  }
  case CUPTI_ACTIVITY_KIND_NAME:
    return addName(*reinterpret_cast<const NameRecord *>(Record));
  case CUPTI_ACTIVITY_KIND_MEMORY2:
    return addMemory(*reinterpret_cast<const trace::MemoryRecord *>(Record));
  case CUPTI_ACTIVITY_KIND_OVERHEAD: {
    // The tracer's own time on a thread: reported, not modelled, so that
    // the tracer's overhead shows and a replay does not include it twice.
    const auto &O = *reinterpret_cast<const OverheadRecord *>(Record);
    if (O.end > O.start)
      M.Stats.TracerOverheadNs += O.end - O.start;
    return;
  }
  case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
    // Links a correlation to a framework's id (PyTorch's op ids). Not used:
    // calls are attributed by containment, the rule every front-end follows
    // (docs/Import.md), because such ids are not reliable across versions.
  case CUPTI_ACTIVITY_KIND_MARKER_DATA:
    // Colour and category of an NVTX range: nothing the model uses.
  default:
    ++M.Stats.SkippedOther;
    return;
  }
}

void CuptiModelBuilder::addKernel(const KernelRecord &R) {
  if (!R.name) {
    ++M.Stats.MissingFields;
    return;
  }
  GpuActivity A;
  A.StartNs = ns(R.start);
  A.EndNs = ns(R.end);
  A.Stream = M.stream(deviceId(R.deviceId), R.streamId);
  A.Name = intern(R.name);
  A.Correlation = correlation(R.correlationId);
  A.Kind = isNcclKernel(R.name) ? TaskKind::Collective : TaskKind::Kernel;
  A.HasAttrs = true;
  const int32_t Grid[3] = {R.gridX, R.gridY, R.gridZ};
  const int32_t Block[3] = {R.blockX, R.blockY, R.blockZ};
  for (int D = 0; D < 3; ++D) {
    A.Attrs.Grid[D] = clamp32(Grid[D]);
    A.Attrs.Block[D] = clamp32(Block[D]);
  }
  A.Attrs.RegistersPerThread = R.registersPerThread;
  A.Attrs.SharedMemBytes =
      clamp32(int64_t(R.staticSharedMemory) + R.dynamicSharedMemory);
  M.Activities.push_back(A);
}

/// The fields every GPU activity record has, under the same names.
template <typename RecordT>
GpuActivity CuptiModelBuilder::activity(const RecordT &R, TaskKind Kind) {
  GpuActivity A;
  A.StartNs = ns(R.start);
  A.EndNs = ns(R.end);
  A.Stream = M.stream(deviceId(R.deviceId), R.streamId);
  A.Correlation = correlation(R.correlationId);
  A.Kind = Kind;
  A.HasAttrs = true;
  A.Attrs.Bytes = R.bytes;
  return A;
}

/// Copies within a device or between host and device (MEMCPY) and between
/// devices (MEMCPY2) differ only in where their sources and destinations are.
template <typename RecordT> void CuptiModelBuilder::addCopy(const RecordT &R) {
  GpuActivity A = activity(R, TaskKind::Memcpy);
  A.Name = M.Strings.intern(memcpyName(R.copyKind));
  A.Attrs.CopyKind = copyKind(R.copyKind);
  M.Activities.push_back(A);
}

void CuptiModelBuilder::addMemset(const MemsetRecord &R) {
  GpuActivity A = activity(R, TaskKind::Memset);
  A.Name = M.Strings.intern("Memset");
  M.Activities.push_back(A);
}

void CuptiModelBuilder::addApi(const ApiRecord &R) {
  bool Runtime = bitsOf(R.kind) == CUPTI_ACTIVITY_KIND_RUNTIME;
  uint32_t Domain =
      Runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
  auto [NameIt, NewName] =
      ApiNames.try_emplace(uint64_t(Domain) << 32 | R.cbid);
  if (NewName)
    NameIt->second = M.Strings.intern(
        (llvm::Twine(Runtime ? "cudaRuntimeApi#" : "cudaDriverApi#") +
         llvm::Twine(R.cbid))
            .str());
  auto [KindIt, NewKind] = ApiKinds.try_emplace(NameIt->second);
  if (NewKind)
    KindIt->second = classifyApi(M.Strings.get(NameIt->second));
  M.Calls.push_back(ApiCall{ns(R.start), ns(R.end),
                            M.thread(R.processId, R.threadId), NameIt->second,
                            correlation(R.correlationId), KindIt->second});
}

void CuptiModelBuilder::addSynchronization(const SynchronizationRecord &R) {
  PendingSync P{SyncRecord(), R.contextId, R.cudaEventId, R.cudaEventSyncId};
  SyncRecord &S = P.S;
  switch (bitsOf(R.type)) {
  case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
    S.Kind = ApiKind::EventSync;
    break;
  case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
    S.Kind = ApiKind::StreamWaitEvent;
    S.Stream = optionalId(R.streamId);
    break;
  case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
    S.Kind = ApiKind::StreamSync;
    S.Stream = optionalId(R.streamId);
    break;
  case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
    S.Kind = ApiKind::DeviceSync;
    break;
  default:
    ++M.Stats.SkippedOther;
    return;
  }
  S.Correlation = correlation(R.correlationId);
  Syncs.push_back(P);
}

void CuptiModelBuilder::addCudaEvent(const CudaEventRecord &R) {
  EventRecords.push_back({R.eventId, correlation(R.correlationId), R.contextId,
                          R.streamId, R.cudaEventSyncId});
}

void CuptiModelBuilder::addMarker(const MarkerRecord &R) {
  // Only ranges matter; instantaneous marks and synchronization markers do
  // not become tasks.
  bool Start = bitsOf(R.flags) & CUPTI_ACTIVITY_FLAG_MARKER_START;
  bool End = bitsOf(R.flags) & CUPTI_ACTIVITY_FLAG_MARKER_END;
  if (!Start && !End) {
    ++M.Stats.SkippedOther;
    return;
  }
  uint32_t Thread = NoId;
  if (bitsOf(R.objectKind) == CUPTI_ACTIVITY_OBJECT_THREAD ||
      bitsOf(R.objectKind) == CUPTI_ACTIVITY_OBJECT_PROCESS)
    Thread = M.thread(R.objectId.pt.processId, R.objectId.pt.threadId);
  MarkerEdge E{R.id, ns(R.timestamp), Thread, Start ? intern(R.name) : NoId};
  (Start ? MarkerStarts : MarkerEnds).push_back(E);
}

void CuptiModelBuilder::addDevice(const DeviceRecord &R) {
  Device D;
  D.Index = deviceId(R.id);
  D.Name = repairedUtf8(R.name ? R.name : "");
  D.SmCount = int32_t(clamp32(R.numMultiprocessors));
  D.MemoryBytes = R.globalMemorySize;
  // CUPTI gives kB/s.
  D.MemoryBandwidthGBps = double(R.globalMemoryBandwidth) * 1e3 / 1e9;
  for (const Device &Known : M.Meta.Devices)
    if (Known.Index == D.Index)
      return;
  M.Meta.Devices.push_back(std::move(D));
}

void CuptiModelBuilder::addName(const NameRecord &R) {
  // nvtxNameOsThread: a thread's name.
  if (bitsOf(R.objectKind) != CUPTI_ACTIVITY_OBJECT_THREAD || !R.name) {
    ++M.Stats.SkippedOther;
    return;
  }
  uint32_t T = M.thread(R.objectId.pt.processId, R.objectId.pt.threadId);
  M.Threads[T].Name = intern(R.name);
}

void CuptiModelBuilder::addMemory(const trace::MemoryRecord &R) {
  bool Alloc = bitsOf(R.memoryOperationType) ==
               CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
  bool Free = bitsOf(R.memoryOperationType) ==
              CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
  if (!Alloc && !Free) {
    ++M.Stats.MissingFields;
    return;
  }
  if (R.bytes == 0 || R.bytes > uint64_t(INT64_MAX)) {
    ++M.Stats.InvalidFields;
    return;
  }
  PendingMemory P;
  P.R.TimeNs = ns(R.timestamp);
  P.R.Bytes = Alloc ? int64_t(R.bytes) : -int64_t(R.bytes);
  P.R.Address = R.address;
  P.R.Device = isDeviceMemory(bitsOf(R.memoryKind)) ? deviceId(R.deviceId) : -1;
  P.R.Thread = NoId;
  P.Correlation = correlation(R.correlationId);
  Memory.push_back(P);
}

int32_t CuptiModelBuilder::deviceOfContext(uint32_t Context) const {
  auto It = ContextDevice.find(Context);
  return It == ContextDevice.end() ? -1 : It->second;
}

void CuptiModelBuilder::pairMarkers() {
  // Ids are unique within a process; a range left open when tracing
  // stopped has no end and is counted as incomplete.
  llvm::sort(MarkerEnds);
  for (const MarkerEdge &S : MarkerStarts) {
    auto It = llvm::lower_bound(MarkerEnds, S);
    if (S.Name == NoId || S.Thread == NoId || It == MarkerEnds.end() ||
        It->Id != S.Id || It->TimeNs < S.TimeNs) {
      ++M.Stats.MissingFields;
      continue;
    }
    bool Step = isStepName(M.Strings.get(S.Name));
    M.Ranges.push_back(
        CpuRange{S.TimeNs, It->TimeNs, S.Thread, S.Name,
                 Step ? RangeKind::Step : RangeKind::Annotation});
  }
  MarkerStarts.clear();
  MarkerEnds.clear();
}

void CuptiModelBuilder::resolveSyncs() {
  // A wait names an event; the record it waited for is the one with the
  // same sync id (CUDA 12.x and later), else the event's latest record
  // before the wait.
  std::unordered_map<uint64_t, const EventRecordInfo *> BySyncId;
  std::vector<EventRecord> Sorted;
  for (const EventRecordInfo &E : EventRecords) {
    if (E.SyncId)
      BySyncId[E.SyncId] = &E;
    Sorted.push_back({E.Event, E.Correlation, optionalId(E.Stream)});
  }
  llvm::sort(Sorted);
  for (PendingSync &P : Syncs) {
    SyncRecord &S = P.S;
    S.Device = deviceOfContext(P.Context);
    if (S.Kind == ApiKind::EventSync || S.Kind == ApiKind::StreamWaitEvent) {
      auto It = P.EventSyncId ? BySyncId.find(P.EventSyncId) : BySyncId.end();
      if (It != BySyncId.end()) {
        S.WaitOnStream = optionalId(It->second->Stream);
        S.EventRecordCorrelation = It->second->Correlation;
      } else if (const EventRecord *Waited =
                     findWaitedRecord(Sorted, P.Event, S.Correlation)) {
        S.WaitOnStream = Waited->Stream;
        S.EventRecordCorrelation = Waited->Correlation;
      }
    }
    M.Syncs.push_back(S);
  }
  Syncs.clear();
  EventRecords.clear();
}

void CuptiModelBuilder::attributeMemory() {
  // Memory records name the call that allocated or freed (cudaMalloc,
  // cudaFree), not its thread.
  std::unordered_map<uint32_t, uint32_t> ThreadOfCall;
  for (PendingMemory &P : Memory)
    if (P.Correlation)
      ThreadOfCall.try_emplace(P.Correlation, NoId);
  for (const ApiCall &C : M.Calls) {
    auto It = ThreadOfCall.find(C.Correlation);
    if (It != ThreadOfCall.end())
      It->second = C.Thread;
  }
  for (PendingMemory &P : Memory) {
    auto It = ThreadOfCall.find(P.Correlation);
    if (It != ThreadOfCall.end())
      P.R.Thread = It->second;
    M.Memory.push_back(P.R);
  }
  Memory.clear();
}

void CuptiModelBuilder::dropUnlaunchedWork() {
  std::unordered_map<uint32_t, bool> Launched;
  for (size_t I = FirstCall; I != M.Calls.size(); ++I)
    Launched[M.Calls[I].Correlation] = true;
  auto Kept = std::stable_partition(
      M.Activities.begin() + FirstActivity, M.Activities.end(),
      [&](const GpuActivity &A) { return Launched.count(A.Correlation); });
  M.Stats.SkippedOther += M.Activities.end() - Kept;
  M.Activities.erase(Kept, M.Activities.end());
}

void CuptiModelBuilder::finishProcess() {
  pairMarkers();
  resolveSyncs();
  attributeMemory();
  if (Windowed)
    dropUnlaunchedWork();
  ContextDevice.clear();
  Windowed = false;
  FirstCall = M.Calls.size();
  FirstActivity = M.Activities.size();
}

void CuptiModelBuilder::beginProcess() {
  finishProcess();
  CorrelationBase = MaxCorrelation;
}

TraceModel CuptiModelBuilder::finish() {
  finishProcess();
  TraceModel Out = std::move(M);
  M = TraceModel();
  M.Meta.SourceFormat = "cupti";
  ApiNames.clear();
  ApiKinds.clear();
  CorrelationBase = MaxCorrelation = 0;
  FirstCall = FirstActivity = 0;
  return Out;
}
