// STUB: placeholder so the pass table builds while fused-optimizer is written.
#include "daydream/Pass/PassOptions.h"
#include "daydream/Passes/BuiltinPasses.h"
using namespace dd;
llvm::Expected<std::unique_ptr<PassConcept>>
dd::createFusedOptimizerPass(llvm::StringRef) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "pass 'fused-optimizer' is not written yet");
}
void dd::printFusedOptimizerPassOptions(llvm::raw_ostream &, unsigned) {}
