//===- WindowControl.cpp - Tracing only iterations FIRST to LAST ----------===//
//
// In window mode the tracer starts with only the metadata kinds enabled and
// watches NVTX range starts through CUPTI's callback API (which needs
// NVTX_INJECTION64_PATH to name libcupti; the launcher sets it, the library
// does not, since by the time CUDA loads it NVTX may already be initialized).
//
// At the start of iteration FIRST every traced kind is enabled. At the start
// of iteration LAST+1 the CPU-side kinds (API calls, markers,
// synchronization, ...) are disabled and the window's span is written. The
// GPU-side kinds (kernels, copies, sets, event completions) stay enabled for
// one more iteration: the CPU runs ahead of the GPU, so when iteration LAST+1
// starts, work launched in the window may not have run yet, and CUPTI may
// not write the record of a kernel that ends after its kind was disabled.
// Disabling them at LAST+2 (or at exit) rather than at exit keeps a window at
// the start of a long job from recording the GPU side of the whole job. The
// GPU records of iteration LAST+1 that this lets in have no API record in
// the file; a reader keeps what the Window frame's span or a recorded
// launch (by correlation id) vouches for.
//
// The flush at LAST+1 is not forced: kernels still running keep their
// buffers, which a forced flush would hand over with incomplete records.
//
//===----------------------------------------------------------------------===//

#include "NvtxRange.h"
#include "TracerState.h"

using namespace dd::trace;

static bool isCpuKind(CUpti_ActivityKind Kind) {
  return !isGpuKind(Kind) && !isMetadataKind(Kind);
}

static void openWindow(TracerState &T) {
  T.WindowStartNs = cuptiNow(T);
  T.WindowOpen = T.WindowWasOpened = true;
  // A kind CUPTI refuses here is reported; the others are still worth
  // recording, so each is tried.
  for (CUpti_ActivityKind Kind : kindsToTrace(T.Config))
    enableKinds(T, [Kind](CUpti_ActivityKind K) { return K == Kind; });
}

static void closeWindow(TracerState &T) {
  uint64_t EndNs = cuptiNow(T);
  disableKinds(T, isCpuKind);
  T.Api.ActivityFlushAll(0);
  std::lock_guard<std::timed_mutex> Lock(T.WriterMutex);
  if (T.WindowOpen)
    T.Writer.addWindow(T.WindowStartNs, EndNs);
  T.WindowOpen = false;
}

static void drainWindow(TracerState &T) {
  disableKinds(T, isGpuKind);
  // The subscription stays: unsubscribing from inside its own callback is
  // not something CUPTI promises to support, and the callback now returns
  // after one load.
  T.WatchingRanges = false;
}

void CUPTIAPI dd::trace::onNvtxCallback(void *UserData,
                                        CUpti_CallbackDomain Domain,
                                        CUpti_CallbackId Cbid,
                                        const void *CbData) {
  TracerState *T = ActiveTracer.load();
  if (!T || Domain != CUPTI_CB_DOMAIN_NVTX || !T->WatchingRanges.load())
    return;
  std::string Name;
  if (!nvtxRangeStartName(Cbid, static_cast<const CUpti_NvtxData *>(CbData),
                          Name))
    return;
  std::lock_guard<std::timed_mutex> Lock(T->ControlMutex);
  if (T->Ending || !T->Window)
    return;
  switch (T->Window->onRangeStart(Name.c_str())) {
  case IterationWindow::Step::None:
    return;
  case IterationWindow::Step::Open:
    openWindow(*T);
    return;
  case IterationWindow::Step::Close:
    closeWindow(*T);
    return;
  case IterationWindow::Step::Drain:
    drainWindow(*T);
    return;
  }
}
