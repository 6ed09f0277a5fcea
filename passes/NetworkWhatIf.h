//===- NetworkWhatIf.h - What the network what-ifs share --------*- C++ -*-===//
//
// The three passes see a graph's collectives the same way: they find them
// (barriers of a multi-rank job, or a single rank's NCCL kernels), calibrate
// the network model on their recorded times (docs/Network.md), and, for the
// what-ifs, apply the user's network to a copy of the calibrated one. A
// what-if then scales each recorded time by the model's new time over its
// calibrated time, so that whatever the model does not capture stays as
// recorded and an unchanged network keeps every time exactly.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_PASSES_NETWORKWHATIF_H
#define DAYDREAM_PASSES_NETWORKWHATIF_H

#include "daydream/Comm/Calibration.h"
#include "daydream/Comm/Collectives.h"
#include "daydream/IR/Graph.h"
#include "daydream/Pass/PassOptions.h"

#include <string>
#include <vector>

namespace dd {
namespace networkwhatif {

/// The latency option's "as calibrated".
constexpr double KeepLatency = -1;

struct Options {
  /// Group size of recorded NCCL kernels without notes, and dp-ranks'
  /// recorded data-parallel size; 0: from the graph.
  int64_t RecordedRanks = 0;
  /// Node size of the recorded job; 0: from the trace's hosts, else 8.
  int64_t RecordedGpusPerNode = 0;
  bool Calibrate = true;
  /// The what-if's network. 0 GPUs per node or GB/s, -1 us: as recorded
  /// (calibrated), the sentinels of the project's other bandwidth options.
  int64_t GpusPerNode = 0;
  double IntraGbps = 0, InterGbps = 0;
  double IntraLatencyUs = KeepLatency, InterLatencyUs = KeepLatency;
};

/// Declares the options of the recorded job and, with \p WhatIf, those of
/// the network to predict.
void declareOptions(PassOptionParser &P, Options &O, bool WhatIf);
llvm::Error validateOptions(const Options &O);

/// Bounds that keep every count and time finite.
constexpr int64_t MaxRanks = 1000000;

/// The graph's collectives and the model of its network.
struct Setup {
  /// Barriers, then the recorded kernels no barrier joins.
  std::vector<comm::CollectiveInfo> Collectives;
  size_t NumBarriers = 0;
  /// The recorded network: calibrated, or the defaults without calibrate.
  comm::Calibration Recorded;
  /// "8 (assumed: ...)": the recorded node size and where it comes from.
  std::string GpusPerNodeWhat;
  /// The what-if's network: Recorded.T with the options applied.
  comm::Topology New;
};

/// Finds the collectives of \p G and calibrates the model. Fails if a
/// recorded kernel's group size is unknown (no notes, no world size in the
/// metadata, no recorded-ranks=).
llvm::Expected<Setup> setUp(const Graph &G, const Options &O);

/// The calibration samples: per distinct kind, algorithm, size and group
/// size and placement on nodes of \p GpusPerNode, the shortest recorded
/// time (for a recorded kernel the rest is waiting for other ranks).
std::vector<comm::Sample> samplesOf(const Graph &G,
                                    llvm::ArrayRef<comm::CollectiveInfo> Cs,
                                    int64_t GpusPerNode);

/// \p C's duration re-timed from the recorded network with its group size to
/// \p S.New with \p NewRanks ranks, rounded to the nanosecond. Each side
/// places the group by its members where known (comm::groupPlacement).
int64_t retimedNs(const Graph &G, const comm::CollectiveInfo &C, const Setup &S,
                  int64_t NewRanks);

/// A figure for reports: "%g".
std::string figure(double V);

} // namespace networkwhatif
} // namespace dd

#endif // DAYDREAM_PASSES_NETWORKWHATIF_H
