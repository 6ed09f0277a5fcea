//===- KinetoWriter.cpp - A TraceModel as PyTorch profiler JSON -----------===//
//
// One pass per model array, in the array's order, so that the front-end
// reading the file back pushes every event to the same index it came from
// (the lowering's stable sorts then meet the same ties). Metadata events go
// first; they create no thread. See KinetoWriter.h for the mapping.
//
//===----------------------------------------------------------------------===//

#include "daydream/Synth/KinetoWriter.h"

#include "JsonBuffer.h"

#include "daydream/Support/GzipStream.h"
#include "daydream/Support/OutputFile.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FileSystem.h"

#include <utility>

using namespace dd;
using namespace dd::import;
using namespace dd::synth;
using llvm::StringRef;

namespace {

/// The CUPTI callback id the profiler records with each runtime call.
int64_t callbackId(StringRef Name) {
  static const std::pair<StringRef, int64_t> Ids[] = {
      {"cudaLaunchKernel", 211},      {"cudaMemcpyAsync", 41},
      {"cudaMemsetAsync", 51},        {"cudaStreamSynchronize", 131},
      {"cudaEventRecord", 135},       {"cudaStreamWaitEvent", 147},
      {"cudaDeviceSynchronize", 165},
  };
  for (const auto &[Api, Id] : Ids)
    if (Api == Name)
      return Id;
  return 0;
}

/// What a collective kernel's "Collective name" arg says, from its name.
StringRef collectiveName(StringRef Kernel) {
  if (Kernel.contains("AllReduce"))
    return "allreduce";
  if (Kernel.contains("AllGather"))
    return "_allgather_base";
  if (Kernel.contains("ReduceScatter"))
    return "_reduce_scatter_base";
  if (Kernel.contains("SendRecv"))
    return "all_to_all";
  if (Kernel.contains("Broadcast"))
    return "broadcast";
  return "collective";
}

StringRef syncName(ApiKind K) {
  switch (K) {
  case ApiKind::StreamSync:
    return "Stream Sync";
  case ApiKind::EventSync:
    return "Event Sync";
  case ApiKind::DeviceSync:
    return "Context Sync";
  case ApiKind::StreamWaitEvent:
    return "Stream Wait Event";
  default:
    return "Unknown";
  }
}

class Writer {
public:
  Writer(const TraceModel &M, llvm::raw_ostream &OS)
      : M(M), Out(OS), Quoted(M.Strings.size()),
        Callbacks(M.Strings.size(), -1) {}

  void write(StringRef TraceName);

private:
  /// The JSON string of name \p Id, escaped once however often it is used.
  StringRef name(StrId Id) {
    std::string &Q = Quoted[Id];
    if (Q.empty())
      Q = JsonBuffer::quote(M.Strings.get(Id));
    return Q;
  }
  /// callbackId() of name \p Id, looked up once.
  int64_t callback(StrId Id) {
    if (Callbacks[Id] < 0)
      Callbacks[Id] = callbackId(M.Strings.get(Id));
    return Callbacks[Id];
  }
  void ts(int64_t Ns) { Out.fixed(Ns, 3); }
  /// ,"ts":..,"dur":.. of an interval.
  void interval(int64_t Start, int64_t End) {
    Out << ",\"ts\":";
    ts(Start);
    Out << ",\"dur\":";
    ts(End - Start);
  }
  void header();
  void metadata();
  void ranges();
  void calls();
  void activities();
  void syncs();
  void memory();
  void event() {
    if (!First)
      Out << ",\n";
    First = false;
  }
  int64_t smsOf(int32_t Device) const {
    for (const dd::Device &D : M.Meta.Devices)
      if (D.Index == Device)
        return D.SmCount;
    return 0;
  }

