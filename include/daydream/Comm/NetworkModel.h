//===- NetworkModel.h - Collective times on a network -----------*- C++ -*-===//
//
// The alpha-beta (Hockney) model of collective communication that the
// multi-rank what-ifs re-time collectives with. A message over a link costs
// a latency alpha plus bytes / beta; a collective of n ranks costs the
// alpha of every step on its critical path plus the bytes its busiest link
// carries over that link's bandwidth. Which steps and how many bytes depends
// on the collective and its algorithm: the bus-bandwidth factors of NCCL's
// tests (nccl-tests doc/PERFORMANCE.md) and the step counts of NCCL's own
// tuning model (src/graph/tuning.cc, ncclTopoTuneModel). A topology of
// identical nodes has two link levels, inside a node (NVLink, PCIe) and
// between nodes (InfiniBand): a group that spans nodes pays the network's
// latency on the steps that cross nodes and moves its data at the network's
// bandwidth, the slowest link bounding every ring step.
//
// Every time is a sum of per-level terms, linear in each level's alpha and
// 1/beta, so that the parameters can be fitted to measured collectives by
// least squares (Calibration.h). docs/Network.md states each formula with
// its source.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_COMM_NETWORKMODEL_H
#define DAYDREAM_COMM_NETWORKMODEL_H

#include "daydream/Comm/CollectiveNames.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Optional.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace dd {
namespace comm {

/// The algorithm the model uses for \p K when a trace says \p A: Default,
/// and an algorithm NCCL does not run for \p K, become the kind's usual one
/// (ring; direct for all-to-all and send/recv). NCCL runs trees only for
/// all-reduce.
Algorithm resolveAlgorithm(CollectiveKind K, Algorithm A);

/// One link level: bandwidth in GB/s (1e9 bytes a second, so bytes / Gbps is
/// nanoseconds) one way, and latency per message in microseconds.
struct Link {
  double Gbps = 0;
  double LatencyUs = 0;
};

/// alpha + bytes / beta of one message over \p L, in nanoseconds.
double alphaBetaNs(double Bytes, const Link &L);

/// Identical nodes of GpusPerNode GPUs each. Intra is what one GPU gets to
/// another in its node; Inter is what a node gets to the others (the NICs
/// its collectives share: 8 x 200 Gb/s on a DGX A100 is 200 GB/s). Ranks
/// are placed node by node (rank r on node r / GpusPerNode); a group whose
/// members are not known is taken to be consecutive ranks, spanning
/// nodesSpanned(n, GpusPerNode) nodes. Nodes is the job's count.
struct Topology {
  int64_t GpusPerNode = 8;
  int64_t Nodes = 1;
  Link Intra;
  Link Inter;
};

/// ceil(Ranks / GpusPerNode), at least 1.
int64_t nodesSpanned(int64_t Ranks, int64_t GpusPerNode);

/// Where a group's ranks sit: Ranks of them on Nodes nodes, at most PerNode
/// on one. What the formulas read: the steps and bytes that cross nodes
/// depend on the nodes a group occupies, not on its size alone (a
/// data-parallel group [0,8,16,24] on nodes of 8 crosses nodes at every
/// step; the tensor-parallel group [0..7] never does).
struct Placement {
  int64_t Ranks = 0;
  int64_t Nodes = 1;
  double PerNode = 1;
};

/// A group of \p Ranks consecutive ranks: nodesSpanned() nodes and, as the
/// formulas have always taken it, n / m ranks on each.
Placement consecutivePlacement(int64_t Ranks, int64_t GpusPerNode);

/// The placement of the ranks \p SortedMembers (ascending): the nodes
/// rank / \p GpusPerNode they occupy and the most ranks on one of them.
Placement placementOf(llvm::ArrayRef<int32_t> SortedMembers,
                      int64_t GpusPerNode);

/// The placement of \p Count ranks \p First, \p First + \p Stride, ...
/// (Stride > 0), without listing them.
Placement stridedPlacement(int64_t First, int64_t Stride, int64_t Count,
                           int64_t GpusPerNode);

/// A collective's cost in model units: steps (hops) that pay each level's
/// latency, and bytes that move at each level's bandwidth. Its time is
/// IntraHops x alpha_intra + IntraBytes / beta_intra + the same for Inter.
struct CostTerms {
  double IntraHops = 0;
  double IntraBytes = 0;
  double InterHops = 0;
  double InterBytes = 0;
};

/// The terms of collective \p K by algorithm \p A of \p Bytes over \p Ranks
/// ranks on nodes of \p GpusPerNode GPUs. \p Bytes is the size NCCL's tests
/// report: an all-reduce's, broadcast's or reduce's buffer, all-gather's
/// gathered output, reduce-scatter's whole input, all-to-all's send buffer,
/// a send's message. Zero for one rank and for Other (not modelled).
CostTerms costTerms(CollectiveKind K, Algorithm A, double Bytes, int64_t Ranks,
                    int64_t GpusPerNode);

/// The same for a group placed as \p P says: its steps inside and across
/// nodes follow the nodes it occupies and the most ranks on one node.
CostTerms costTerms(CollectiveKind K, Algorithm A, double Bytes,
                    const Placement &P);

/// The time of the terms on \p T's links, in nanoseconds.
double timeNs(const CostTerms &C, const Topology &T);

/// The time of collective \p K in nanoseconds: timeNs(costTerms(...), T).
double collectiveTimeNs(CollectiveKind K, Algorithm A, double Bytes,
                        int64_t Ranks, const Topology &T);
double collectiveTimeNs(CollectiveKind K, Algorithm A, double Bytes,
                        const Placement &P, const Topology &T);

/// A one-node topology of \p Ranks GPUs on link \p L (what a flat model of
/// one level, such as ddp-insert's ring, uses).
Topology singleNode(int64_t Ranks, const Link &L);

//===--- Default links ----------------------------------------------------===//

/// A link the model knows figures for, with where they come from.
struct KnownLink {
  std::string Name; ///< "nvlink-a100", "pcie4", "ib-hdr", ...
  Link L;
  std::string What; ///< the link and its source, for reports
};

/// NVLink (Infinity Fabric on MI300X) of the GPUs in GpuSpecs.h, at their
/// per-GPU link bandwidth; PCIe 3/4/5 x16; InfiniBand EDR / HDR / NDR NICs
/// (100 / 200 / 400 Gb/s). Latencies are NCCL's per-step ring latencies of
/// its Simple protocol (tuning.cc: NVLink 3.4 us, PCIe 5.7 us, network
/// 9.6 us).
llvm::ArrayRef<KnownLink> knownLinks();
const KnownLink *findLink(llvm::StringRef Name);

/// The links a job on \p GpuName GPUs (a device name as a trace records it)
/// most likely had: the GPU's NVLink inside a node and, between nodes, the
/// NICs of that GPU's DGX system (DGX-1 V100: 4 x EDR; DGX A100: 8 x HDR;
/// DGX H100, H200, B200: 8 x NDR), their bandwidths added. A GPU without a
/// DGX gets one EDR NIC, an unknown GPU PCIe 4 too. The strings say which,
/// for reports.
struct DefaultLinks {
  Link Intra, Inter;
  std::string IntraWhat, InterWhat;
};
DefaultLinks defaultLinks(llvm::StringRef GpuName);

} // namespace comm
} // namespace dd

#endif // DAYDREAM_COMM_NETWORKMODEL_H
