//===- PredictedTrace.h - A simulated run as a PyTorch profiler trace -*- C++
//-*-===//
//
// dd-sim -kineto=FILE: the predicted run in the format the run was
// recorded in, so that the viewers people already use (Perfetto,
// TensorBoard's profiler plugin, Holistic Trace Analysis) open a what-if
// the way they open a recording, and dd-import reads it back.
//
// The graph and its simulated times become a TraceModel (the importer's
// own event arrays), which the Kineto writer dd-synth uses writes:
//   - CPU threads: one process a rank; cpu-op tasks as cpu_op events (each
//     piece of an op's self time an op of its own: the nesting the importer
//     split is not rebuilt, so layers do not survive the round trip),
//     runtime calls as cuda_runtime events with their correlation ids (a
//     synchronize's "(after wait)" rest joined back to its call);
//   - GPU streams: kernels, copies, sets and collectives with their launch
//     shapes and bytes, and the flow arrows from their launches;
//   - each iteration as a ProfilerStep range at its predicted start and
//     duration, on the thread that recorded its step;
//   - the devices and the rank (deviceProperties, distributedInfo).
// Not written: markers (the step ranges stand for them), memory events
// (their times were recorded, not simulated), task notes, and GPU work on
// a lane with no device (a job's matched collectives on their channel,
// whose ranks' NCCL kernels are written; a pass's modelled network): the
// last are counted, and dd-sim says so. A job is written one file a rank
// (rankPath()).
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TOOLS_PREDICTEDTRACE_H
#define DAYDREAM_TOOLS_PREDICTEDTRACE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dd {

class Graph;
struct SimResult;

struct PredictedTraceSummary {
  /// The files written, one a rank.
  std::vector<std::string> Files;
  /// Tasks written as events, and those left out: markers, a job's
  /// matched collectives, other GPU work on lanes with no device.
  uint64_t Written = 0, Markers = 0, JobCollectives = 0, NoDevice = 0;
};

/// Writes \p R, a simulation of \p G that kept its task times, to \p Path
/// (gzipped if it ends in ".gz"; a job's ranks to rankPath()'s files, all
/// or none).
llvm::Expected<PredictedTraceSummary>
writePredictedTrace(const Graph &G, const SimResult &R, llvm::StringRef Path);

} // namespace dd

#endif // DAYDREAM_TOOLS_PREDICTEDTRACE_H
