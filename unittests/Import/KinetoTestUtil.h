//===- KinetoTestUtil.h - Reading Kineto traces in unit tests -*- C++ -*-===//
//
// Reads a Kineto trace given as a string, turning an error into a test
// failure.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_UNITTESTS_IMPORT_KINETOTESTUTIL_H
#define DAYDREAM_UNITTESTS_IMPORT_KINETOTESTUTIL_H

#include "daydream/Import/InputFile.h"
#include "daydream/Import/KinetoReader.h"

#include "gtest/gtest.h"

namespace dd::test {

inline import::TraceModel readKinetoOk(llvm::StringRef Json) {
  auto In = import::makeInputFile("t.json", Json);
  EXPECT_TRUE(bool(In));
  if (!In)
    return import::TraceModel();
  auto M = import::readKinetoTrace(*In, import::KinetoOptions());
  if (!M) {
    ADD_FAILURE() << llvm::toString(M.takeError());
    return import::TraceModel();
  }
  return std::move(*M);
}

} // namespace dd::test

#endif // DAYDREAM_UNITTESTS_IMPORT_KINETOTESTUTIL_H
