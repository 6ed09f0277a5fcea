//===- BuiltinPasses.h - Entry points of the built-in passes ----*- C++ -*-===//
//
// Declares, from the table in Passes.def, the two functions each built-in
// pass file defines: create<Entry>Pass(options text) and
// print<Entry>PassOptions(stream, indent). Pass classes themselves stay
// private to their files.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_PASSES_BUILTINPASSES_H
#define DAYDREAM_PASSES_BUILTINPASSES_H

#include "daydream/Pass/PassManager.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

namespace dd {
#define DD_PASS(NAME, FLAG, ENTRY, DESC)                                       \
  llvm::Expected<std::unique_ptr<PassConcept>> create##ENTRY##Pass(            \
      llvm::StringRef Options);                                                \
  void print##ENTRY##PassOptions(llvm::raw_ostream &OS, unsigned Indent);
#include "daydream/Passes/Passes.def"
} // namespace dd

#endif // DAYDREAM_PASSES_BUILTINPASSES_H
