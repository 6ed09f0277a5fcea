//===- TopologicalOrder.h - Cached canonical task order ---------*- C++ -*-===//
//
// The canonical (topological) order of the live tasks as an analysis, so that
// passes and printers that walk the graph in dependency order share one
// computation. It depends only on the graph's structure.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_ANALYSIS_TOPOLOGICALORDER_H
#define DAYDREAM_ANALYSIS_TOPOLOGICALORDER_H

#include "daydream/IR/CanonicalOrder.h"
#include "daydream/Pass/AnalysisManager.h"

#include <string>

namespace dd {

class TopologicalOrderAnalysis {
public:
  struct Result {
    CanonicalOrder Order;
    /// Set if the graph has a cycle (only after a faulty pass: inputs are
    /// verified); Order is then empty.
    std::string Error;
  };
  static AnalysisKey Key;
  static llvm::StringRef name() { return "topological-order"; }
  Result run(Graph &G, AnalysisManager &AM);
};

template <> struct AnalysisSetOf<TopologicalOrderAnalysis> {
  static AnalysisSetKey *get() { return StructureAnalyses::ID(); }
};

/// The order a simulation of \p G needs: the cached one if there is one, a
/// new (cached) one for a graph a pass reordered, and null for a graph in
/// canonical order, as read, which the simulator and the critical path
/// sweep in slot order (the order's arrays would cost more than the
/// replay). An error if the graph has a cycle.
llvm::Expected<const CanonicalOrder *> orderForSimulation(Graph &G,
                                                          AnalysisManager &AM);

} // namespace dd

#endif // DAYDREAM_ANALYSIS_TOPOLOGICALORDER_H
