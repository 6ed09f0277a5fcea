//===- Calibration.h - Fit the network model to a trace ---------*- C++ -*-===//
//
// A trace that records collectives with their sizes measures the network it
// ran on. The model's time is linear in each link level's latency alpha and
// inverse bandwidth 1/beta (NetworkModel.h), so alpha and beta of a level
// follow from its collectives by least squares of relative errors (each
// weighs by 1 / time^2, so that short collectives count as much as long
// ones): exactly, from two
// collectives that weigh latency and bandwidth differently (two sizes of
// one kind, or one size over two group sizes). With one size only the
// bandwidth is fitted, the latency kept at its default; with none, or a fit
// that makes no physical sense (a bandwidth that is not positive), the
// level keeps its default link. A negative fitted latency becomes 0 and the
// bandwidth is fitted again. The result says, per level, which of these
// happened, so that reports can tell the user what the prediction rests on.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_COMM_CALIBRATION_H
#define DAYDREAM_COMM_CALIBRATION_H

#include "daydream/Comm/NetworkModel.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>

namespace dd {
namespace comm {

/// One measured collective.
struct Sample {
  CollectiveKind Kind = CollectiveKind::AllReduce;
  Algorithm Alg = Algorithm::Default;
  double Bytes = 0;
  int64_t Ranks = 0;
  double TimeNs = 0;
  /// Where the group's ranks sat (Placement); Nodes 0: consecutive ranks.
  int64_t Nodes = 0;
  double PerNode = 0;

  Placement placement(int64_t GpusPerNode) const {
    return Nodes > 0 ? Placement{Ranks, Nodes, PerNode}
                     : consecutivePlacement(Ranks, GpusPerNode);
  }
};

/// Where a level's link came from.
enum class LinkSource {
  Default,         ///< no usable measurement: the default link
  Fitted,          ///< latency and bandwidth fitted
  BandwidthFitted, ///< bandwidth fitted, latency the default's
};

struct LevelCalibration {
  Link L;
  LinkSource Source = LinkSource::Default;
  /// Samples whose data moved over this level, and their distinct sizes.
  unsigned Samples = 0;
  unsigned Sizes = 0;
  /// The fit gave a negative latency, so 0 was used.
  bool LatencyClamped = false;
  /// The default link and where its figures come from (DefaultLinks).
  std::string DefaultWhat;

  /// One line: "fitted to 4 distinct collectives of 2 sizes",
  /// "default, no measured collective: ...".
  std::string describe() const;
};

struct Calibration {
  Topology T;
  LevelCalibration Intra, Inter;
};

/// Fits both levels of nodes of \p GpusPerNode GPUs to \p Samples, starting
/// from \p Defaults. Samples of one node fit the intra-node level; samples
/// that span nodes then fit the inter-node level, their intra-node steps
/// timed with the intra-node latency found first. Samples without bytes or
/// time, of one rank or of kind Other are not used. T.Nodes is 1.
Calibration calibrate(llvm::ArrayRef<Sample> Samples, int64_t GpusPerNode,
                      const DefaultLinks &Defaults);

} // namespace comm
} // namespace dd

#endif // DAYDREAM_COMM_CALIBRATION_H
