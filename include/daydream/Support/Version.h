//===- Version.h - This project's version -----------------------*- C++ -*-===//
//
// One place for the version every tool prints (--version) and writes into
// what it makes (a graph's producer, a pipeline's tool): CMake's
// project(VERSION), passed to Version.cpp alone so that a new version
// rebuilds one file.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SUPPORT_VERSION_H
#define DAYDREAM_SUPPORT_VERSION_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace dd {

/// "0.1.0".
llvm::StringRef projectVersion();

/// "dd-opt 0.1.0": \p Tool and the project's version, as a graph's
/// producer and a pipeline's tool record it.
std::string toolVersion(llvm::StringRef Tool);

} // namespace dd

#endif // DAYDREAM_SUPPORT_VERSION_H
