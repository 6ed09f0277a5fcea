//===- BuiltinPasses.h - Entry points of the built-in passes ----*- C++ -*-===//
//
// Declares, from the table in Passes.def, the function each built-in pass
// file defines: passInfoOf<Type>(), its registry entry (passInfo<Type>(),
// Pass/DeclarePass.h). Pass classes themselves stay private to their files.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_PASSES_BUILTINPASSES_H
#define DAYDREAM_PASSES_BUILTINPASSES_H

#include "daydream/Pass/PassRegistry.h"

namespace dd {
#define DD_PASS(TYPE) PassInfo passInfoOf##TYPE();
#include "daydream/Passes/Passes.def"
#undef DD_PASS

/// Registers every pass listed in Passes.def.
void registerBuiltinPasses(PassRegistry &R);
} // namespace dd

#endif // DAYDREAM_PASSES_BUILTINPASSES_H
