//===- GraphQueries.h - Finding tasks and edges of a lowered graph --------===//
//
// What the importer tests ask of the graphs they lower: a task by name, and
// the edges as (source name, destination name, kind) triples, so that an
// expectation reads like the trace it was built from.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_UNITTESTS_IMPORT_GRAPHQUERIES_H
#define DAYDREAM_UNITTESTS_IMPORT_GRAPHQUERIES_H

#include "daydream/IR/Graph.h"

#include "gtest/gtest.h"

#include <set>
#include <string>
#include <tuple>

namespace dd::testing {

/// The \p Nth live task named \p Name; a test failure if there is none.
inline TaskId find(const Graph &G, llvm::StringRef Name, unsigned Nth = 0) {
  for (TaskId T = 0; T != G.numTaskSlots(); ++T)
    if (G.isLive(T) && G.str(G.task(T).Name) == Name && Nth-- == 0)
      return T;
  ADD_FAILURE() << "no task '" << Name.str() << "'";
  return NoId;
}

using EdgeSet = std::set<std::tuple<std::string, std::string, EdgeKind>>;

/// The live edges by the names of their ends.
inline EdgeSet edges(const Graph &G) {
  EdgeSet S;
  for (const Edge &E : G.edgeSlots())
    if (G.isLive(E))
      S.insert({G.str(G.task(E.Src).Name).str(),
                G.str(G.task(E.Dst).Name).str(), E.Kind});
  return S;
}

} // namespace dd::testing

#endif // DAYDREAM_UNITTESTS_IMPORT_GRAPHQUERIES_H
