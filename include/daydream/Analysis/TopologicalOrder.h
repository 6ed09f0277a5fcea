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

} // namespace dd

#endif // DAYDREAM_ANALYSIS_TOPOLOGICALORDER_H
