//===- CuptiApi.h - The CUPTI functions libddtrace.so calls -----*- C++ -*-===//
//
// libddtrace.so does not link libcupti: it loads the library named by
// DDTRACE_CUPTI_LIBRARY with dlopen and calls it through this table. Three
// reasons: the library then loads wherever libcupti lives (a pip-installed
// CUDA, a toolkit in /opt), a process that cannot load CUPTI still runs,
// untraced, rather than failing to start; and unit tests substitute a table
// of fakes that hand the tracer records built in the test.
//
// The signatures come from the CUPTI headers (decltype), so a table entry
// cannot disagree with the function it stands for.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_TRACE_INJECTION_CUPTIAPI_H
#define DAYDREAM_LIB_TRACE_INJECTION_CUPTIAPI_H

#include <cupti_activity.h>
#include <cupti_callbacks.h>
#include <cupti_result.h>
#include <cupti_version.h>

#include <string>

namespace dd::trace {

/// Every CUPTI function the tracer calls: X(table member, CUPTI symbol).
#define DDTRACE_CUPTI_FUNCTIONS(X)                                             \
  X(GetVersion, cuptiGetVersion)                                               \
  X(GetResultString, cuptiGetResultString)                                     \
  X(GetTimestamp, cuptiGetTimestamp)                                           \
  X(ActivityRegisterCallbacks, cuptiActivityRegisterCallbacks)                 \
  X(ActivityEnable, cuptiActivityEnable)                                       \
  X(ActivityDisable, cuptiActivityDisable)                                     \
  X(ActivityFlushAll, cuptiActivityFlushAll)                                   \
  X(ActivityGetNextRecord, cuptiActivityGetNextRecord)                         \
  X(ActivityGetNumDroppedRecords, cuptiActivityGetNumDroppedRecords)           \
  X(Subscribe, cuptiSubscribe)                                                 \
  X(Unsubscribe, cuptiUnsubscribe)                                             \
  X(EnableCallback, cuptiEnableCallback)                                       \
  X(GetCallbackName, cuptiGetCallbackName)                                     \
  X(SetThreadIdType, cuptiSetThreadIdType)

/// A table of CUPTI entry points; every member is set once loaded.
struct CuptiApi {
// A member's name and a qualified symbol cannot be parenthesized.
#define DDTRACE_CUPTI_MEMBER(Member, Symbol)                                   \
  decltype(&::Symbol) Member = nullptr; // NOLINT(bugprone-macro-parentheses)
  DDTRACE_CUPTI_FUNCTIONS(DDTRACE_CUPTI_MEMBER)
#undef DDTRACE_CUPTI_MEMBER
};

/// Loads CUPTI from \p Path (a file name alone is searched for as dlopen
/// does) and fills \p Api. A CUPTI the process has loaded already under the
/// same file name (PyTorch links its own) is used instead: two copies of
/// CUPTI in one process fight over the driver's callbacks. On failure returns
/// false with a message in \p Err; the library is then unloaded again.
bool loadCuptiApi(const char *Path, CuptiApi &Api, std::string &Err);

/// CUPTI's name for \p Result ("CUPTI_ERROR_UNKNOWN"), or its number where
/// CUPTI has none.
std::string cuptiResultString(const CuptiApi &Api, CUptiResult Result);

} // namespace dd::trace

#endif // DAYDREAM_LIB_TRACE_INJECTION_CUPTIAPI_H
