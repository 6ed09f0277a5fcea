//===- FakeCupti.h - A CUPTI that runs without a GPU ------------*- C++ -*-===//
//
// The tracer reaches CUPTI only through a CuptiApi table, so the tests hand
// it this one: it keeps the activity kinds and NVTX callbacks enabled, lends
// and returns buffers through the tracer's callbacks as CUPTI does, and lets
// a test emit records (real CUPTI structs) and NVTX range starts. Like CUPTI,
// it produces a record only while its kind is enabled, asks for a buffer
// when the current one is full, counts a record as dropped when no buffer is
// given, and keeps full buffers until a flush, as a busy CUPTI would.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_UNITTESTS_TRACE_FAKECUPTI_H
#define DAYDREAM_UNITTESTS_TRACE_FAKECUPTI_H

#include "CuptiApi.h"

#include <cupti_nvtx_cbid.h>
#include <generated_nvtx_meta.h>

#include <set>
#include <string>
#include <vector>

namespace dd::trace::fake {

struct Buffer {
  uint8_t *Data = nullptr;
  size_t Size = 0;
  size_t Used = 0;
};

struct FakeCupti {
  CUpti_BuffersCallbackRequestFunc Request = nullptr;
  CUpti_BuffersCallbackCompleteFunc Complete = nullptr;
  CUpti_CallbackFunc Callback = nullptr;
  void *UserData = nullptr;
  bool Subscribed = false;
  CUpti_ActivityThreadIdType ThreadIdType =
      CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT;
  std::set<CUpti_CallbackId> NvtxCallbacks;
  std::set<CUpti_ActivityKind> Enabled;

  /// Failures to inject.
  CUpti_ActivityKind FailEnable = CUPTI_ACTIVITY_KIND_INVALID;
  CUptiResult SubscribeResult = CUPTI_SUCCESS;

  uint64_t Now = 1000;
  size_t PendingDropped = 0;
  Buffer Current;
  std::vector<Buffer> Full;
  std::vector<uint32_t> FlushFlags;
};

/// The fake's state; reset() clears it.
FakeCupti &state();
void reset();
/// A table whose every entry is the fake's.
CuptiApi api();

/// Produces \p Record (a CUPTI record struct) as CUPTI would; returns whether
/// it was stored in a buffer (its kind is enabled and a buffer was given).
bool emit(const void *Record);
template <typename T> bool emit(const T &Record) {
  return emit(static_cast<const void *>(&Record));
}

/// Calls the tracer's NVTX callback for \p Cbid with \p Params, if the
/// tracer enabled that callback.
void nvtxCall(CUpti_CallbackId Cbid, const void *Params);
void nvtxPushA(const char *Message);
void nvtxRangeStartA(const char *Message);
void nvtxPushW(const wchar_t *Message);
void nvtxPushEx(const char *Message);
void nvtxDomainRangeStartEx(const char *Message);

/// The name the fake gives API \p Cbid of \p Domain.
std::string apiName(CUpti_CallbackDomain Domain, uint32_t Cbid);

} // namespace dd::trace::fake

#endif // DAYDREAM_UNITTESTS_TRACE_FAKECUPTI_H
