// STUB: placeholder so the pass table builds while p3 is written.
#include "daydream/Pass/PassOptions.h"
#include "daydream/Passes/BuiltinPasses.h"
using namespace dd;
llvm::Expected<std::unique_ptr<PassConcept>>
dd::createP3Pass(llvm::StringRef) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "pass 'p3' is not written yet");
}
void dd::printP3PassOptions(llvm::raw_ostream &, unsigned) {}
