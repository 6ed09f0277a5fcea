//===- LayerChains.cpp - Which op a task runs inside ----------------------===//
//
// Each layer is visited once: the walk up a chain stops at the first layer
// already decided, and every layer walked takes its answer on the way back
// down, so a graph's many layers that share their outer chain (every op of
// a step under one annotation) cost one match of that annotation's name.
//
//===----------------------------------------------------------------------===//

#include "daydream/Transforms/LayerChains.h"
#include "daydream/IR/Graph.h"
#include "daydream/Transforms/NameMatcher.h"

using namespace dd;

std::vector<LayerId> dd::nearestMatchingLayers(const Graph &G,
                                               llvm::StringRef Pattern) {
  NameMatcher Matches(G, Pattern);
  size_t N = G.numLayers();
  std::vector<LayerId> Nearest(N, NoId);
  std::vector<char> Done(N, 0);
  std::vector<LayerId> Chain;
  for (LayerId L = 0; L != N; ++L) {
    LayerId At = L;
    // The verifier rejects cycles of parents; the bound keeps an
    // unverified graph from looping.
    while (At < N && !Done[At] && Chain.size() <= N) {
      Chain.push_back(At);
      At = G.layer(At).Parent;
    }
    LayerId Above = At < N && Done[At] ? Nearest[At] : NoId;
    for (size_t I = Chain.size(); I-- > 0;) {
      LayerId C = Chain[I];
      if (Matches.matches(G.layer(C).Name))
        Above = C;
      Nearest[C] = Above;
      Done[C] = 1;
    }
    Chain.clear();
  }
  return Nearest;
}
