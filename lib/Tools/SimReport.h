//===- SimReport.h - dd-sim's human and JSON reports ------------*- C++ -*-===//
//
// Formats a SimResult. The JSON form is a stable interface for scripts:
//   {"input": S, "policy": S, "tasks": N, "edges": N,
//    "predicted_ns": N, "origin_ns": N,
//    "iterations": [{"name": S, "measured_ns": N|null, "predicted_ns": N|null,
//                    "error": X|null}],
//    "prediction": B, "pipelines": [{"pipeline": S, "tool": S, "input": S}],
//    "steady_state": {"rule": S, "steps": N, "measured_ns": N|null,
//                     "predicted_ns": N|null, "error": X|null},
//    "lanes": [{"name": S, "kind": S, "tasks": N, "busy_ns": N}],
//    "headline": {"critical_path_ns": N, "critical_path_tasks": N,
//                 "critical_path_share": {"gpu": X, "cpu": X,
//                                         "communication": X, "gaps": X},
//                 "gpu_compute_utilization": [{"device": N, "share": X}],
//                 "communication_overlap": X|null},
//    "memory": [{"device": N, "peak_bytes": N, "at_ns": N, "iteration": S|null,
//                "breakdown": {CATEGORY: N, ...}, "recorded_peak_bytes": N,
//                "before_trace_bytes": N|null}]}
// where "predicted_ns" at the top is the whole trace's span (first task to
// last), "error" is (predicted - measured) / measured, shares are fractions
// of the predicted run, and "headline" is there unless -headline=false.
// A prediction (a graph a pipeline changed: "prediction" true, its
// "pipelines" listed) says "baseline_ns" for "measured_ns" and "change_pct"
// (a percentage) for "error", per iteration and in "steady_state", and adds
// "speedup": the steady state's baseline / predicted (SteadyState.h).
// "memory" is per device (-1 the host), the peak of the memory replayed in
// simulated time (MemoryBreakdown.h) at "at_ns" from the run's start, with
// TBD's breakdown at the peak; empty, with a "memory_note", for a graph
// without memory events.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TOOLS_SIMREPORT_H
#define DAYDREAM_TOOLS_SIMREPORT_H

#include "llvm/ADT/Optional.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace dd {

class Graph;
struct CanonicalOrder;
struct SimResult;
struct SymmetryReduction;
struct SimOptions;
class UtilizationObserver;
struct MemoryBreakdown;

/// The figures people decide from (docs/passes/print-critical-path.md and
/// print-utilization.md have the definitions and the full reports).
struct SimHeadline {
  int64_t CriticalPathNs = 0;
  uint64_t CriticalPathTasks = 0;
  /// Time on the critical path on GPU streams, CPU threads, communication
  /// channels, and in untraced gaps.
  int64_t OnGpuNs = 0, OnCpuNs = 0, OnCommNs = 0, GapNs = 0;
  /// (device, kernel time as a union) per GPU.
  std::vector<std::pair<int32_t, int64_t>> GpuComputeNs;
  /// Communication time and the part of it that overlapped kernels.
  int64_t CommunicationNs = 0, OverlappedCommunicationNs = 0;
  /// Where the figures came from, for dd-sim -time-phases: "the sweep" or
  /// "the task times" for the critical path; "the lanes' sums", "the
  /// observer" or "the task times" for the utilization.
  const char *PathFrom = "", *UtilizationFrom = "";
};

/// A graph's live tasks and edges, counted where no one graph holds them.
struct JobCounts {
  uint64_t Tasks = 0;
  uint64_t Edges = 0;
};

struct SimReportInfo {
  llvm::StringRef InputName;
  llvm::StringRef PolicyName;
  /// Null: no headline section.
  const SimHeadline *Headline = nullptr;
  /// Set when identical ranks were left out of the simulation; the graph
  /// is then the reduced one and the report counts what was left out.
  const SymmetryReduction *Symmetry = nullptr;
  /// The memory replayed in simulated time (with the recorded peak); null
  /// when the graph has no memory events (the report says so).
  const MemoryBreakdown *Memory = nullptr;
  /// Set where the graph is one process's share of a split job
  /// (Import/JobShare.h): the whole job's counts, which the report gives.
  const JobCounts *Job = nullptr;
};

/// Gives \p H, computed on a graph reduced by symmetry, the GPUs of the
/// ranks left out (their representatives' figures).
void expandHeadline(const SymmetryReduction &S, const Graph &G, SimHeadline &H);

/// Asks \p SO, the options of a simulation of \p G, to measure on the way
/// what the headline needs of every task's times: the critical path's
/// totals, and (where the lanes' sums will not do, utilizationFromLanes())
/// the utilization, with \p Observer, which this sets up.
void requestHeadline(const Graph &G, SimOptions &SO,
                     llvm::Optional<UtilizationObserver> &Observer);

/// Computes the headline figures of \p R, a simulation of \p G whose
/// canonical order is \p Order (the one the simulation ran in, so that it is
/// computed once), or null if none was needed: it is then computed only if
/// the critical path needs it (summarizeCriticalPath()). What the simulation
/// measured on the way (requestHeadline()) is taken as it is: the critical
/// path's totals (R.CriticalPath), and the utilization from the lanes' sums
/// or from \p Observed, the observer that saw the simulation (R.Observed);
/// the rest is measured from R's task times. None where R has neither (the
/// lanes' sums did not do after all, and no times were kept): the caller
/// simulates again, keeping the times. \p R as simulate() returned it.
llvm::Expected<llvm::Optional<SimHeadline>>
computeHeadline(const Graph &G, const SimResult &R, const CanonicalOrder *Order,
                UtilizationObserver *Observed = nullptr);

void printSimReportText(const Graph &G, const SimResult &R,
                        const SimReportInfo &Info, llvm::raw_ostream &OS);
void printSimReportJson(const Graph &G, const SimResult &R,
                        const SimReportInfo &Info, llvm::raw_ostream &OS);
/// The iterations and the steady state as CSV (RFC 4180), for spreadsheets:
/// iteration,rank,measured_ns|baseline_ns,predicted_ns,error_pct|change_pct.
void printSimReportCsv(const Graph &G, const SimResult &R,
                       llvm::raw_ostream &OS);

} // namespace dd

#endif // DAYDREAM_TOOLS_SIMREPORT_H
