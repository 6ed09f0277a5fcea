//===- LayerChains.h - Which op a task runs inside ---------------*- C++
//-*-===//
//
// A layer is a chain of the CPU ranges (ops, annotations, modules) that
// enclosed a task, innermost first (Layer::Parent). "Does this task run
// inside the DataLoader?" is a question about the whole chain, asked once
// per layer rather than once per task: within= selectors, and passes that
// find the work of one op wherever it nests (dataloader-workers).
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TRANSFORMS_LAYERCHAINS_H
#define DAYDREAM_TRANSFORMS_LAYERCHAINS_H

#include "daydream/IR/Types.h"

#include "llvm/ADT/StringRef.h"

#include <vector>

namespace dd {

class Graph;

/// For each layer of \p G, the nearest layer of its chain (itself first,
/// then its parent, ...) whose name contains a match of the regex
/// \p Pattern, or NoId. One regex match per distinct name and one visit
/// per layer. \p Pattern must be a valid regex.
std::vector<LayerId> nearestMatchingLayers(const Graph &G,
                                           llvm::StringRef Pattern);

} // namespace dd

#endif // DAYDREAM_TRANSFORMS_LAYERCHAINS_H
