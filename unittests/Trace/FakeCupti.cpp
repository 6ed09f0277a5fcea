//===- FakeCupti.cpp - A CUPTI that runs without a GPU --------------------===//
//
// Records are laid one after another in a buffer, each taking the size
// CuptiRecords.h gives its kind, and read back by the fake
// cuptiActivityGetNextRecord with the same rule.
//
//===----------------------------------------------------------------------===//

#include "FakeCupti.h"

#include "daydream/Trace/CuptiRecords.h"

#include <cstring>
#include <map>

using namespace dd::trace;
using namespace dd::trace::fake;

namespace {
FakeCupti State;

size_t slotSize(const CUpti_Activity *Record) {
  return (size_t(recordLayout(Record->kind).Size) + 7) / 8 * 8;
}

void retireCurrent() {
  if (State.Current.Data)
    State.Full.push_back(State.Current);
  State.Current = Buffer();
}

CUptiResult getVersion(uint32_t *Version) {
  *Version = 130001;
  return CUPTI_SUCCESS;
}

CUptiResult getResultString(CUptiResult Result, const char **Str) {
  switch (Result) {
  case CUPTI_SUCCESS:
    *Str = "CUPTI_SUCCESS";
    break;
  case CUPTI_ERROR_UNKNOWN:
    *Str = "CUPTI_ERROR_UNKNOWN";
    break;
  case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    *Str = "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
    break;
  default:
    *Str = "CUPTI_ERROR_SOMETHING";
  }
  return CUPTI_SUCCESS;
}

CUptiResult getTimestamp(uint64_t *Now) {
  *Now = State.Now;
  return CUPTI_SUCCESS;
}

CUptiResult registerCallbacks(CUpti_BuffersCallbackRequestFunc Request,
                              CUpti_BuffersCallbackCompleteFunc Complete) {
  State.Request = Request;
  State.Complete = Complete;
  return CUPTI_SUCCESS;
}

CUptiResult enable(CUpti_ActivityKind Kind) {
  if (Kind == State.FailEnable)
    return CUPTI_ERROR_UNKNOWN;
  State.Enabled.insert(Kind);
  return CUPTI_SUCCESS;
}

CUptiResult disable(CUpti_ActivityKind Kind) {
  State.Enabled.erase(Kind);
  return CUPTI_SUCCESS;
}

CUptiResult flushAll(uint32_t Flag) {
  State.FlushFlags.push_back(Flag);
  retireCurrent();
  std::vector<Buffer> Full;
  Full.swap(State.Full);
  for (const Buffer &B : Full)
    State.Complete(nullptr, 0, B.Data, B.Size, B.Used);
  return CUPTI_SUCCESS;
}

CUptiResult getNextRecord(uint8_t *Buffer, size_t Valid,
                          CUpti_Activity **Record) {
  uint8_t *At = *Record
                    ? reinterpret_cast<uint8_t *>(*Record) + slotSize(*Record)
                    : Buffer;
  if (At >= Buffer + Valid)
    return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *Record = reinterpret_cast<CUpti_Activity *>(At);
  return CUPTI_SUCCESS;
}

CUptiResult getNumDropped(CUcontext, uint32_t, size_t *Dropped) {
  *Dropped = State.PendingDropped;
  State.PendingDropped = 0;
  return CUPTI_SUCCESS;
}

CUptiResult subscribe(CUpti_SubscriberHandle *Handle, CUpti_CallbackFunc Fn,
                      void *UserData) {
  if (State.SubscribeResult != CUPTI_SUCCESS)
    return State.SubscribeResult;
  State.Callback = Fn;
  State.UserData = UserData;
  State.Subscribed = true;
  *Handle = reinterpret_cast<CUpti_SubscriberHandle>(&State);
  return CUPTI_SUCCESS;
}

CUptiResult unsubscribe(CUpti_SubscriberHandle) {
  State.Subscribed = false;
  State.Callback = nullptr;
  State.NvtxCallbacks.clear();
  return CUPTI_SUCCESS;
}

CUptiResult enableCallback(uint32_t Enable, CUpti_SubscriberHandle,
                           CUpti_CallbackDomain Domain, CUpti_CallbackId Cbid) {
  if (Domain != CUPTI_CB_DOMAIN_NVTX)
    return CUPTI_ERROR_INVALID_PARAMETER;
  if (Enable)
    State.NvtxCallbacks.insert(Cbid);
  else
    State.NvtxCallbacks.erase(Cbid);
  return CUPTI_SUCCESS;
}

CUptiResult setThreadIdType(CUpti_ActivityThreadIdType Type) {
  State.ThreadIdType = Type;
  return CUPTI_SUCCESS;
}

CUptiResult getCallbackName(CUpti_CallbackDomain Domain, uint32_t Cbid,
                            const char **Name) {
  // Stable storage: the tracer may keep the pointer.
  static std::map<uint64_t, std::string> Names;
  std::string &S = Names[uint64_t(Domain) << 32 | Cbid];
  S = apiName(Domain, Cbid);
  *Name = S.c_str();
  return CUPTI_SUCCESS;
}
} // namespace

