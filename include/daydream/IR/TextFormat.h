//===- TextFormat.h - The readable .ddir text form -------------*- C++ -*-===//
//
// A line-oriented text form for tests and diffs (grammar: docs/IR.md). It
// holds everything the binary form holds and round-trips exactly: binary ->
// text -> binary reproduces the same bytes, because both forms are written in
// canonical order (CanonicalOrder.h).
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IR_TEXTFORMAT_H
#define DAYDREAM_IR_TEXTFORMAT_H

#include "daydream/IR/Graph.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace dd {

/// Parses the text form. Errors read "<line>:<column>: <what>". Does not run
/// verifyGraph(), but does reject references to undefined labels.
llvm::Expected<Graph> parseTextGraph(llvm::StringRef Text);

/// Prints \p G in canonical order. Fails only if \p G has a cycle.
llvm::Error printTextGraph(const Graph &G, llvm::raw_ostream &OS);

} // namespace dd

#endif // DAYDREAM_IR_TEXTFORMAT_H
