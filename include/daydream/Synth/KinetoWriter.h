//===- KinetoWriter.h - A TraceModel as PyTorch profiler JSON ---*- C++ -*-===//
//
// The inverse of the Kineto front-end, for dd-synth: writes a TraceModel as
// the current Kineto Chrome-trace format (../shared/docs/trace-formats.md)
// so that dd-import reads it back into the same model, and so the same
// graph. Each model field maps to the event field the front-end reads it
// from: ranges to cpu_op / user_annotation events, calls to cuda_runtime,
// GPU work to kernel / gpu_memcpy / gpu_memset (NCCL kernels with their
// collective args), sync records to cuda_sync events, memory records to
// [memory] instants, thread and stream names to thread_name metadata, and
// devices and ranks to deviceProperties and distributedInfo. Times are
// microseconds with three decimals, which keeps every nanosecond. Flow
// events (ac2g) and the args a viewer shows are written too, as the
// profiler writes them; the front-end passes over them.
//
// What the format cannot say is not written: a device's peak throughputs
// and bandwidth, a rank's host, task flops, and a copy direction its name
// does not give. A model that has none of those, and whose threads and
// streams are numbered in the order their first events appear (ranges,
// then calls; GPU work), reads back as itself.
//
// Written with a buffered writer of its own: 10^7 events in seconds.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SYNTH_KINETOWRITER_H
#define DAYDREAM_SYNTH_KINETOWRITER_H

#include "daydream/Import/TraceModel.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace dd {
class OutputFile;
} // namespace dd

namespace dd::synth {

/// Writes \p M as a Kineto trace named \p TraceName to \p OS.
void writeKinetoTrace(const import::TraceModel &M, llvm::StringRef TraceName,
                      llvm::raw_ostream &OS);

/// Writes \p M into \p Out, gzipped when its name ends in ".gz"; the caller
/// commits it (dd-synth commits a job's rank files only once all are
/// written, so a failure leaves none of them).
llvm::Error writeKinetoFile(const import::TraceModel &M, OutputFile &Out,
                            llvm::StringRef TraceName);

} // namespace dd::synth

#endif // DAYDREAM_SYNTH_KINETOWRITER_H
