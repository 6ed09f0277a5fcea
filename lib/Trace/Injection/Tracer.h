//===- Tracer.h - Records CUPTI activity to a .ddrec ------------*- C++ -*-===//
//
// The core of libddtrace.so, apart from how it is loaded: InitializeInjection
// (Injection.cpp) reads the configuration, loads CUPTI and calls
// startTracing; the exit and signal handlers (Signals.h) call
// finishTracing. The unit tests call the same functions with a fake CUPTI
// table, which is why they take one.
//
// One tracer per process: CUPTI's buffer callbacks carry no user data, so
// its state is global.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_TRACE_INJECTION_TRACER_H
#define DAYDREAM_LIB_TRACE_INJECTION_TRACER_H

namespace dd::trace {

struct CuptiApi;
struct TraceConfig;

/// Starts tracing this process into Config.OutputDir/<pid>.ddrec through
/// \p Api: without a window, every kind in TracedKinds (and MEMORY2 when
/// asked) from now on; with one, from the iteration FIRST. Returns false,
/// after saying why on stderr, when it cannot: nothing is then left on disk
/// and no activity kind it enabled stays enabled.
bool startTracing(const CuptiApi &Api, const TraceConfig &Config);

/// Whether startTracing succeeded and finishTracing has not run.
bool isTracing();

/// Flushes CUPTI's buffers, records the dropped-record count (and the
/// window, if it is still open) and ends the file with an End frame. Only
/// the first call does anything; safe from any thread. \p FromSignal: called
/// from a signal handler, so waits for the tracer's locks a bounded time
/// rather than forever (the interrupted thread may hold them).
void finishTracing(bool FromSignal = false);

/// In the child of a fork(): forgets the parent's trace without touching
/// its file. CUDA cannot be used in the child, and the file is the parent's.
void forgetTracingInChild();

/// Frees the tracer so that a unit test can start another. Only after
/// finishTracing, once the fake CUPTI holds no buffers.
void resetTracingForTesting();

} // namespace dd::trace

#endif // DAYDREAM_LIB_TRACE_INJECTION_TRACER_H
