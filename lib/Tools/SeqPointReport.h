//===- SeqPointReport.h - dd-seqpoint's human and JSON reports --*- C++ -*-===//
//
// Formats a SeqPoint selection and what was projected from it. The JSON
// form is a stable interface for scripts:
//   {"input": S, "iterations": N, "profiled_iterations": N, "length": S,
//    "time": S,
//    "distinct_lengths": N, "threshold": X, "converged": B,
//    "seqpoints": [{"iteration": N, "weight": N, "length": N,
//                   "lengths": [N...], "min_length": N, "max_length": N,
//                   "time_us": X|null}],
//    "projected_us": X|null, "measured_us": X|null, "error": X|null,
//    "profiled_error": X|null, "fraction": X, "profiling_reduction": X,
//    "comparison": {"n": N, "profiled_iterations": N, "seqpoint_error": X,
//                   "first_n_error": X,
//                   "random_n": {"draws": N, "seed": N,
//                                "median_abs_error": X,
//                                "worst_abs_error": X}} | null,
//    "other_run": {"input": S, "projected_us": X, "measured_us": X|null,
//                  "error": X|null, "projected_speedup": X,
//                  "measured_speedup": X|null, "speedup_error": X|null},
//    "projection": {"pipeline": S, "baseline_us": X, "optimized_us": X,
//                   "speedup": X,
//                   "seqpoints": [{"iteration": N, "weight": N, "trace": S,
//                                  "recorded_us": X|null, "baseline_us": X,
//                                  "optimized_us": X}]}}
// Errors are (projected - measured) / measured, fractions; "length" is the
// key an iteration is binned by (its lengths combined); "other_run" and
// "projection" are there only when asked for.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TOOLS_SEQPOINTREPORT_H
#define DAYDREAM_TOOLS_SEQPOINTREPORT_H

#include "daydream/SeqPoint/Baselines.h"
#include "daydream/SeqPoint/OtherRun.h"
#include "daydream/SeqPoint/SeqPoint.h"

#include "llvm/ADT/Optional.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace dd {

struct TraceProjection;

struct SeqPointReport {
  const seqpoint::RunProfile *Run = nullptr;
  /// What the key is ("seq_len", "seq_len+seq_len2"), and which time was
  /// read ("time_us").
  std::string Length, Time;
  const seqpoint::Selection *Sel = nullptr;
  seqpoint::Projection Proj;
  /// As a fraction; and whether the count was fixed (-seqpoints=N).
  double Threshold = 0;
  bool Fixed = false;
  llvm::Optional<seqpoint::BaselineComparison> Comparison;
  const seqpoint::OtherRunProjection *Other = nullptr;
  const TraceProjection *Traces = nullptr;
};

void printSeqPointText(const SeqPointReport &R, llvm::raw_ostream &OS);
void printSeqPointJson(const SeqPointReport &R, llvm::raw_ostream &OS);

} // namespace dd

#endif // DAYDREAM_TOOLS_SEQPOINTREPORT_H
