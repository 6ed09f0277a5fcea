//===- PrintStats.cpp - Print counts and the longest dependency chain -----===//
//
// print<stats>{json=false}
//
// A printer pass in the LLVM style: it computes nothing it could get from an
// analysis (the task order comes from TopologicalOrderAnalysis) and changes
// nothing, so it preserves every analysis. It writes to the analysis manager's
// report stream, in a fixed order, as text or as JSON.
//
//===----------------------------------------------------------------------===//

#include "daydream/Analysis/TopologicalOrder.h"
#include "daydream/IR/Graph.h"
#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"

#include "llvm/Support/JSON.h"

using namespace dd;

namespace {

struct PrintStatsOptions {
  bool Json = false;
};

void declare(PassOptionParser &P, PrintStatsOptions &O) {
  P.add("json", O.Json, "print JSON instead of text");
}

struct Stats {
  uint64_t Tasks = 0, Edges = 0, LongestChain = 0;
  uint64_t ByTaskKind[NumTaskKinds] = {};
  uint64_t ByEdgeKind[NumEdgeKinds] = {};
  uint64_t ByLaneKind[NumLaneKinds] = {};
};

/// Number of tasks on the longest path through edges and lane order.
uint64_t longestChain(const Graph &G, const CanonicalOrder &C) {
  std::vector<Edge> Edges = canonicalEdges(G, C); // sorted by new source id
  std::vector<uint64_t> Depth(C.Order.size(), 1);
  std::vector<TaskId> LaneLast(G.numLanes(), NoId);
  uint64_t Best = 0;
  size_t E = 0;
  for (TaskId New = 0; New != C.Order.size(); ++New) {
    // Lane order: the previous task on this lane comes earlier in Order.
    LaneId L = G.task(C.Order[New]).Lane;
    if (LaneLast[L] != NoId)
      Depth[New] = std::max(Depth[New], Depth[LaneLast[L]] + 1);
    LaneLast[L] = New;
    Best = std::max(Best, Depth[New]);
    for (; E != Edges.size() && Edges[E].Src == New; ++E)
      Depth[Edges[E].Dst] = std::max(Depth[Edges[E].Dst], Depth[New] + 1);
  }
  return Best;
}

template <typename EnumT, size_t N>
void printCounts(llvm::raw_ostream &OS, const uint64_t (&Counts)[N]) {
  for (size_t I = 0; I != N; ++I)
    if (Counts[I])
      OS << "    " << toString(EnumT(I)) << " " << Counts[I] << "\n";
}

template <typename EnumT, size_t N>
llvm::json::Object jsonCounts(const uint64_t (&Counts)[N]) {
  llvm::json::Object O;
  for (size_t I = 0; I != N; ++I)
    if (Counts[I])
      O[toString(EnumT(I))] = int64_t(Counts[I]);
  return O;
}

class PrintStats {
public:
  static constexpr const char *Name = "print<stats>";
  static constexpr const char *Description =
      "Print counts of tasks, edges and lanes, and the longest dependency "
      "chain";
  using OptionsT = PrintStatsOptions;
  static constexpr auto Declare = &declare;
  static constexpr bool IsPrinter = true;

  explicit PrintStats(PrintStatsOptions O) : O(O) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &AM) {
    auto &Topo = AM.getResult<TopologicalOrderAnalysis>(G);
    if (!Topo.Error.empty())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     Topo.Error);
    Stats S;
    for (TaskId T : Topo.Order.Order)
      ++S.ByTaskKind[unsigned(G.task(T).Kind)];
    S.Tasks = Topo.Order.Order.size();
    for (const Edge &E : G.edgeSlots())
      if (G.isLive(E)) {
        ++S.ByEdgeKind[unsigned(E.Kind)];
        ++S.Edges;
      }
    for (const Lane &L : G.lanes())
      ++S.ByLaneKind[unsigned(L.Kind)];
    S.LongestChain = longestChain(G, Topo.Order);
    print(G, S, AM.reportStream());
    return PreservedAnalyses::all();
  }

private:
  void print(const Graph &G, const Stats &S, llvm::raw_ostream &OS) const {
    if (O.Json) {
      llvm::json::Object Root{
          {"tasks", int64_t(S.Tasks)},
          {"tasks_by_kind", jsonCounts<TaskKind>(S.ByTaskKind)},
          {"edges", int64_t(S.Edges)},
          {"edges_by_kind", jsonCounts<EdgeKind>(S.ByEdgeKind)},
          {"lanes", int64_t(G.numLanes())},
          {"lanes_by_kind", jsonCounts<LaneKind>(S.ByLaneKind)},
          {"layers", int64_t(G.numLayers())},
          {"iterations", int64_t(G.iterations().size())},
          {"longest_chain", int64_t(S.LongestChain)}};
      OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(Root))) << "\n";
      return;
    }
    OS << "print<stats>:\n";
    OS << "  tasks " << S.Tasks << "\n";
    printCounts<TaskKind>(OS, S.ByTaskKind);
    OS << "  edges " << S.Edges << "\n";
    printCounts<EdgeKind>(OS, S.ByEdgeKind);
    OS << "  lanes " << G.numLanes() << "\n";
    printCounts<LaneKind>(OS, S.ByLaneKind);
    OS << "  layers " << G.numLayers() << "\n";
    OS << "  iterations " << G.iterations().size() << "\n";
    OS << "  longest-chain " << S.LongestChain << "\n";
  }

  PrintStatsOptions O;
};

} // namespace

PassInfo dd::passInfoOfPrintStats() { return passInfo<PrintStats>(); }
