//===- NetworkWhatIf.cpp - What the network what-ifs share ----------------===//
//
// See NetworkWhatIf.h.
//
//===----------------------------------------------------------------------===//

#include "NetworkWhatIf.h"
#include "daydream/IR/TaskFieldBounds.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <map>
#include <tuple>

using namespace dd;
using namespace dd::comm;
using namespace dd::networkwhatif;
using llvm::StringRef;

std::string networkwhatif::figure(double V) {
  std::string S;
  llvm::raw_string_ostream(S) << llvm::format("%g", V);
  return S;
}

void networkwhatif::declareOptions(PassOptionParser &P, Options &O,
                                   bool WhatIf) {
  P.add("recorded-ranks", O.RecordedRanks,
        "ranks of the recorded (data-parallel) group; 0: the graph's "
        "largest group, or its world size for recorded NCCL kernels");
  P.add("recorded-gpus-per-node", O.RecordedGpusPerNode,
        "GPUs per node of the recorded job; 0: from the trace's hosts, "
        "else 8");
  P.add("calibrate", O.Calibrate,
        "fit the recorded network to the trace's collectives (false: the "
        "GPU's default links)");
  if (!WhatIf)
    return;
  P.add("gpus-per-node", O.GpusPerNode,
        "GPUs per node of the predicted job; 0: as recorded");
  P.add("intra-gbps", O.IntraGbps,
        "bandwidth inside a node, GB/s per GPU one way; 0: as calibrated");
  P.add("intra-latency-us", O.IntraLatencyUs,
        "latency of a step inside a node, us; -1: as calibrated");
  P.add("inter-gbps", O.InterGbps,
        "bandwidth between nodes, GB/s per node one way (its NICs "
        "together); 0: as calibrated");
  P.add("inter-latency-us", O.InterLatencyUs,
        "latency of a step between nodes, us; -1: as calibrated");
}

llvm::Error networkwhatif::validateOptions(const Options &O) {
  if (O.RecordedRanks < 0 || O.RecordedRanks > MaxRanks)
    return optionError("recorded-ranks must be 0 (from the graph) to 1000000");
  if (O.RecordedGpusPerNode < 0 || O.RecordedGpusPerNode > MaxRanks)
    return optionError(
        "recorded-gpus-per-node must be 0 (from the trace) to 1000000");
  if (O.GpusPerNode < 0 || O.GpusPerNode > MaxRanks)
    return optionError("gpus-per-node must be 0 (as recorded) to 1000000");
  for (double Gbps : {O.IntraGbps, O.InterGbps})
    if (Gbps != 0 && !(Gbps >= 1e-6))
      return optionError("intra-gbps and inter-gbps must be 0 (as "
                         "calibrated) or at least 1e-6");
  for (double Us : {O.IntraLatencyUs, O.InterLatencyUs})
    if (Us != KeepLatency && !(Us >= 0 && Us <= 1e9))
      return optionError("intra-latency-us and inter-latency-us must be -1 "
                         "(as calibrated) or 0 to 1e9");
  return llvm::Error::success();
}

std::vector<Sample> networkwhatif::samplesOf(const Graph &G,
                                             llvm::ArrayRef<CollectiveInfo> Cs,
                                             int64_t GpusPerNode) {
  // A strided group and a packed one of the same size are different
  // samples: one crosses nodes, the other may not.
  std::map<
      std::tuple<CollectiveKind, Algorithm, uint64_t, int64_t, int64_t, double>,
      int64_t>
      Shortest;
  for (const CollectiveInfo &C : Cs) {
    if (C.Bytes == 0 || C.Ranks < 2 || C.Kind == CollectiveKind::Other)
      continue;
    Placement P = groupPlacement(C, C.Ranks, GpusPerNode);
    auto Key = std::make_tuple(C.Kind, resolveAlgorithm(C.Kind, C.Alg), C.Bytes,
                               C.Ranks, P.Nodes, P.PerNode);
    int64_t Ns = G.task(C.Task).DurationNs;
    auto [It, New] = Shortest.try_emplace(Key, Ns);
    if (!New)
      It->second = std::min(It->second, Ns);
  }
  std::vector<Sample> Samples;
  for (const auto &[Key, Ns] : Shortest) {
    Sample S;
    std::tie(S.Kind, S.Alg, std::ignore, S.Ranks, S.Nodes, S.PerNode) = Key;
    S.Bytes = double(std::get<2>(Key));
    S.TimeNs = double(Ns);
    Samples.push_back(S);
  }
  return Samples;
}

llvm::Expected<Setup> networkwhatif::setUp(const Graph &G, const Options &O) {
  Setup S;
  S.Collectives = findCollectives(G);
  S.NumBarriers = S.Collectives.size();
  int64_t KernelRanks =
      O.RecordedRanks > 0 ? O.RecordedRanks : recordedWorldSize(G);
  std::vector<CollectiveInfo> Kernels = findCollectiveKernels(G, KernelRanks);
  for (const CollectiveInfo &C : Kernels)
    if (C.Ranks == 0)
      return optionError(
          llvm::formatv(
              "the graph has recorded NCCL kernels ('{0}') but does not say "
              "how "
              "many ranks they ran on (no 'ranks' note, no world size in its "
              "metadata); give recorded-ranks=",
              G.str(G.task(C.Task).Name))
              .str());
  S.Collectives.insert(S.Collectives.end(), Kernels.begin(), Kernels.end());

  int64_t Gpn = O.RecordedGpusPerNode;
  if (Gpn > 0) {
    S.GpusPerNodeWhat = std::to_string(Gpn) + " (given)";
  } else if ((Gpn = recordedGpusPerNode(G)) > 0) {
    S.GpusPerNodeWhat = std::to_string(Gpn) + " (the trace's hosts)";
  } else {
    Gpn = 8;
    S.GpusPerNodeWhat =
        "8 (assumed: the trace does not show how many GPUs a node has)";
  }
  DefaultLinks Defaults = defaultLinks(graphGpuName(G));
  std::vector<Sample> Samples;
  if (O.Calibrate)
    Samples = samplesOf(G, S.Collectives, Gpn);
  S.Recorded = calibrate(Samples, Gpn, Defaults);
  int64_t Largest = 1;
  for (const CollectiveInfo &C : S.Collectives)
    Largest = std::max(Largest, C.Ranks);
  S.Recorded.T.Nodes = nodesSpanned(Largest, Gpn);

  S.New = S.Recorded.T;
  if (O.GpusPerNode > 0)
    S.New.GpusPerNode = O.GpusPerNode;
  if (O.IntraGbps > 0)
    S.New.Intra.Gbps = O.IntraGbps;
  if (O.IntraLatencyUs != KeepLatency)
    S.New.Intra.LatencyUs = O.IntraLatencyUs;
  if (O.InterGbps > 0)
    S.New.Inter.Gbps = O.InterGbps;
  if (O.InterLatencyUs != KeepLatency)
    S.New.Inter.LatencyUs = O.InterLatencyUs;
  S.New.Nodes = nodesSpanned(Largest, S.New.GpusPerNode);
  return std::move(S);
}

int64_t networkwhatif::retimedNs(const Graph &G, const CollectiveInfo &C,
                                 const Setup &S, int64_t NewRanks) {
  double Ns = retimeNs(
      double(G.task(C.Task).DurationNs), C.Kind, C.Alg, C.Bytes,
      groupPlacement(C, C.Ranks, S.Recorded.T.GpusPerNode), S.Recorded.T,
      groupPlacement(C, NewRanks, S.New.GpusPerNode), S.New);
  return roundNs(Ns);
}
