//===- Tracer.cpp - Starting and finishing a process's trace --------------===//
//
// startTracing does everything that can fail before the process is traced:
// the file is created first, so that no record arrives with nowhere to go,
// and deleted again if CUPTI then refuses a step, so that a failed start
// leaves nothing that looks like a trace.
//
// The tracer is never freed while the process runs: CUPTI's threads and the
// exit handlers may reach it at any time until the process is gone, after
// static destructors have run.
//
//===----------------------------------------------------------------------===//

#include "Tracer.h"
#include "Diagnostics.h"
#include "NvtxRange.h"
#include "TracerState.h"

#include "daydream/Trace/CuptiRecords.h"
#include "daydream/Trace/RecordFile.h"

#include <chrono>
#include <unistd.h>

using namespace dd::trace;

std::atomic<TracerState *> dd::trace::ActiveTracer{nullptr};

bool dd::trace::lockTracer(const TracerState &T,
                           std::unique_lock<std::timed_mutex> &Lock) {
  if (!T.InSignal) {
    Lock.lock();
    return true;
  }
  // The thread the signal interrupted may hold the lock and will not run
  // again until the handler returns: give up rather than hang the exit.
  return Lock.try_lock_for(std::chrono::seconds(2));
}

bool dd::trace::checkCupti(const TracerState &T, CUptiResult Result,
                           const char *Function, const std::string &Detail) {
  if (Result == CUPTI_SUCCESS)
    return true;
  std::string Hint;
  if (Result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
    Hint = " (another CUPTI client, such as Nsight Systems or the PyTorch "
           "profiler, is attached)";
  diagnose(std::string("CUPTI error in ") + Function + ": " +
           cuptiResultString(T.Api, Result) + Detail + Hint);
  return false;
}

uint64_t dd::trace::cuptiNow(const TracerState &T) {
  uint64_t Now = 0;
  if (T.Api.GetTimestamp(&Now) != CUPTI_SUCCESS)
    return 0;
  return Now;
}

std::vector<CUpti_ActivityKind>
dd::trace::kindsToTrace(const TraceConfig &Config) {
  std::vector<CUpti_ActivityKind> Kinds(std::begin(TracedKinds),
                                        std::end(TracedKinds));
  if (Config.Memory)
    Kinds.push_back(CUPTI_ACTIVITY_KIND_MEMORY2);
  return Kinds;
}

std::string dd::trace::activityKindName(CUpti_ActivityKind Kind) {
  switch (Kind) {
#define DDTRACE_KIND(Name)                                                     \
  case CUPTI_ACTIVITY_KIND_##Name:                                             \
    return #Name;
    DDTRACE_KIND(DEVICE)
    DDTRACE_KIND(CONTEXT)
    DDTRACE_KIND(KERNEL)
    DDTRACE_KIND(CONCURRENT_KERNEL)
    DDTRACE_KIND(MEMCPY)
    DDTRACE_KIND(MEMCPY2)
    DDTRACE_KIND(MEMSET)
    DDTRACE_KIND(RUNTIME)
    DDTRACE_KIND(DRIVER)
    DDTRACE_KIND(SYNCHRONIZATION)
    DDTRACE_KIND(CUDA_EVENT)
    DDTRACE_KIND(MARKER)
    DDTRACE_KIND(MARKER_DATA)
    DDTRACE_KIND(NAME)
    DDTRACE_KIND(EXTERNAL_CORRELATION)
    DDTRACE_KIND(OVERHEAD)
    DDTRACE_KIND(MEMORY2)
#undef DDTRACE_KIND
  default:
    return "activity kind " + std::to_string(int(Kind));
  }
}

bool dd::trace::isGpuKind(CUpti_ActivityKind Kind) {
  switch (Kind) {
  case CUPTI_ACTIVITY_KIND_KERNEL:
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
  case CUPTI_ACTIVITY_KIND_MEMCPY:
  case CUPTI_ACTIVITY_KIND_MEMCPY2:
  case CUPTI_ACTIVITY_KIND_MEMSET:
  case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
    return true;
  default:
    return false;
  }
}

bool dd::trace::isMetadataKind(CUpti_ActivityKind Kind) {
  return Kind == CUPTI_ACTIVITY_KIND_DEVICE ||
         Kind == CUPTI_ACTIVITY_KIND_CONTEXT ||
         Kind == CUPTI_ACTIVITY_KIND_NAME;
}

/// The CUPTI half of startTracing.
static bool setUpCupti(TracerState &T) {
  const CuptiApi &Api = T.Api;
  // Operating-system thread ids, as nvtxNameOsThread names threads and as
  // tools show them, rather than pthread handles. Not fatal: the trace is
  // as good with either, only thread names may then not match.
  checkCupti(T, Api.SetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM),
             "cuptiSetThreadIdType");
  if (!checkCupti(
          T, Api.ActivityRegisterCallbacks(bufferRequested, bufferCompleted),
          "cuptiActivityRegisterCallbacks"))
    return false;
  if (!T.Config.HasWindow)
    return enableKinds(T, [](CUpti_ActivityKind) { return true; });

  T.Window = std::make_unique<IterationWindow>(
      T.Config.WindowFirst, T.Config.WindowLast, T.Config.WindowRange);
  if (!enableKinds(T, isMetadataKind))
    return false;
  if (!checkCupti(T, Api.Subscribe(&T.Subscriber, onNvtxCallback, nullptr),
                  "cuptiSubscribe"))
    return false;
  for (CUpti_CallbackId Cbid : NvtxRangeStartCallbacks)
    if (!checkCupti(
            T, Api.EnableCallback(1, T.Subscriber, CUPTI_CB_DOMAIN_NVTX, Cbid),
            "cuptiEnableCallback"))
      return false;
  T.WatchingRanges = true;
  return true;
}

