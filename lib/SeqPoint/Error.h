//===- Error.h - The one way lib/SeqPoint makes an error --------*- C++ -*-===//
//
// Private to lib/SeqPoint. Every error of the library is a message that
// names its input and says what is wrong; no caller looks at error codes.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_SEQPOINT_ERROR_H
#define DAYDREAM_LIB_SEQPOINT_ERROR_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

namespace dd::seqpoint {

inline llvm::Error makeError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

} // namespace dd::seqpoint

#endif // DAYDREAM_LIB_SEQPOINT_ERROR_H
