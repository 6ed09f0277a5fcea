//===- NsysActivities.cpp - nsys CUPTI and NVTX event tables --------------===//
//
// The event tables of an nsys export: runtime and driver calls, kernels,
// copies, sets and synchronization records from CUPTI, and NVTX ranges.
// Each is one streamed SELECT; names are StringIds references resolved
// through the reader's cache, and nsys's enum values are mapped to the
// TraceModel's kinds here.
//
//===----------------------------------------------------------------------===//

#include "CuptiConventions.h"
#include "NsysReaderImpl.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <tuple>

using namespace dd;
using namespace dd::import;
using namespace dd::import::nsys;
using namespace dd::import::cupti;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

/// CUPTI marks a stream or device that does not apply with 0xFFFFFFFF
/// (or -1, as some exports store it).
int64_t optionalId(const Row &R, int I) {
  if (R.null(I))
    return -1;
  int64_t V = R.i64(I);
  return V < 0 || V >= 0xFFFFFFFFLL ? -1 : V;
}

} // namespace

Error Reader::readApiCalls(StringRef Table) {
  // With --cudabacktrace, nsys writes a second row of this class for each
  // call whose stack it took: same correlation id, a slightly wider
  // interval and the unversioned name. Counting it would double the call.
  auto Backtrace = enumValue("ENUM_NSYS_EVENT_CLASS",
                             "TRACE_PROCESS_EVENT_CUDABACKTRACE", 67);
  if (!Backtrace)
    return Backtrace.takeError();
  return scan(
      Table,
      {"start", "end", "globalTid", "nameId", "?correlationId", "?eventClass"},
      [&](const Row &R) -> Error {
        if (!R.null(5) && R.i64(5) == *Backtrace) {
          ++M.Stats.SkippedOther;
          return Error::success();
        }
        Expected<StrId> Name = name(R.i64(3));
        if (!Name)
          return Name.takeError();
        if (*Name == NoId) {
          ++M.Stats.MissingFields;
          return Error::success();
        }
        auto [It, New] = ApiKinds.try_emplace(*Name);
        if (New)
          It->second = classifyApi(M.Strings.get(*Name));
        M.Calls.push_back(ApiCall{R.i64(0), R.i64(1), thread(R.i64(2)), *Name,
                                  clampTo<uint32_t>(R.i64(4)), It->second});
        return Error::success();
      });
}

Error Reader::readKernels() {
  return scan("CUPTI_ACTIVITY_KIND_KERNEL",
              {"start", "end", "deviceId", "streamId", "?correlationId",
               "?demangledName", "?shortName", "?gridX", "?gridY", "?gridZ",
               "?blockX", "?blockY", "?blockZ", "?registersPerThread",
               "?staticSharedMemory", "?dynamicSharedMemory"},
              [&](const Row &R) -> Error {
                Expected<StrId> Name = name(R, 5);
                if (Name && *Name == NoId)
                  Name = name(R, 6);
                if (!Name)
                  return Name.takeError();
                if (*Name == NoId) {
                  ++M.Stats.MissingFields;
                  return Error::success();
                }
                GpuActivity A;
                A.StartNs = R.i64(0);
                A.EndNs = R.i64(1);
                A.Stream = M.stream(clampTo<int32_t>(R.i64(2)), R.i64(3));
                A.Name = *Name;
                A.Correlation = clampTo<uint32_t>(R.i64(4));
                A.Kind = isNcclKernel(M.Strings.get(*Name))
                             ? TaskKind::Collective
                             : TaskKind::Kernel;
                A.HasAttrs = true;
                for (int D = 0; D < 3; ++D) {
                  A.Attrs.Grid[D] = clampTo<uint32_t>(R.i64(7 + D));
                  A.Attrs.Block[D] = clampTo<uint32_t>(R.i64(10 + D));
                }
                A.Attrs.RegistersPerThread = clampTo<uint16_t>(R.i64(13));
                int64_t Shared = int64_t(clampTo<uint32_t>(R.i64(14))) +
                                 clampTo<uint32_t>(R.i64(15));
                A.Attrs.SharedMemBytes = clampTo<uint32_t>(Shared);
                M.Activities.push_back(A);
                return Error::success();
              });
}

