//===- Version.cpp - This project's version -------------------------------===//

#include "daydream/Support/Version.h"

#include "llvm/ADT/Twine.h"

#ifndef DAYDREAM_VERSION
#error "DAYDREAM_VERSION is set by lib/Support/CMakeLists.txt"
#endif

llvm::StringRef dd::projectVersion() { return DAYDREAM_VERSION; }

std::string dd::toolVersion(llvm::StringRef Tool) {
  return (llvm::Twine(Tool) + " " + projectVersion()).str();
}
