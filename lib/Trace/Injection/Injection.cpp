//===- Injection.cpp - libddtrace.so's entry point ------------------------===//
//
// CUDA loads the library named by CUDA_INJECTION64_PATH when the process
// initializes the driver (cuInit) and calls InitializeInjection, the only
// symbol the library exports (ddtrace.exports). The dd-trace launcher sets
// that variable, the DDTRACE_* variables (RecordFile.h) and
// NVTX_INJECTION64_PATH, without which NVTX ranges reach neither the trace
// nor the iteration window.
//
// Whatever goes wrong here, the program must run on, untraced: every
// failure is reported on stderr and answered with 0, no exception leaves,
// and nothing is written.
//
//===----------------------------------------------------------------------===//

#include "Config.h"
#include "CuptiApi.h"
#include "Diagnostics.h"
#include "Signals.h"
#include "Tracer.h"

#include <cstdlib>
#include <exception>
#include <unistd.h>

using namespace dd::trace;

static int untraced() {
  diagnose("process " + std::to_string(getpid()) + " runs untraced");
  return 0;
}

extern "C" __attribute__((visibility("default"))) int
InitializeInjection(void) {
  try {
    TraceConfig Config;
    std::string Err;
    if (!readConfig([](const char *Name) { return std::getenv(Name); }, Config,
                    Err)) {
      diagnose(Err);
      return untraced();
    }
    CuptiApi Api;
    if (!loadCuptiApi(Config.CuptiLibrary.c_str(), Api, Err)) {
      diagnose(Err);
      return untraced();
    }
    if (!startTracing(Api, Config))
      return untraced();
    installProcessHandlers();
    return 1;
  } catch (const std::exception &E) {
    diagnose(std::string("internal error: ") + E.what());
  } catch (...) {
    diagnose("internal error");
  }
  return untraced();
}
