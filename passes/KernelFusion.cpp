// STUB: placeholder so the pass table builds while kernel-fusion is written.
#include "daydream/Pass/PassOptions.h"
#include "daydream/Passes/BuiltinPasses.h"
using namespace dd;
llvm::Expected<std::unique_ptr<PassConcept>>
dd::createKernelFusionPass(llvm::StringRef) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "pass 'kernel-fusion' is not written yet");
}
void dd::printKernelFusionPassOptions(llvm::raw_ostream &, unsigned) {}
