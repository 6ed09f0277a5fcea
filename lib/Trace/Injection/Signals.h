//===- Signals.h - Ending the trace however the process ends ----*- C++ -*-===//
//
// A trace is only whole once CUPTI's last buffers are flushed and the End
// frame written. The process may end by returning from main or calling
// exit (an atexit handler), by a terminating signal (SIGINT, SIGTERM,
// SIGHUP handlers), and it may fork (the child must not write into the
// parent's file). Signals.cpp says which cases are left out.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_TRACE_INJECTION_SIGNALS_H
#define DAYDREAM_LIB_TRACE_INJECTION_SIGNALS_H

namespace dd::trace {

/// Installs the atexit, signal and fork handlers, once per process.
void installProcessHandlers();

} // namespace dd::trace

#endif // DAYDREAM_LIB_TRACE_INJECTION_SIGNALS_H
