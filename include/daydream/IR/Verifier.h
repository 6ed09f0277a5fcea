//===- Verifier.h - Semantic checks of a trace graph ------------*- C++ -*-===//
//
// Every tool verifies every input before a pass sees it (after the
// FlatBuffers verifier, for binary files), and `dd-opt -verify-each` verifies
// after every pass. The checks: every id in range (lanes, names, layers,
// attributes, edge ends), enum values known, no self-edges, durations and
// gaps not negative, lane lists consistent with each task's lane, ranks
// stored as copies as RankCopies.h requires, and no cycle through edges and
// lane order together.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IR_VERIFIER_H
#define DAYDREAM_IR_VERIFIER_H

#include "llvm/Support/Error.h"

namespace dd {

class Graph;

/// Returns an error describing the first problem found (without a file name;
/// callers prefix it), or success.
llvm::Error verifyGraph(const Graph &G);

} // namespace dd

#endif // DAYDREAM_IR_VERIFIER_H
