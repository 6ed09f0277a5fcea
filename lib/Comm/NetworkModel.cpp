//===- NetworkModel.cpp - How long a collective takes on a network --------===//
//
// The formulas, with their sources, are in docs/Network.md; the comments
// here say how each maps onto the two link levels.
//
//===----------------------------------------------------------------------===//

#include "daydream/Comm/NetworkModel.h"
#include "daydream/Device/GpuSpecs.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <vector>

using namespace dd;
using namespace dd::comm;
using llvm::StringRef;

Algorithm comm::resolveAlgorithm(CollectiveKind K, Algorithm A) {
  switch (K) {
  case CollectiveKind::AllReduce:
    return A == Algorithm::Tree ? Algorithm::Tree : Algorithm::Ring;
  case CollectiveKind::AllToAll:
  case CollectiveKind::SendRecv:
    return Algorithm::Direct;
  case CollectiveKind::Other:
    return Algorithm::Default;
  default:
    return Algorithm::Ring;
  }
}

double comm::alphaBetaNs(double Bytes, const Link &L) {
  double LatencyNs = L.LatencyUs * 1000;
  return Bytes > 0 ? LatencyNs + Bytes / L.Gbps : LatencyNs;
}

int64_t comm::nodesSpanned(int64_t Ranks, int64_t GpusPerNode) {
  if (Ranks <= 1 || GpusPerNode <= 0)
    return 1;
  return (Ranks + GpusPerNode - 1) / GpusPerNode;
}

Placement comm::consecutivePlacement(int64_t Ranks, int64_t GpusPerNode) {
  int64_t M = nodesSpanned(Ranks, GpusPerNode);
  return Placement{Ranks, M, Ranks > 0 ? double(Ranks) / double(M) : 1};
}

Placement comm::placementOf(llvm::ArrayRef<int32_t> SortedMembers,
                            int64_t GpusPerNode) {
  Placement P{int64_t(SortedMembers.size()), 1, 1};
  if (SortedMembers.empty() || GpusPerNode <= 0)
    return consecutivePlacement(P.Ranks, GpusPerNode);
  // Ascending ranks visit their nodes in order: count the runs.
  int64_t Nodes = 0, Run = 0, Most = 0, Node = -1;
  for (int32_t R : SortedMembers) {
    int64_t N = R / GpusPerNode;
    if (N != Node) {
      ++Nodes;
      Run = 0;
      Node = N;
    }
    Most = std::max(Most, ++Run);
  }
  P.Nodes = Nodes;
  P.PerNode = double(Most);
  return P;
}

Placement comm::stridedPlacement(int64_t First, int64_t Stride, int64_t Count,
                                 int64_t GpusPerNode) {
  if (Count <= 0 || Stride <= 0 || GpusPerNode <= 0 || First < 0)
    return consecutivePlacement(Count, GpusPerNode);
  if (Stride >= GpusPerNode)
    return Placement{Count, Count, 1}; // one rank a node
  // Fewer than a node apart: no node between the first and the last is
  // skipped, and the members of one node are a run.
  int64_t Nodes =
      (First + (Count - 1) * Stride) / GpusPerNode - First / GpusPerNode + 1;
  int64_t Most = 0;
  for (int64_t I = 0; I < Count;) {
    int64_t Node = (First + I * Stride) / GpusPerNode;
    // The last member on this node: ranks up to (Node + 1) G - 1.
    int64_t Last =
        std::min(Count - 1, ((Node + 1) * GpusPerNode - 1 - First) / Stride);
    Most = std::max(Most, Last - I + 1);
    I = Last + 1;
  }
  return Placement{Count, Nodes, double(Most)};
}

CostTerms comm::costTerms(CollectiveKind K, Algorithm A, double Bytes,
                          int64_t Ranks, int64_t GpusPerNode) {
  return costTerms(K, A, Bytes, consecutivePlacement(Ranks, GpusPerNode));
}