/// Undoes what setUpCupti did, as far as CUPTI allows (registered buffer
/// callbacks stay; they hand out no buffers once the tracer is inactive).
static void tearDownCupti(TracerState &T) {
  disableKinds(T, [](CUpti_ActivityKind) { return true; });
  if (T.Subscriber)
    T.Api.Unsubscribe(T.Subscriber);
  T.Subscriber = nullptr;
  T.WatchingRanges = false;
}

bool dd::trace::startTracing(const CuptiApi &Api, const TraceConfig &Config) {
  if (ActiveTracer.load()) {
    diagnose("already tracing this process");
    return true;
  }
  auto T = std::make_unique<TracerState>(Api, Config);
  uint32_t Version = 0;
  uint64_t StartNs = 0;
  if (!checkCupti(*T, Api.GetVersion(&Version), "cuptiGetVersion") ||
      !checkCupti(*T, Api.GetTimestamp(&StartNs), "cuptiGetTimestamp"))
    return false;

  uint32_t Pid = uint32_t(getpid());
  T->Path = Config.OutputDir + "/" + std::to_string(Pid) + ".ddrec";
  std::string Err;
  if (!T->Writer.open(T->Path.c_str(), Version, Pid, StartNs, Err)) {
    diagnose(Err);
    return false;
  }

  TracerState *Raw = T.release();
  ActiveTracer.store(Raw);
  bool Ok;
  {
    std::lock_guard<std::timed_mutex> Lock(Raw->ControlMutex);
    Ok = setUpCupti(*Raw);
    if (!Ok)
      tearDownCupti(*Raw);
  }
  if (Ok)
    return true;
  // Leaked on purpose: a CUPTI thread may still be in a callback with it, or
  // hold one of its buffers. Closing the writer gave back its big buffer.
  ActiveTracer.store(nullptr);
  Raw->Ending = Raw->Closed = true;
  std::lock_guard<std::timed_mutex> Lock(Raw->WriterMutex);
  Raw->Writer.close(StartNs, Err);
  ::unlink(Raw->Path.c_str());
  return false;
}

bool dd::trace::isTracing() {
  TracerState *T = ActiveTracer.load();
  return T && !T->Ending;
}

/// Tells the user why a window produced nothing, the usual mistake being
/// NVTX calls that never reach CUPTI.
static void reportUnopenedWindow(const TracerState &T, uint64_t Iterations) {
  std::string Ranges =
      T.Config.WindowRange.empty()
          ? "named like 'ProfilerStep#N' or 'step N'"
          : "whose name starts with '" + T.Config.WindowRange + "'";
  diagnose("the window " + std::to_string(T.Config.WindowFirst) + ":" +
           std::to_string(T.Config.WindowLast) +
           " never opened: the program started " + std::to_string(Iterations) +
           " iterations (NVTX ranges " + Ranges +
           "); NVTX reaches CUPTI only when NVTX_INJECTION64_PATH names "
           "libcupti, which dd-trace sets");
}

void dd::trace::finishTracing(bool FromSignal) {
  TracerState *T = ActiveTracer.load();
  if (!T || T->Ending.exchange(true))
    return;
  T->InSignal = FromSignal;
  T->WatchingRanges = false;
  uint64_t WindowEndNs = cuptiNow(*T);

  bool WindowOpen = false, WindowWasOpened = false;
  uint64_t WindowStartNs = 0, Iterations = 0;
  {
    std::unique_lock<std::timed_mutex> Lock(T->ControlMutex, std::defer_lock);
    if (lockTracer(*T, Lock)) {
      WindowOpen = T->WindowOpen;
      WindowWasOpened = T->WindowWasOpened;
      WindowStartNs = T->WindowStartNs;
      Iterations = T->Window ? T->Window->iterations() : 0;
      T->WindowOpen = false;
    }
  }

  // Forced: buffers holding records still incomplete are delivered too;
  // nothing will complete them later.
  T->Api.ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);

  uint64_t Dropped;
  {
    std::unique_lock<std::timed_mutex> Lock(T->WriterMutex, std::defer_lock);
    if (!lockTracer(*T, Lock)) {
      diagnose("could not end " + T->Path + " in time: the trace is cut short");
      return;
    }
    // The last Dropped frame holds the total, zero included.
    size_t Since = 0;
    if (T->Api.ActivityGetNumDroppedRecords(nullptr, 0, &Since) ==
        CUPTI_SUCCESS)
      T->Dropped += Since;
    Dropped = T->Dropped;
    T->Writer.addDropped(Dropped);
    if (WindowOpen)
      T->Writer.addWindow(WindowStartNs, WindowEndNs);
    std::string Err;
    if (!T->Writer.close(cuptiNow(*T), Err))
      diagnose(T->Path + ": " + Err);
    T->Closed = true;
  }

  if (Dropped)
    diagnose("CUPTI dropped " + std::to_string(Dropped) +
             " records: all its buffers were in use (" + env::BufferMiB +
             " was " + std::to_string(T->Config.BufferPoolBytes >> 20) +
             "; give dd-trace more buffer memory)");
  if (T->Config.HasWindow && !WindowWasOpened && !FromSignal)
    reportUnopenedWindow(*T, Iterations);
}

void dd::trace::forgetTracingInChild() {
  TracerState *T = ActiveTracer.load();
  if (!T)
    return;
  // The child has one thread; locks another parent thread held stay held,
  // so none is taken.
  T->Ending = T->Closed = true;
  T->WatchingRanges = false;
  T->Writer.abandon();
  ActiveTracer.store(nullptr);
}

void dd::trace::resetTracingForTesting() {
  delete ActiveTracer.exchange(nullptr);
}
