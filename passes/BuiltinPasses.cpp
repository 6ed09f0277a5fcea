//===- BuiltinPasses.cpp - Register the passes of Passes.def --------------===//
//
// Expands the table into one registration call per pass.
//
//===----------------------------------------------------------------------===//

#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Pass/PassRegistry.h"

#include "llvm/Support/ErrorHandling.h"

void dd::registerBuiltinPasses(PassRegistry &R) {
#define DD_PASS(TYPE)                                                          \
  if (llvm::Error E = R.registerPass(passInfoOf##TYPE()))                      \
    llvm::report_fatal_error(std::move(E));
#include "daydream/Passes/Passes.def"
#undef DD_PASS
}
