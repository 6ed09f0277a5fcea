//===- IRTestUtil.h - Graphs to and from text and bytes, in tests -*- C++
//-*-===//
//
// Shared by the IR and Sim tests: each helper reports a failure to
// GoogleTest instead of returning an error.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_UNITTESTS_IR_IRTESTUTIL_H
#define DAYDREAM_UNITTESTS_IR_IRTESTUTIL_H

#include "daydream/IR/BinaryFormat.h"
#include "daydream/IR/Graph.h"
#include "daydream/IR/RankCopies.h"
#include "daydream/IR/TextFormat.h"
#include "daydream/IR/Verifier.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <string>

namespace dd::test {

/// The graph of \p Text, or an empty one (and a failure) if it does not
/// parse.
inline Graph parse(llvm::StringRef Text) {
  llvm::Expected<Graph> G = parseTextGraph(Text);
  if (!G) {
    ADD_FAILURE() << llvm::toString(G.takeError());
    return Graph();
  }
  return std::move(*G);
}

/// Expands the copies of \p G, which must succeed.
inline void expand(Graph &G) {
  llvm::Error E = expandRankCopies(G);
  ASSERT_FALSE(bool(E)) << llvm::toString(std::move(E));
}

/// The verifier's verdict on \p G: "ok" or its error.
inline std::string verify(const Graph &G) {
  llvm::Error E = verifyGraph(G);
  return E ? llvm::toString(std::move(E)) : "ok";
}

inline std::string toText(const Graph &G) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  llvm::Error E = printTextGraph(G, OS);
  EXPECT_FALSE(bool(E)) << llvm::toString(std::move(E));
  return OS.str();
}

inline std::string toBinary(const Graph &G) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  llvm::Error E = writeBinaryGraph(G, OS);
  EXPECT_FALSE(bool(E)) << llvm::toString(std::move(E));
  return OS.str();
}

/// \p Bytes written to a new temporary file, \p Prefix-*.\p Suffix; its
/// path.
inline std::string writeTempFile(llvm::StringRef Bytes, llvm::StringRef Prefix,
                                 llvm::StringRef Suffix) {
  llvm::SmallString<128> Path;
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile(Prefix, Suffix, Path));
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  EXPECT_FALSE(EC);
  OS << Bytes;
  return std::string(Path);
}

} // namespace dd::test

#endif // DAYDREAM_UNITTESTS_IR_IRTESTUTIL_H