  const TraceModel &M;
  JsonBuffer Out;
  std::vector<std::string> Quoted;
  std::vector<int64_t> Callbacks;
  bool First = true;
};

void Writer::header() {
  Out << "{\n\"schemaVersion\":1,\n\"deviceProperties\":[";
  for (size_t I = 0; I != M.Meta.Devices.size(); ++I) {
    const Device &D = M.Meta.Devices[I];
    Out << (I ? ",\n" : "\n") << "{\"id\":" << D.Index
        << ",\"name\":" << JsonBuffer::quote(D.Name)
        << ",\"totalGlobalMem\":" << D.MemoryBytes
        << ",\"numSms\":" << D.SmCount << "}";
  }
  Out << "],\n";
  if (!M.Meta.Ranks.empty()) {
    const RankInfo &R = M.Meta.Ranks.front();
    Out << "\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":" << R.Rank;
    if (R.WorldSize > 0)
      Out << ",\"world_size\":" << R.WorldSize;
    Out << "},\n";
  }
}

void Writer::metadata() {
  // Process labels first, as the profiler writes them; then thread and
  // stream names ("stream 7 " with the profiler's trailing space).
  llvm::DenseSet<int64_t> Pids;
  for (const ThreadInfo &T : M.Threads)
    if (Pids.insert(T.Pid).second) {
      event();
      Out << "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" << T.Pid
          << ",\"tid\":0,\"args\":{\"name\":\"python\"}},\n";
      Out << "{\"name\":\"process_labels\",\"ph\":\"M\",\"pid\":" << T.Pid
          << ",\"tid\":0,\"args\":{\"labels\":\"CPU\"}}";
    }
  llvm::DenseSet<int32_t> Devices;
  for (const StreamInfo &S : M.Streams)
    if (Devices.insert(S.Device).second) {
      event();
      Out << "{\"name\":\"process_labels\",\"ph\":\"M\",\"pid\":" << S.Device
          << ",\"tid\":0,\"args\":{\"labels\":\"GPU " << S.Device << "\"}}";
    }
  for (const ThreadInfo &T : M.Threads)
    if (T.Name != NoId) {
      event();
      Out << "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" << T.Pid
          << ",\"tid\":" << T.Tid << ",\"args\":{\"name\":" << name(T.Name)
          << "}}";
    }
  for (const StreamInfo &S : M.Streams)
    if (S.Name != NoId) {
      std::string Spaced = (M.Strings.get(S.Name) + " ").str();
      event();
      Out << "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" << S.Device
          << ",\"tid\":" << S.Stream
          << ",\"args\":{\"name\":" << JsonBuffer::quote(Spaced) << "}}";
    }
}

void Writer::ranges() {
  int64_t External = 0;
  for (const CpuRange &R : M.Ranges) {
    const ThreadInfo &T = M.Threads[R.Thread];
    StringRef Cat = R.Kind == RangeKind::Op       ? "cpu_op"
                    : R.Kind == RangeKind::Module ? "python_function"
                                                  : "user_annotation";
    event();
    Out << "{\"ph\":\"X\",\"cat\":\"" << Cat << "\",\"name\":" << name(R.Name)
        << ",\"pid\":" << T.Pid << ",\"tid\":" << T.Tid;
    interval(R.StartNs, R.EndNs);
    Out << ",\"args\":{\"External id\":" << ++External << "}}";
  }
}

void Writer::calls() {
  for (const ApiCall &C : M.Calls) {
    const ThreadInfo &T = M.Threads[C.Thread];
    event();
    Out << "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":" << name(C.Name)
        << ",\"pid\":" << T.Pid << ",\"tid\":" << T.Tid;
    interval(C.StartNs, C.EndNs);
    Out << ",\"args\":{";
    if (C.Correlation)
      Out << "\"External id\":" << C.Correlation << ",";
    Out << "\"cbid\":" << callback(C.Name);
    if (C.Correlation)
      Out << ",\"correlation\":" << C.Correlation;
    Out << "}}";
    // The flow arrow to the GPU work, as Kineto draws it.
    if (C.Correlation &&
        (C.Kind == ApiKind::Launch || C.Kind == ApiKind::Memcpy ||
         C.Kind == ApiKind::Memset)) {
      Out << ",\n{\"ph\":\"s\",\"id\":" << C.Correlation << ",\"pid\":" << T.Pid
          << ",\"tid\":" << T.Tid << ",\"ts\":";
      ts(C.StartNs);
      Out << ",\"cat\":\"ac2g\",\"name\":\"ac2g\"}";
    }
  }
}

void Writer::activities() {
  for (const GpuActivity &A : M.Activities) {
    const StreamInfo &S = M.Streams[A.Stream];
    const TaskAttrs &T = A.Attrs;
    StringRef Cat = A.Kind == TaskKind::Memcpy   ? "gpu_memcpy"
                    : A.Kind == TaskKind::Memset ? "gpu_memset"
                                                 : "kernel";
    event();
    Out << "{\"ph\":\"X\",\"cat\":\"" << Cat << "\",\"name\":" << name(A.Name)
        << ",\"pid\":" << S.Device << ",\"tid\":" << S.Stream;
    interval(A.StartNs, A.EndNs);
    Out << ",\"args\":{";
    if (A.Correlation)
      Out << "\"External id\":" << A.Correlation << ",";
    if (Cat == "kernel")
      Out << "\"queued\":0,";
    Out << "\"device\":" << S.Device
        << ",\"context\":1,\"stream\":" << S.Stream;
    if (A.Correlation)
      Out << ",\"correlation\":" << A.Correlation;
    if (Cat != "kernel") {
      if (A.HasAttrs) {
        Out << ",\"bytes\":" << T.Bytes << ",\"memory bandwidth (GB/s)\":";
        int64_t Dur = std::max<int64_t>(1, A.EndNs - A.StartNs);
        Out.fixed(int64_t(T.Bytes * 1000 / uint64_t(Dur)), 3);
      }
    } else if (A.HasAttrs) {
      Out << ",\"registers per thread\":" << uint32_t(T.RegistersPerThread)
          << ",\"shared memory\":" << T.SharedMemBytes;
      if (int64_t Sms = smsOf(S.Device)) {
        uint64_t Blocks = uint64_t(T.Grid[0]) * T.Grid[1] * T.Grid[2];
        uint64_t Warps =
            (uint64_t(T.Block[0]) * T.Block[1] * T.Block[2] + 31) / 32;
        Out << ",\"blocks per SM\":";
        Out.fixed(int64_t(Blocks * 1000000 / uint64_t(Sms)), 6);
        Out << ",\"warps per SM\":";
        Out.fixed(int64_t(Blocks * Warps * 1000000 / uint64_t(Sms)), 6);
      }
      Out << ",\"grid\":[" << T.Grid[0] << "," << T.Grid[1] << "," << T.Grid[2]
          << "],\"block\":[" << T.Block[0] << "," << T.Block[1] << ","
          << T.Block[2] << "]";
      if (A.Kind == TaskKind::Collective && T.Bytes) {
        bool Floats = T.Bytes % 4 == 0;
        uint64_t Elems = Floats ? T.Bytes / 4 : T.Bytes;
        int64_t Group = M.Meta.Ranks.empty() ? 0 : M.Meta.Ranks[0].WorldSize;
        if (A.GroupRanks != NoId)
          Group = 1 + int64_t(M.Strings.get(A.GroupRanks).count(','));
        Out << ",\"Collective name\":\""
            << collectiveName(M.Strings.get(A.Name))
            << "\",\"In msg nelems\":" << Elems
            << ",\"Out msg nelems\":" << Elems << ",\"Group size\":" << Group
            << ",\"dtype\":\"" << (Floats ? "Float" : "Byte") << "\"";
      }
      // The group as 2024+ traces name it; none for the world, as before.
      if (A.Kind == TaskKind::Collective && A.Group != NoId)
        Out << ",\"Process Group Name\":" << name(A.Group);
      if (A.Kind == TaskKind::Collective && A.GroupRanks != NoId)
        Out << ",\"Process Group Ranks\":" << name(A.GroupRanks);
    }
    Out << "}}";
    if (A.Correlation) {
      Out << ",\n{\"ph\":\"f\",\"id\":" << A.Correlation
          << ",\"pid\":" << S.Device << ",\"tid\":" << S.Stream << ",\"ts\":";
      ts(A.StartNs);
      Out << ",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}";
    }
  }
}

void Writer::syncs() {
  if (M.Syncs.empty())
    return;
  // A cuda_sync event spans the call it records.
  llvm::DenseMap<uint32_t, uint32_t> CallOf;
  for (uint32_t I = 0; I != M.Calls.size(); ++I)
    if (M.Calls[I].Kind >= ApiKind::DeviceSync && M.Calls[I].Correlation)
      CallOf.try_emplace(M.Calls[I].Correlation, I);
  for (const SyncRecord &S : M.Syncs) {
    auto It = CallOf.find(S.Correlation);
    int64_t Start = 0, End = 0;
    if (It != CallOf.end()) {
      Start = M.Calls[It->second].StartNs;
      End = S.Kind == ApiKind::StreamWaitEvent ? Start
                                               : M.Calls[It->second].EndNs;
    }
    event();
    Out << "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"" << syncName(S.Kind)
        << "\",\"pid\":";
    // A record without a device has a pid that names none.
    if (S.Device >= 0)
      Out << S.Device;
    else
      Out << "\"\"";
    Out << ",\"tid\":" << S.Stream;
    interval(Start, End);
    Out << ",\"args\":{\"cuda_sync_kind\":\"" << syncName(S.Kind) << "\"";
    if (S.WaitOnStream != -1)
      Out << ",\"wait_on_stream\":" << S.WaitOnStream;
    if (S.Kind == ApiKind::StreamWaitEvent || S.Kind == ApiKind::EventSync)
      Out << ",\"wait_on_cuda_event_record_corr_id\":"
          << (S.EventRecordCorrelation ? int64_t(S.EventRecordCorrelation)
                                       : int64_t(-1));
    Out << ",\"stream\":" << S.Stream;
    if (S.Correlation)
      Out << ",\"correlation\":" << S.Correlation;
    if (S.Device >= 0)
      Out << ",\"device\":" << S.Device;
    Out << ",\"context\":1}}";
  }
}

void Writer::memory() {
  for (const MemoryRecord &R : M.Memory) {
    const ThreadInfo &T = M.Threads[R.Thread];
    event();
    Out << "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\","
           "\"name\":\"[memory]\",\"pid\":"
        << T.Pid << ",\"tid\":" << T.Tid << ",\"ts\":";
    ts(R.TimeNs);
    Out << ",\"args\":{\"Device Type\":" << (R.Device >= 0 ? 1 : 0)
        << ",\"Device Id\":" << R.Device << ",\"Addr\":" << R.Address
        << ",\"Bytes\":" << R.Bytes
        << ",\"Total Allocated\":" << R.TotalAllocated
        << ",\"Total Reserved\":" << R.TotalReserved << "}}";
  }
}

void Writer::write(StringRef TraceName) {
  header();
  Out << "\"traceName\":" << JsonBuffer::quote(TraceName)
      << ",\n\"displayTimeUnit\":\"ms\",\n\"traceEvents\":[\n";
  metadata();
  ranges();
  calls();
  activities();
  syncs();
  memory();
  Out << "\n]}\n";
  Out.flush();
}

} // namespace

void dd::synth::writeKinetoTrace(const TraceModel &M, StringRef TraceName,
                                 llvm::raw_ostream &OS) {
  Writer(M, OS).write(TraceName);
}

llvm::Error dd::synth::writeKinetoFile(const TraceModel &M, OutputFile &Out,
                                       StringRef TraceName) {
  return writeGzippedIfNamed(
      Out, [&](llvm::raw_ostream &OS) { writeKinetoTrace(M, TraceName, OS); });
}
