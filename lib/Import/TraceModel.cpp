//===- TraceModel.cpp - Trace events, before dependencies -----------------===//
//
// Thread and stream interning, and the table that tells what an API call does
// from its name (CUDA runtime, CUDA driver and HIP spellings).
//
//===----------------------------------------------------------------------===//

#include "daydream/Import/TraceModel.h"

#include "llvm/ADT/StringSwitch.h"

using namespace dd;
using namespace dd::import;

uint32_t TraceModel::thread(int64_t Pid, int64_t Tid) {
  auto [It, New] = ThreadIndex.try_emplace({Pid, Tid}, Threads.size());
  if (New)
    Threads.push_back(ThreadInfo{Pid, Tid, NoId});
  return It->second;
}

uint32_t TraceModel::stream(int32_t Device, int64_t Stream) {
  auto [It, New] = StreamIndex.try_emplace({Device, Stream}, Streams.size());
  if (New)
    Streams.push_back(StreamInfo{Device, Stream, NoId});
  return It->second;
}

uint32_t TraceModel::findStream(int32_t Device, int64_t Stream) const {
  if (Device >= 0) {
    auto It = StreamIndex.find({Device, Stream});
    return It == StreamIndex.end() ? NoId : It->second;
  }
  // Records that do not say which device: the first stream with that id.
  for (uint32_t S = 0; S != Streams.size(); ++S)
    if (Streams[S].Stream == Stream)
      return S;
  return NoId;
}

ApiKind dd::import::classifyApi(llvm::StringRef Name) {
  // Version suffixes (_v2, _ptsz, _ptds) do not change what a call does.
  llvm::StringRef Base = Name.split("_v").first;
  Base.consume_back("_ptsz");
  Base.consume_back("_ptds");
  ApiKind K = llvm::StringSwitch<ApiKind>(Base)
                  .Cases("cudaDeviceSynchronize", "cuCtxSynchronize",
                         "hipDeviceSynchronize", "hipCtxSynchronize",
                         ApiKind::DeviceSync)
                  .Cases("cudaStreamSynchronize", "cuStreamSynchronize",
                         "hipStreamSynchronize", ApiKind::StreamSync)
                  .Cases("cudaEventSynchronize", "cuEventSynchronize",
                         "hipEventSynchronize", ApiKind::EventSync)
                  .Cases("cudaEventRecord", "cudaEventRecordWithFlags",
                         "cuEventRecord", "cuEventRecordWithFlags",
                         "hipEventRecord", ApiKind::EventRecord)
                  .Cases("cudaStreamWaitEvent", "cuStreamWaitEvent",
                         "hipStreamWaitEvent", ApiKind::StreamWaitEvent)
                  .Default(ApiKind::Other);
  if (K != ApiKind::Other)
    return K;
  if (Base.contains("LaunchKernel") ||
      Base.contains("LaunchCooperativeKernel") || Base == "cudaGraphLaunch" ||
      Base == "cuGraphLaunch" || Base == "hipGraphLaunch" ||
      Base.startswith("hipExtLaunch") || Base == "hipModuleLaunchKernel")
    return ApiKind::Launch;
  if (Base.contains("Memcpy") || Base.contains("memcpy"))
    return ApiKind::Memcpy;
  if (Base.contains("Memset") || Base.contains("memset"))
    return ApiKind::Memset;
  return ApiKind::Other;
}
