//===- CuptiApi.cpp - Loads libcupti at run time --------------------------===//
//
// RTLD_LOCAL keeps CUPTI's symbols out of the global namespace of a process
// that may load another copy itself (PyTorch's profiler links its own);
// RTLD_NOW makes a library missing a function fail here, with a message,
// rather than at the first call.
//
//===----------------------------------------------------------------------===//

#include "CuptiApi.h"

#include <cstring>
#include <dlfcn.h>

using namespace dd::trace;

/// The copy of CUPTI already in the process under \p Path's file name, or
/// null.
static void *loadedCupti(const char *Path) {
  const char *Slash = std::strrchr(Path, '/');
  return dlopen(Slash ? Slash + 1 : Path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
}

bool dd::trace::loadCuptiApi(const char *Path, CuptiApi &Api,
                             std::string &Err) {
  void *Handle = loadedCupti(Path);
  if (!Handle)
    Handle = dlopen(Path, RTLD_NOW | RTLD_LOCAL);
  if (!Handle) {
    const char *Why = dlerror();
    Err = std::string("cannot load CUPTI library '") + Path +
          "': " + (Why ? Why : "unknown error");
    return false;
  }
  CuptiApi Loaded;
  const char *Missing = nullptr;
#define DDTRACE_CUPTI_RESOLVE(Member, Symbol)                                  \
  Loaded.Member =                                                              \
      reinterpret_cast<decltype(Loaded.Member)>(dlsym(Handle, #Symbol));       \
  if (!Loaded.Member && !Missing)                                              \
    Missing = #Symbol;
  DDTRACE_CUPTI_FUNCTIONS(DDTRACE_CUPTI_RESOLVE)
#undef DDTRACE_CUPTI_RESOLVE
  if (Missing) {
    Err = std::string("CUPTI library '") + Path + "' has no function " +
          Missing + " (not CUPTI, or a CUPTI too old)";
    dlclose(Handle);
    return false;
  }
  // The handle is kept for the life of the process: CUPTI calls back into
  // the tracer until exit.
  Api = Loaded;
  return true;
}

std::string dd::trace::cuptiResultString(const CuptiApi &Api,
                                         CUptiResult Result) {
  const char *S = nullptr;
  if (Api.GetResultString && Api.GetResultString(Result, &S) == CUPTI_SUCCESS &&
      S)
    return S;
  return "CUPTI error " + std::to_string(static_cast<int>(Result));
}
