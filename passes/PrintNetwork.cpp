//===- PrintNetwork.cpp - Print the calibrated network model --------------===//
//
// print<network>{recorded-ranks=0 recorded-gpus-per-node=0 calibrate=true}
//
// What the network what-ifs (dp-ranks, network) rest on: the graph's
// collectives grouped by kind, algorithm, group size, the nodes the group
// occupies (by its members where known) and message size, with their
// recorded times next to the model's, and each link level's latency
// and bandwidth with where they come from (fitted to the trace, or which
// default). Changes nothing.
//
//===----------------------------------------------------------------------===//

#include "NetworkWhatIf.h"

#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <map>
#include <tuple>

using namespace dd;
using namespace dd::comm;
using namespace dd::networkwhatif;

namespace {

void declare(PassOptionParser &P, Options &O) {
  declareOptions(P, O, /*WhatIf=*/false);
}

llvm::Error validate(const Options &O) { return validateOptions(O); }

struct Group {
  size_t Count = 0;
  int64_t MinNs = 0;
  double SumNs = 0;
};

class PrintNetwork {
public:
  static constexpr const char *Name = "print<network>";
  static constexpr const char *Description =
      "Print the graph's collectives and the network model calibrated on them";
  using OptionsT = networkwhatif::Options;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;
  static constexpr bool IsPrinter = true;

  explicit PrintNetwork(Options O) : O(O) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &AM) {
    auto SOr = setUp(G, O);
    if (!SOr)
      return SOr.takeError();
    print(G, *SOr, AM.reportStream());
    return PreservedAnalyses::all();
  }

private:
  static void printLevel(llvm::raw_ostream &OS, llvm::StringRef Name,
                         const LevelCalibration &L) {
    OS << "  " << Name << ": " << figure(L.L.Gbps) << " GB/s, "
       << figure(L.L.LatencyUs) << " us: " << L.describe() << "\n";
  }

  void print(const Graph &G, const Setup &S, llvm::raw_ostream &OS) const {
    OS << "print<network>:\n";
    OS << "  collectives: " << S.NumBarriers << " barriers, "
       << S.Collectives.size() - S.NumBarriers << " recorded kernels\n";
    OS << "  GPUs per node: " << S.GpusPerNodeWhat << "\n";
    printLevel(OS, "intra-node", S.Recorded.Intra);
    printLevel(OS, "inter-node", S.Recorded.Inter);
    using Key = std::tuple<CollectiveKind, Algorithm, int64_t, int64_t, double,
                           uint64_t>;
    std::map<Key, Group> Groups;
    int64_t Gpn = S.Recorded.T.GpusPerNode;
    for (const CollectiveInfo &C : S.Collectives) {
      Placement P = groupPlacement(C, C.Ranks, Gpn);
      Group &Gr = Groups[Key(C.Kind, resolveAlgorithm(C.Kind, C.Alg), C.Ranks,
                             P.Nodes, P.PerNode, C.Bytes)];
      int64_t Ns = G.task(C.Task).DurationNs;
      Gr.MinNs = Gr.Count ? std::min(Gr.MinNs, Ns) : Ns;
      Gr.SumNs += double(Ns);
      ++Gr.Count;
    }
    if (Groups.empty())
      return;
    const char *Row =
        "  {0,-15}{1,-10}{2,6}{3,6}{4,14}{5,7}{6,12}{7,12}{8,12}\n";
    OS << llvm::formatv(Row, "kind", "algorithm", "ranks", "nodes", "bytes",
                        "count", "min-ns", "mean-ns", "model-ns");
    for (const auto &[K, Gr] : Groups) {
      auto [Kind, Alg, Ranks, Nodes, PerNode, Bytes] = K;
      std::string Model = "-";
      if (Bytes > 0 && Kind != CollectiveKind::Other)
        Model = std::to_string(std::llround(
            collectiveTimeNs(Kind, Alg, double(Bytes),
                             Placement{Ranks, Nodes, PerNode}, S.Recorded.T)));
      OS << llvm::formatv(Row, toString(Kind), toString(Alg), Ranks, Nodes,
                          Bytes, Gr.Count, Gr.MinNs,
                          std::llround(Gr.SumNs / double(Gr.Count)), Model);
    }
  }

  Options O;
};

} // namespace

PassInfo dd::passInfoOfPrintNetwork() { return passInfo<PrintNetwork>(); }