FakeCupti &fake::state() { return State; }

void fake::reset() {
  // Buffers still lent are the tracer's to free; a test finishes first.
  State = FakeCupti();
}

CuptiApi fake::api() {
  CuptiApi Api;
  Api.GetVersion = getVersion;
  Api.GetResultString = getResultString;
  Api.GetTimestamp = getTimestamp;
  Api.ActivityRegisterCallbacks = registerCallbacks;
  Api.ActivityEnable = enable;
  Api.ActivityDisable = disable;
  Api.ActivityFlushAll = flushAll;
  Api.ActivityGetNextRecord = getNextRecord;
  Api.ActivityGetNumDroppedRecords = getNumDropped;
  Api.Subscribe = subscribe;
  Api.Unsubscribe = unsubscribe;
  Api.EnableCallback = enableCallback;
  Api.GetCallbackName = getCallbackName;
  Api.SetThreadIdType = setThreadIdType;
  return Api;
}

bool fake::emit(const void *Record) {
  const auto *R = static_cast<const CUpti_Activity *>(Record);
  if (!State.Enabled.count(R->kind))
    return false;
  size_t Size = slotSize(R);
  if (State.Current.Data && State.Current.Used + Size > State.Current.Size)
    retireCurrent();
  if (!State.Current.Data) {
    uint8_t *Data = nullptr;
    size_t BufferSize = 0, MaxRecords = 0;
    if (State.Request)
      State.Request(&Data, &BufferSize, &MaxRecords);
    if (!Data || BufferSize < Size) {
      ++State.PendingDropped;
      if (Data) // too small to use: give it straight back, empty
        State.Complete(nullptr, 0, Data, BufferSize, 0);
      return false;
    }
    State.Current = Buffer{Data, BufferSize, 0};
  }
  std::memcpy(State.Current.Data + State.Current.Used, Record,
              recordLayout(R->kind).Size);
  State.Current.Used += Size;
  return true;
}

void fake::nvtxCall(CUpti_CallbackId Cbid, const void *Params) {
  if (!State.Callback || !State.NvtxCallbacks.count(Cbid))
    return;
  CUpti_NvtxData Data{"nvtxFake", Params, nullptr};
  State.Callback(State.UserData, CUPTI_CB_DOMAIN_NVTX, Cbid, &Data);
}

void fake::nvtxPushA(const char *Message) {
  nvtxRangePushA_params P{Message};
  nvtxCall(CUPTI_CBID_NVTX_nvtxRangePushA, &P);
}

void fake::nvtxRangeStartA(const char *Message) {
  nvtxRangeStartA_params P{Message};
  nvtxCall(CUPTI_CBID_NVTX_nvtxRangeStartA, &P);
}

void fake::nvtxPushW(const wchar_t *Message) {
  nvtxRangePushW_params P{Message};
  nvtxCall(CUPTI_CBID_NVTX_nvtxRangePushW, &P);
}

static nvtxEventAttributes_t asciiAttributes(const char *Message) {
  nvtxEventAttributes_t A = {};
  A.version = NVTX_VERSION;
  A.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  A.messageType = NVTX_MESSAGE_TYPE_ASCII;
  A.message.ascii = Message;
  return A;
}

void fake::nvtxPushEx(const char *Message) {
  nvtxEventAttributes_t A = asciiAttributes(Message);
  nvtxRangePushEx_params P{&A};
  nvtxCall(CUPTI_CBID_NVTX_nvtxRangePushEx, &P);
}

void fake::nvtxDomainRangeStartEx(const char *Message) {
  nvtxEventAttributes_t A = asciiAttributes(Message);
  nvtxDomainRangeStartEx_params P{};
  P.core.eventAttrib = &A;
  nvtxCall(CUPTI_CBID_NVTX_nvtxDomainRangeStartEx, &P);
}

std::string fake::apiName(CUpti_CallbackDomain Domain, uint32_t Cbid) {
  if (Domain == CUPTI_CB_DOMAIN_RUNTIME_API)
    return "cudaFake" + std::to_string(Cbid) + "_v7000";
  return "cuFake" + std::to_string(Cbid);
}
