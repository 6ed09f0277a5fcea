// STUB: placeholder so the pass table builds while retarget-gpu is written.
#include "daydream/Pass/PassOptions.h"
#include "daydream/Passes/BuiltinPasses.h"
using namespace dd;
llvm::Expected<std::unique_ptr<PassConcept>>
dd::createRetargetGpuPass(llvm::StringRef) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "pass 'retarget-gpu' is not written yet");
}
void dd::printRetargetGpuPassOptions(llvm::raw_ostream &, unsigned) {}
