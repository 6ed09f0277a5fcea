// STUB: placeholder so the pass table builds while reconstruct-batchnorm is written.
#include "daydream/Pass/PassOptions.h"
#include "daydream/Passes/BuiltinPasses.h"
using namespace dd;
llvm::Expected<std::unique_ptr<PassConcept>>
dd::createReconstructBatchnormPass(llvm::StringRef) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "pass 'reconstruct-batchnorm' is not written yet");
}
void dd::printReconstructBatchnormPassOptions(llvm::raw_ostream &, unsigned) {}
