// STUB: placeholder so the pass table builds while ddp-insert is written.
#include "daydream/Pass/PassOptions.h"
#include "daydream/Passes/BuiltinPasses.h"
using namespace dd;
llvm::Expected<std::unique_ptr<PassConcept>>
dd::createDdpInsertPass(llvm::StringRef) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "pass 'ddp-insert' is not written yet");
}
void dd::printDdpInsertPassOptions(llvm::raw_ostream &, unsigned) {}
