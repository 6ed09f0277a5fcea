//===- BuiltinPasses.cpp - Register the passes of Passes.def --------------===//
//
// Expands the table into one registration call per pass.
//
//===----------------------------------------------------------------------===//

#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Pass/PassRegistry.h"

#include "llvm/Support/ErrorHandling.h"

void dd::registerBuiltinPasses(PassRegistry &R) {
#define DD_PASS(NAME, FLAG, ENTRY, DESC)                                       \
  if (llvm::Error E = R.registerPass(PassInfo{                                 \
          NAME, FLAG, DESC, create##ENTRY##Pass, print##ENTRY##PassOptions}))  \
    llvm::report_fatal_error(std::move(E));
#include "daydream/Passes/Passes.def"
}
