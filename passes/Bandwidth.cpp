// STUB: placeholder so the pass table builds while bandwidth is written.
#include "daydream/Pass/PassOptions.h"
#include "daydream/Passes/BuiltinPasses.h"
using namespace dd;
llvm::Expected<std::unique_ptr<PassConcept>>
dd::createBandwidthPass(llvm::StringRef) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "pass 'bandwidth' is not written yet");
}
void dd::printBandwidthPassOptions(llvm::raw_ostream &, unsigned) {}
