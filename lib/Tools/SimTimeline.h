//===- SimTimeline.h - A simulated run as a Chrome/Perfetto trace -*- C++
//-*-===//
//
// dd-sim -timeline=FILE.json[.gz] writes what the simulation predicted as a
// Chrome trace-event file, which Perfetto UI (ui.perfetto.dev) and
// chrome://tracing open: the baseline and the prediction side by side on
// one time axis, each as one process a rank and place ("predicted: FILE |
// rank 1 | GPU 0", "... | rank 1 | host", a job's "... | job |
// communication"), with a track per lane (CPU threads, GPU streams,
// communication channels) and a track of iterations; an arrow for
// every dependency between two lanes (launch, sync, cross-stream,
// collective, data), named by its kind; and each task of the prediction's
// critical path flagged (args.critical_path) and repeated on a
// "critical path" track of its own. The baseline is either another graph's
// simulation (-baseline=FILE, typically the graph before the passes) or
// the graph's own recorded times.
//
// Times are microseconds (the format's unit) with nanosecond decimals,
// counted from each run's origin, so that both runs start at 0.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TOOLS_SIMTIMELINE_H
#define DAYDREAM_TOOLS_SIMTIMELINE_H

#include "RunView.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace dd {

/// Writes \p Baseline and \p Predicted as one trace. Fails only if the
/// prediction's critical path cannot be found (its result does not fit its
/// graph).
llvm::Error writeTimeline(const RunView &Baseline, const RunView &Predicted,
                          llvm::raw_ostream &OS);

} // namespace dd

#endif // DAYDREAM_TOOLS_SIMTIMELINE_H
