//===- TracerState.h - The tracer's state, shared by its parts --*- C++ -*-===//
//
// Private to the injection library: the state behind Tracer.h and the
// helpers that Tracer.cpp (start and finish), ActivityBuffers.cpp (CUPTI's
// buffer callbacks) and WindowControl.cpp (the iteration window) share.
//
// Two locks, always taken in this order when both are needed:
//   ControlMutex  which kinds are enabled, the window; held while CUPTI is
//                 flushed, which calls bufferCompleted;
//   WriterMutex   the writer, the API names written, the dropped count;
//                 taken by bufferCompleted, so never held across a flush.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_TRACE_INJECTION_TRACERSTATE_H
#define DAYDREAM_LIB_TRACE_INJECTION_TRACERSTATE_H

#include "BufferPool.h"
#include "Config.h"
#include "CuptiApi.h"
#include "Window.h"

#include "daydream/Trace/CuptiRecordWriter.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

namespace dd::trace {

struct TracerState {
  TracerState(const CuptiApi &Api, const TraceConfig &Config)
      : Api(Api), Config(Config),
        Pool(Config.BufferPoolBytes, Config.BufferBytes) {}

  const CuptiApi Api;
  const TraceConfig Config;
  BufferPool Pool;
  std::string Path;

  /// Set once finishing starts (the atomic guard of finishTracing).
  std::atomic<bool> Ending{false};
  /// Set once the file is closed: later buffers are discarded.
  std::atomic<bool> Closed{false};
  /// Finishing from a signal handler: locks are waited for a bounded time.
  std::atomic<bool> InSignal{false};

  std::timed_mutex ControlMutex;
  std::vector<CUpti_ActivityKind> Enabled;
  std::unique_ptr<IterationWindow> Window;
  CUpti_SubscriberHandle Subscriber = nullptr;
  /// Whether NVTX range starts still matter (window mode, not drained):
  /// read without the lock, so that most NVTX calls cost one load.
  std::atomic<bool> WatchingRanges{false};
  bool WindowOpen = false;
  bool WindowWasOpened = false;
  uint64_t WindowStartNs = 0;

  std::timed_mutex WriterMutex;
  CuptiRecordWriter Writer;
  std::unordered_set<uint64_t> NamedApis;
  uint64_t Dropped = 0;
};

/// The tracer of this process, null when not tracing.
extern std::atomic<TracerState *> ActiveTracer;

/// Locks \p Lock's mutex: forever normally, a bounded time while finishing
/// from a signal. Returns whether it is held.
bool lockTracer(const TracerState &T, std::unique_lock<std::timed_mutex> &Lock);

/// Reports a failed CUPTI call ("CUPTI error in cuptiX: ...") and returns
/// false; returns true for CUPTI_SUCCESS.
bool checkCupti(const TracerState &T, CUptiResult Result, const char *Function,
                const std::string &Detail = "");

/// A CUPTI timestamp, 0 if CUPTI has none to give.
uint64_t cuptiNow(const TracerState &T);

/// The activity kinds a trace with \p Config records.
std::vector<CUpti_ActivityKind> kindsToTrace(const TraceConfig &Config);

/// CUPTI's name for \p Kind without its prefix ("CONCURRENT_KERNEL"), for
/// messages.
std::string activityKindName(CUpti_ActivityKind Kind);

/// Kinds whose records a GPU writes after the call that caused them
/// returned: kernels, copies, sets, event completions.
bool isGpuKind(CUpti_ActivityKind Kind);
/// Kinds that describe the machine rather than time it: devices, contexts,
/// NVTX names. Cheap, and enabled from the start even in window mode, since
/// CUPTI may write their records only when the object appears, long before
/// the window opens.
bool isMetadataKind(CUpti_ActivityKind Kind);

/// Enables the kinds of kindsToTrace for which \p Select is true and that
/// are not enabled yet; stops at the first failure, reporting it. Needs
/// ControlMutex (or the tracer not yet active).
template <typename Pred> bool enableKinds(TracerState &T, Pred Select) {
  for (CUpti_ActivityKind Kind : kindsToTrace(T.Config)) {
    if (!Select(Kind))
      continue;
    bool Already = false;
    for (CUpti_ActivityKind E : T.Enabled)
      Already |= E == Kind;
    if (Already)
      continue;
    if (!checkCupti(T, T.Api.ActivityEnable(Kind), "cuptiActivityEnable",
                    " (" + activityKindName(Kind) + ")"))
      return false;
    T.Enabled.push_back(Kind);
  }
  return true;
}

/// Disables the enabled kinds for which \p Select is true.
template <typename Pred> void disableKinds(TracerState &T, Pred Select) {
  std::vector<CUpti_ActivityKind> Kept;
  for (CUpti_ActivityKind Kind : T.Enabled) {
    if (Select(Kind))
      checkCupti(T, T.Api.ActivityDisable(Kind), "cuptiActivityDisable");
    else
      Kept.push_back(Kind);
  }
  T.Enabled = std::move(Kept);
}

/// CUPTI's callbacks (ActivityBuffers.cpp, WindowControl.cpp).
void CUPTIAPI bufferRequested(uint8_t **Buffer, size_t *Size,
                              size_t *MaxNumRecords);
void CUPTIAPI bufferCompleted(CUcontext Context, uint32_t StreamId,
                              uint8_t *Buffer, size_t Size, size_t ValidSize);
void CUPTIAPI onNvtxCallback(void *UserData, CUpti_CallbackDomain Domain,
                             CUpti_CallbackId Cbid, const void *CbData);

/// Adds the records CUPTI dropped since last asked to the total, and writes
/// the total if it grew. Needs WriterMutex.
void noteDroppedRecords(TracerState &T);

} // namespace dd::trace

#endif // DAYDREAM_LIB_TRACE_INJECTION_TRACERSTATE_H