CostTerms comm::costTerms(CollectiveKind K, Algorithm A, double Bytes,
                          const Placement &P) {
  CostTerms C;
  if (P.Ranks <= 1 || K == CollectiveKind::Other)
    return C;
  // n ranks on m nodes, g of them on the busiest.
  double N = double(P.Ranks);
  double M = double(std::max<int64_t>(1, P.Nodes));
  double PerNode = std::max(1.0, P.PerNode);
  bool OneNode = M == 1;
  // The steps that stay in a node pay its latency, those that cross nodes
  // the network's (NCCL's nsteps - nInterSteps and nInterSteps); the data
  // moves at the bandwidth of the slowest level the group uses.
  auto Set = [&](double IntraHops, double InterHops, double LinkBytes) {
    C.IntraHops = IntraHops;
    C.InterHops = InterHops;
    (OneNode ? C.IntraBytes : C.InterBytes) = LinkBytes;
  };
  switch (K) {
  case CollectiveKind::AllReduce:
    if (resolveAlgorithm(K, A) == Algorithm::Tree) {
      // NCCL's tree: a chain inside each node, a double binary tree of
      // depth ceil(log2 m) across nodes, up (reduce) and down (broadcast);
      // each half of the data goes through an inner node of one tree.
      Set(2 * (PerNode - 1), 2 * double(llvm::Log2_64_Ceil(uint64_t(M))),
          2 * Bytes);
      break;
    }
    // Ring: reduce-scatter then all-gather, n - 1 steps each, every link
    // carrying 2(n-1)/n of the data.
    Set(2 * (N - M), 2 * (M - 1), 2 * (N - 1) / N * Bytes);
    break;
  case CollectiveKind::AllGather:
  case CollectiveKind::ReduceScatter:
    Set(N - M, M - 1, (N - 1) / N * Bytes);
    break;
  case CollectiveKind::Broadcast:
  case CollectiveKind::Reduce:
    // A pipelined chain: the first chunk crosses n - 1 links, and all of
    // the data leaves (or reaches) the root.
    Set(N - M, M - 1, Bytes);
    break;
  case CollectiveKind::AllToAll:
    // Pairwise: a message to each of the n - 1 others. Across nodes the
    // node's g GPUs send (n - g) / n of their buffers out through the
    // node's NICs at once; the traffic inside the node overlaps it.
    if (OneNode)
      Set(N - 1, 0, (N - 1) / N * Bytes);
    else
      Set(PerNode - 1, N - PerNode, PerNode * (N - PerNode) / N * Bytes);
    break;
  case CollectiveKind::SendRecv:
    // One message; between nodes if the group does not fit in one.
    Set(OneNode ? 1 : 0, OneNode ? 0 : 1, Bytes);
    break;
  case CollectiveKind::Other:
    break;
  }
  return C;
}

double comm::timeNs(const CostTerms &C, const Topology &T) {
  // Terms in the order ddp-insert always added them (bytes, then latency),
  // which keeps its rounding.
  double Ns = 0;
  if (C.IntraBytes > 0)
    Ns += C.IntraBytes / T.Intra.Gbps;
  if (C.IntraHops > 0)
    Ns += C.IntraHops * T.Intra.LatencyUs * 1000;
  if (C.InterBytes > 0)
    Ns += C.InterBytes / T.Inter.Gbps;
  if (C.InterHops > 0)
    Ns += C.InterHops * T.Inter.LatencyUs * 1000;
  return Ns;
}

double comm::collectiveTimeNs(CollectiveKind K, Algorithm A, double Bytes,
                              int64_t Ranks, const Topology &T) {
  return timeNs(costTerms(K, A, Bytes, Ranks, T.GpusPerNode), T);
}

double comm::collectiveTimeNs(CollectiveKind K, Algorithm A, double Bytes,
                              const Placement &P, const Topology &T) {
  return timeNs(costTerms(K, A, Bytes, P), T);
}

Topology comm::singleNode(int64_t Ranks, const Link &L) {
  Topology T;
  T.GpusPerNode = std::max<int64_t>(Ranks, 1);
  T.Nodes = 1;
  T.Intra = L;
  T.Inter = L;
  return T;
}

//===--- Default links ----------------------------------------------------===//

