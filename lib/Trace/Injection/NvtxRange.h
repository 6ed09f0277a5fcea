//===- NvtxRange.h - NVTX range names from CUPTI callbacks ------*- C++ -*-===//
//
// In window mode the tracer subscribes to CUPTI's NVTX callbacks and needs
// the message of each range that starts, however the program started it:
// nvtxRangePush/Start in their A (char), W (wchar_t) and Ex (attributes)
// forms, and the Ex forms of a named NVTX domain. The callbacks only fire
// when NVTX_INJECTION64_PATH names libcupti, which the dd-trace launcher
// sets: without it NVTX calls never reach CUPTI and the window never opens.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_TRACE_INJECTION_NVTXRANGE_H
#define DAYDREAM_LIB_TRACE_INJECTION_NVTXRANGE_H

#include <cupti_callbacks.h>

#include <cstdint>
#include <string>

namespace dd::trace {

/// The CUPTI NVTX callback ids of the calls that start a range.
extern const CUpti_CallbackId NvtxRangeStartCallbacks[8];

/// If \p Cbid (in the NVTX domain) starts a range, sets \p Name to the
/// range's message and returns true. Wide messages are kept where they are
/// ASCII and cut at the first other character; registered-string messages
/// (nvtxDomainRegisterString) read as empty.
bool nvtxRangeStartName(CUpti_CallbackId Cbid, const CUpti_NvtxData *Data,
                        std::string &Name);

} // namespace dd::trace

#endif // DAYDREAM_LIB_TRACE_INJECTION_NVTXRANGE_H
