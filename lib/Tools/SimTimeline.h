//===- SimTimeline.h - A simulated run as a Chrome/Perfetto trace -*- C++
//-*-===//
//
// dd-sim -timeline=FILE.json writes what the simulation predicted as a Chrome
// trace-event file, which Perfetto UI (ui.perfetto.dev) and chrome://tracing
// open: one process for the baseline and one for the prediction, side by
// side on one time axis, each with a track per lane (CPU threads, GPU
// streams, communication channels) and a track of iterations. The baseline
// is either another graph's simulation (-baseline=FILE, typically
// the graph before the passes) or the graph's own recorded times.
//
// Times are microseconds (the format's unit) with nanosecond decimals,
// counted from each run's origin, so that both runs start at 0.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TOOLS_SIMTIMELINE_H
#define DAYDREAM_TOOLS_SIMTIMELINE_H

#include "RunView.h"

#include "llvm/Support/raw_ostream.h"

namespace dd {

/// Writes \p Baseline and \p Predicted as processes 1 and 2 of one trace.
void writeTimeline(const RunView &Baseline, const RunView &Predicted,
                   llvm::raw_ostream &OS);

} // namespace dd

#endif // DAYDREAM_TOOLS_SIMTIMELINE_H