namespace {

/// A figure as people write it: 15.75, 450, 0.5.
std::string num(double V) {
  std::string S;
  llvm::raw_string_ostream(S) << llvm::format("%g", V);
  return S;
}

// NCCL's per-step latencies of its ring Simple protocol, the protocol of
// large messages (src/graph/tuning.cc, hwLat).
constexpr double NvlinkLatencyUs = 3.4;
constexpr double PcieLatencyUs = 5.7;
constexpr double NetLatencyUs = 9.6;

std::vector<KnownLink> buildLinks() {
  std::vector<KnownLink> Links;
  // The per-GPU links of GpuSpecs.h, so that one table holds them.
  for (const GpuSpec &S : knownGpus()) {
    // PCIe-only parts: their link is the slot, which the PCIe entries
    // below describe.
    if (S.LinkGBps <= 32)
      continue;
    bool Amd = S.Vendor == GpuVendor::Amd;
    std::string Name = (Amd ? "xgmi-" : "nvlink-") + S.Name.str();
    Links.push_back(
        {Name,
         {S.LinkGBps, NvlinkLatencyUs},
         llvm::formatv("{0} of the {1}: {2} GB/s per GPU one way "
                       "(GpuSpecs.h), {3} us per step (NCCL's NVLink figure)",
                       Amd ? "Infinity Fabric" : "NVLink", S.Name.upper(),
                       num(S.LinkGBps), num(NvlinkLatencyUs))
             .str()});
  }
  // x16 links one way: 8, 16, 32 GT/s a lane, 128b/130b encoding.
  const std::pair<const char *, double> Pcie[] = {
      {"3", 15.75}, {"4", 31.5}, {"5", 63.0}};
  for (auto [Gen, Gbps] : Pcie)
    Links.push_back({std::string("pcie") + Gen,
                     {Gbps, PcieLatencyUs},
                     llvm::formatv("PCIe {0}.0 x16: {1} GB/s one way, {2} us "
                                   "per step (NCCL's PCI figure)",
                                   Gen, num(Gbps), num(PcieLatencyUs))
                         .str()});
  const std::tuple<const char *, const char *, double> Ib[] = {
      {"ib-edr", "EDR", 100}, {"ib-hdr", "HDR", 200}, {"ib-ndr", "NDR", 400}};
  for (auto [Name, Rate, Gbit] : Ib)
    Links.push_back(
        {Name,
         {Gbit / 8, NetLatencyUs},
         llvm::formatv("one InfiniBand {0} NIC: {1} Gb/s = {2} "
                       "GB/s one way, {3} us per step (NCCL's "
                       "network figure)",
                       Rate, num(Gbit), num(Gbit / 8), num(NetLatencyUs))
             .str()});
  return Links;
}

/// NICs of the DGX system of each GPU (the vendor's datasheets).
struct DgxNics {
  StringRef Gpu, System, Nic;
  int Count;
};
const DgxNics Dgx[] = {
    {"v100", "DGX-1 with V100", "ib-edr", 4}, {"a100", "DGX A100", "ib-hdr", 8},
    {"h100", "DGX H100", "ib-ndr", 8},        {"h200", "DGX H200", "ib-ndr", 8},
    {"b200", "DGX B200", "ib-ndr", 8},
};

} // namespace

llvm::ArrayRef<KnownLink> comm::knownLinks() {
  static const std::vector<KnownLink> Links = buildLinks();
  return Links;
}

const KnownLink *comm::findLink(StringRef Name) {
  for (const KnownLink &L : knownLinks())
    if (Name.equals_insensitive(L.Name))
      return &L;
  return nullptr;
}

DefaultLinks comm::defaultLinks(StringRef GpuName) {
  DefaultLinks D;
  const GpuSpec *Gpu = GpuName.empty() ? nullptr : findGpu(GpuName);
  const KnownLink *Intra = nullptr;
  if (Gpu)
    for (const KnownLink &L : knownLinks())
      if (StringRef(L.Name).endswith(("-" + Gpu->Name).str()))
        Intra = &L;
  if (Intra) {
    D.Intra = Intra->L;
    D.IntraWhat = Intra->Name + ": " + Intra->What;
  } else {
    const KnownLink *P = findLink("pcie4");
    D.Intra = P->L;
    D.IntraWhat =
        P->Name + " (" +
        (GpuName.empty() ? std::string("no GPU named in the graph")
                         : "GPU '" + GpuName.str() + "' not in the table") +
        "): " + P->What;
  }
  for (const DgxNics &X : Dgx)
    if (Gpu && Gpu->Name == X.Gpu) {
      const KnownLink *Nic = findLink(X.Nic);
      D.Inter = {Nic->L.Gbps * X.Count, Nic->L.LatencyUs};
      D.InterWhat = llvm::formatv("{0} x {1} ({2}): {3}", X.Count, Nic->Name,
                                  X.System, Nic->What)
                        .str();
      return D;
    }
  const KnownLink *Nic = findLink("ib-edr");
  D.Inter = Nic->L;
  D.InterWhat = "1 x " + Nic->Name + " (" +
                (Gpu ? "no DGX figures for the " + Gpu->Name.upper()
                     : std::string("GPU not in the table")) +
                "): " + Nic->What;
  return D;
}
