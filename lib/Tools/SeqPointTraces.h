//===- SeqPointTraces.h - A run's speedup from its SeqPoints ----*- C++ -*-===//
//
// SeqPoint's second use: once the SeqPoints are known, profile only them,
// model an optimization on each SeqPoint's trace with a dd-opt pipeline,
// simulate the trace before and after with dd-sim's simulator, and weigh
// the results into the whole run's time before and after. That is
// Daydream's what-if question asked of a run whose iterations all differ,
// at the cost of a handful of traces.
//
// Each SeqPoint's trace is a .ddir (either form) or any trace dd-import
// reads, told apart by content. Its time is the mean simulated duration of
// its iterations (a trace may hold the SeqPoint's iteration and its
// neighbours), or the whole simulated run if it has no iterations.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TOOLS_SEQPOINTTRACES_H
#define DAYDREAM_TOOLS_SEQPOINTTRACES_H

#include "daydream/SeqPoint/SeqPoint.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace dd {

class PassRegistry;

/// Where each SeqPoint's trace is: an explicit ITER=FILE from \p Explicit,
/// else the one file in \p Dir named "ITER." followed by anything (17.ddir,
/// 17.pt.trace.json.gz). One path per entry of \p Iterations; an error names
/// the first iteration without a trace, or with two.
llvm::Expected<std::vector<std::string>>
findSeqPointTraces(llvm::ArrayRef<int64_t> Iterations, llvm::StringRef Dir,
                   llvm::ArrayRef<std::string> Explicit);

struct SeqPointTrace {
  int64_t Iteration = 0;
  uint64_t Weight = 0;
  std::string Path;
  /// Microseconds per iteration: recorded in the trace (-1 if it has no
  /// measured iteration), simulated as is, simulated after the pipeline.
  double RecordedUs = -1, BaselineUs = 0, OptimizedUs = 0;
};

struct TraceProjection {
  /// The pipeline as it prints (empty: none, so optimized = baseline).
  std::string Pipeline;
  std::vector<SeqPointTrace> Points;
  /// The whole run: sums of weight times time.
  double BaselineUs = 0, OptimizedUs = 0;
  double speedup() const {
    return OptimizedUs > 0 ? BaselineUs / OptimizedUs : 0;
  }
};

/// Loads \p Paths[j], the trace of SeqPoint \p Bins[j], runs \p Pipeline
/// (parsed by \p Registry) over it and simulates it before and after.
llvm::Expected<TraceProjection>
projectWithTraces(const seqpoint::RunProfile &Run,
                  llvm::ArrayRef<seqpoint::SeqPointBin> Bins,
                  llvm::ArrayRef<std::string> Paths,
                  const PassRegistry &Registry, llvm::StringRef Pipeline);

} // namespace dd

#endif // DAYDREAM_TOOLS_SEQPOINTTRACES_H