Error Reader::readCopiesAndSets() {
  llvm::DenseMap<int64_t, StrId> CopyNames;
  auto Push = [&](const Row &R, TaskKind Kind, StrId Name, uint8_t Copy) {
    GpuActivity A;
    A.StartNs = R.i64(0);
    A.EndNs = R.i64(1);
    A.Stream = M.stream(clampTo<int32_t>(R.i64(2)), R.i64(3));
    A.Name = Name;
    A.Correlation = clampTo<uint32_t>(R.i64(4));
    A.Kind = Kind;
    A.HasAttrs = true;
    A.Attrs.Bytes = clampTo<uint64_t>(R.i64(5));
    A.Attrs.CopyKind = Copy;
    M.Activities.push_back(A);
  };
  if (Error E = scan("CUPTI_ACTIVITY_KIND_MEMCPY",
                     {"start", "end", "deviceId", "streamId", "?correlationId",
                      "bytes", "copyKind"},
                     [&](const Row &R) {
                       int64_t Kind = R.i64(6);
                       auto [It, New] = CopyNames.try_emplace(Kind);
                       if (New)
                         It->second = M.Strings.intern(memcpyName(Kind));
                       Push(R, TaskKind::Memcpy, It->second, copyKind(Kind));
                       return Error::success();
                     }))
    return E;
  StrId Memset = NoId;
  return scan(
      "CUPTI_ACTIVITY_KIND_MEMSET",
      {"start", "end", "deviceId", "streamId", "?correlationId", "bytes"},
      [&](const Row &R) {
        if (Memset == NoId)
          Memset = M.Strings.intern("Memset");
        Push(R, TaskKind::Memset, Memset, 0);
        return Error::success();
      });
}

Error Reader::readSyncs() {
  // An event sync or stream wait names the event, not the record it waits
  // for: that is the event's latest cudaEventRecord before the waiting
  // call, and correlation ids grow with time.
  std::vector<EventRecord> Records;
  if (Error E = scan(
          "CUPTI_ACTIVITY_KIND_CUDA_EVENT",
          {"eventId", "correlationId", "streamId"},
          [&](const Row &R) {
            Records.push_back(
                {R.i64(0), clampTo<uint32_t>(R.i64(1)), optionalId(R, 2)});
            return Error::success();
          },
          /*Events=*/false))
    return E;
  llvm::sort(Records);

  return scan(
      "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
      {"deviceId", "?streamId", "syncType", "correlationId", "?eventId"},
      [&](const Row &R) {
        SyncRecord S;
        switch (R.i64(2)) {
        case 1:
          S.Kind = ApiKind::EventSync;
          break;
        case 2:
          S.Kind = ApiKind::StreamWaitEvent;
          S.Stream = optionalId(R, 1);
          break;
        case 3:
          S.Kind = ApiKind::StreamSync;
          S.Stream = optionalId(R, 1);
          break;
        case 4:
          S.Kind = ApiKind::DeviceSync;
          break;
        default:
          ++M.Stats.SkippedOther;
          return Error::success();
        }
        S.Correlation = clampTo<uint32_t>(R.i64(3));
        S.Device = int32_t(optionalId(R, 0));
        if ((S.Kind == ApiKind::EventSync ||
             S.Kind == ApiKind::StreamWaitEvent) &&
            !R.null(4)) {
          if (const EventRecord *Waited =
                  findWaitedRecord(Records, R.i64(4), S.Correlation)) {
            S.WaitOnStream = Waited->Stream;
            S.EventRecordCorrelation = Waited->Correlation;
          }
        }
        M.Syncs.push_back(S);
        return Error::success();
      });
}

Error Reader::readNvtx() {
  // NVTX_EVENTS holds marks, domain and thread names too; only push/pop and
  // start/end ranges (and their NVTXT-imported twins) become CPU ranges.
  int64_t Types[4];
  const char *TypeNames[] = {"NvtxPushPopRange", "NvtxStartEndRange",
                             "NvtxtPushPopRange", "NvtxtStartEndRange"};
  const int64_t Defaults[] = {59, 60, 70, 71};
  for (int I = 0; I < 4; ++I) {
    auto V = enumValue("ENUM_NSYS_EVENT_TYPE", TypeNames[I], Defaults[I]);
    if (!V)
      return V.takeError();
    Types[I] = *V;
  }
  return scan(
      "NVTX_EVENTS",
      {"start", "eventType", "?end", "?globalTid", "?text:text", "?textId"},
      [&](const Row &R) -> Error {
        if (!llvm::is_contained(Types, R.i64(1))) {
          ++M.Stats.SkippedOther;
          return Error::success();
        }
        StringRef Text = R.text(4);
        Expected<StrId> Name =
            Text.empty() ? name(R, 5) : Expected<StrId>(M.Strings.intern(Text));
        if (!Name)
          return Name.takeError();
        // An unnamed range, one left open when capture ended, or
        // one without a thread.
        if (*Name == NoId || R.null(2) || R.null(3)) {
          ++M.Stats.MissingFields;
          return Error::success();
        }
        bool Step = isStepName(M.Strings.get(*Name));
        M.Ranges.push_back(
            CpuRange{R.i64(0), R.i64(2), thread(R.i64(3)), *Name,
                     Step ? RangeKind::Step : RangeKind::Annotation});
        return Error::success();
      });
}
