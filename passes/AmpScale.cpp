// STUB: placeholder so the pass table builds while amp-scale is written.
#include "daydream/Pass/PassOptions.h"
#include "daydream/Passes/BuiltinPasses.h"
using namespace dd;
llvm::Expected<std::unique_ptr<PassConcept>>
dd::createAmpScalePass(llvm::StringRef) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "pass 'amp-scale' is not written yet");
}
void dd::printAmpScalePassOptions(llvm::raw_ostream &, unsigned) {}
