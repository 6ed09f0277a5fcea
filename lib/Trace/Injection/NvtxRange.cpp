//===- NvtxRange.cpp - The name of an NVTX range from a CUPTI callback ----===//
//
// The parameter structs are CUPTI's (generated_nvtx_meta.h). Only the first
// bytes of a message matter to the window (a prefix and a digit), so wide
// messages are narrowed up to a bound rather than converted.
//
//===----------------------------------------------------------------------===//

#include "NvtxRange.h"

#include <cupti_nvtx_cbid.h>
#include <generated_nvtx_meta.h>

using namespace dd::trace;

const CUpti_CallbackId dd::trace::NvtxRangeStartCallbacks[8] = {
    CUPTI_CBID_NVTX_nvtxRangePushA,
    CUPTI_CBID_NVTX_nvtxRangePushW,
    CUPTI_CBID_NVTX_nvtxRangePushEx,
    CUPTI_CBID_NVTX_nvtxRangeStartA,
    CUPTI_CBID_NVTX_nvtxRangeStartW,
    CUPTI_CBID_NVTX_nvtxRangeStartEx,
    CUPTI_CBID_NVTX_nvtxDomainRangePushEx,
    CUPTI_CBID_NVTX_nvtxDomainRangeStartEx,
};

namespace {
constexpr size_t MaxWideChars = 256;

void narrow(const wchar_t *W, std::string &Out) {
  Out.clear();
  for (size_t I = 0; W && W[I] && I < MaxWideChars; ++I) {
    if (W[I] < 0 || W[I] > 127)
      break;
    Out.push_back(char(W[I]));
  }
}

void fromAttributes(const nvtxEventAttributes_t *A, std::string &Out) {
  Out.clear();
  if (!A)
    return;
  if (A->messageType == NVTX_MESSAGE_TYPE_ASCII && A->message.ascii)
    Out = A->message.ascii;
  else if (A->messageType == NVTX_MESSAGE_TYPE_UNICODE)
    narrow(A->message.unicode, Out);
}

template <typename Params> const Params *params(const CUpti_NvtxData *D) {
  return static_cast<const Params *>(D->functionParams);
}
} // namespace

bool dd::trace::nvtxRangeStartName(CUpti_CallbackId Cbid,
                                   const CUpti_NvtxData *Data,
                                   std::string &Name) {
  Name.clear();
  bool HasParams = Data && Data->functionParams;
  switch (Cbid) {
  case CUPTI_CBID_NVTX_nvtxRangePushA:
    if (HasParams && params<nvtxRangePushA_params>(Data)->message)
      Name = params<nvtxRangePushA_params>(Data)->message;
    return true;
  case CUPTI_CBID_NVTX_nvtxRangeStartA:
    if (HasParams && params<nvtxRangeStartA_params>(Data)->message)
      Name = params<nvtxRangeStartA_params>(Data)->message;
    return true;
  case CUPTI_CBID_NVTX_nvtxRangePushW:
    if (HasParams)
      narrow(params<nvtxRangePushW_params>(Data)->message, Name);
    return true;
  case CUPTI_CBID_NVTX_nvtxRangeStartW:
    if (HasParams)
      narrow(params<nvtxRangeStartW_params>(Data)->message, Name);
    return true;
  case CUPTI_CBID_NVTX_nvtxRangePushEx:
    if (HasParams)
      fromAttributes(params<nvtxRangePushEx_params>(Data)->eventAttrib, Name);
    return true;
  case CUPTI_CBID_NVTX_nvtxRangeStartEx:
    if (HasParams)
      fromAttributes(params<nvtxRangeStartEx_params>(Data)->eventAttrib, Name);
    return true;
  case CUPTI_CBID_NVTX_nvtxDomainRangePushEx:
    if (HasParams)
      fromAttributes(
          params<nvtxDomainRangePushEx_params>(Data)->core.eventAttrib, Name);
    return true;
  case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx:
    if (HasParams)
      fromAttributes(
          params<nvtxDomainRangeStartEx_params>(Data)->core.eventAttrib, Name);
    return true;
  default:
    return false;
  }
}
