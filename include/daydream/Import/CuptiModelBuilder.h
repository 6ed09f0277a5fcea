//===- CuptiModelBuilder.h - CUPTI activity records to a TraceModel -*- C++
//-*-===//
//
// The dd-trace front-end: CUPTI activity records, exactly the structs CUPTI
// hands libddtrace.so (CuptiRecords.h), become the TraceModel that every
// importer fills, so that dd-trace's graphs follow the same dependency,
// layer and phase rules as dd-import's (Lowering.h). The .ddrec reader
// (CuptiRecordReader.h) feeds it the records of a file; unit tests feed it
// records they build.
//
// Records may come in any order: CUPTI delivers each kind from its own
// buffers. Pairing (NVTX range starts with their ends, waits with the event
// records they waited for, memory events with the calls that made them)
// happens in finish().
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IMPORT_CUPTIMODELBUILDER_H
#define DAYDREAM_IMPORT_CUPTIMODELBUILDER_H

#include "daydream/Import/TraceModel.h"
#include "daydream/Trace/CuptiRecords.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace dd::import {

class CuptiModelBuilder {
public:
  CuptiModelBuilder();

  /// Names callback \p Cbid of \p Domain (CUPTI_CB_DOMAIN_RUNTIME_API or
  /// _DRIVER_API): API records carry only the id. An API never named gets a
  /// placeholder name ("cudaRuntimeApi#<id>") and does nothing special.
  void setApiName(uint32_t Domain, uint32_t Cbid, llvm::StringRef Name);

  /// Adds one record. Kinds the model has no use for are counted as
  /// skipped, never an error.
  void add(const CUpti_Activity *Record);

  /// Records CUPTI dropped (no buffer was free), as the writer reported.
  void addDropped(uint64_t Count) { M.Stats.DroppedRecords += Count; }

  /// Says that this process was traced for a window of iterations only
  /// (dd-trace -window): its GPU records then include work of the
  /// iteration after the window, whose launches were not recorded, and
  /// GPU work without a recorded launch is left out.
  void setWindowed() { Windowed = true; }

  /// Starts the records of another process. CUPTI numbers correlations,
  /// contexts and events per process, so what came before is paired now
  /// and later correlation ids are moved past the earlier ones.
  void beginProcess();

  /// Pairs what needs pairing and returns the model. The builder is empty
  /// afterwards.
  TraceModel finish();

private:
  void addKernel(const trace::KernelRecord &R);
  template <typename RecordT>
  GpuActivity activity(const RecordT &R, TaskKind Kind);
  template <typename RecordT> void addCopy(const RecordT &R);
  void addMemset(const trace::MemsetRecord &R);
  void addApi(const trace::ApiRecord &R);
  void addSynchronization(const trace::SynchronizationRecord &R);
  void addCudaEvent(const trace::CudaEventRecord &R);
  void addMarker(const trace::MarkerRecord &R);
  void addDevice(const trace::DeviceRecord &R);
  void addName(const trace::NameRecord &R);
  void addMemory(const trace::MemoryRecord &R);

  void finishProcess();
  void dropUnlaunchedWork();
  void pairMarkers();
  void resolveSyncs();
  void attributeMemory();

  StrId intern(const char *S) { return S ? M.Strings.intern(S) : NoId; }
  int32_t deviceOfContext(uint32_t Context) const;
  uint32_t correlation(uint32_t Id) {
    if (Id == 0)
      return 0;
    MaxCorrelation = std::max(MaxCorrelation, CorrelationBase + Id);
    return CorrelationBase + Id;
  }

  TraceModel M;
  uint32_t CorrelationBase = 0, MaxCorrelation = 0;
  bool Windowed = false;
  /// Where this process's calls and GPU work begin in the model.
  size_t FirstCall = 0, FirstActivity = 0;
  // Keyed by ids read from files, which may take any value: std maps, since
  // DenseMap reserves two values of each key type.
  std::unordered_map<uint64_t, StrId> ApiNames; ///< (domain << 32 | cbid)
  llvm::DenseMap<StrId, ApiKind> ApiKinds;
  std::unordered_map<uint32_t, int32_t> ContextDevice;

  /// One end of an NVTX range (push/pop or start/end), paired by id.
  struct MarkerEdge {
    uint32_t Id;
    int64_t TimeNs;
    uint32_t Thread;
    StrId Name;
    bool operator<(const MarkerEdge &O) const { return Id < O.Id; }
  };
  std::vector<MarkerEdge> MarkerStarts, MarkerEnds;
  struct PendingSync {
    SyncRecord S;
    uint32_t Context;
    uint32_t Event;
    uint64_t EventSyncId;
  };
  std::vector<PendingSync> Syncs;
  struct EventRecordInfo {
    uint32_t Event, Correlation, Context, Stream;
    uint64_t SyncId;
  };
  std::vector<EventRecordInfo> EventRecords;
  struct PendingMemory {
    MemoryRecord R;
    uint32_t Correlation;
  };
  std::vector<PendingMemory> Memory;
};

} // namespace dd::import

#endif // DAYDREAM_IMPORT_CUPTIMODELBUILDER_H
