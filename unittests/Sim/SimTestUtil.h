//===- SimTestUtil.h - Helpers shared by the simulator tests ----*- C++ -*-===//
//
// Runs the simulator (and the critical path over its canonical order) and
// turns its Error into a test failure (or a string), and checks a task's
// start and end in one line; copies a graph through the binary format, as
// a file holds it.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_UNITTESTS_SIMTESTUTIL_H
#define DAYDREAM_UNITTESTS_SIMTESTUTIL_H

#include "daydream/IR/BinaryFormat.h"
#include "daydream/IR/CanonicalOrder.h"
#include "daydream/Sim/CriticalPath.h"
#include "daydream/Sim/Simulator.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <string>

namespace dd::test {

/// \p G as a file holds it (every task live, slot order topological,
/// edges sorted by source): what the sweep engines and the event engine's
/// in-place path take. The copy keeps its own bytes alive: its string table
/// points into them.
inline Graph fileCopy(const Graph &G) {
  std::string Bytes;
  llvm::raw_string_ostream OS(Bytes);
  if (llvm::Error E = writeBinaryGraph(G, OS)) {
    ADD_FAILURE() << llvm::toString(std::move(E));
    return Graph();
  }
  auto Buf = llvm::MemoryBuffer::getMemBufferCopy(OS.str());
  llvm::Expected<Graph> C = parseBinaryGraph(Buf->getBuffer());
  if (!C) {
    ADD_FAILURE() << llvm::toString(C.takeError());
    return Graph();
  }
  C->holdBuffer(std::move(Buf));
  return std::move(*C);
}

inline SimResult sim(const Graph &G, const SimOptions &Opts = {}) {
  llvm::Expected<SimResult> R = simulate(G, Opts);
  if (!R) {
    ADD_FAILURE() << llvm::toString(R.takeError());
    return SimResult();
  }
  return std::move(*R);
}

inline CriticalPath criticalPath(const Graph &G, const SimResult &R) {
  llvm::Expected<CanonicalOrder> C = computeCanonicalOrder(G);
  if (!C) {
    ADD_FAILURE() << llvm::toString(C.takeError());
    return {};
  }
  llvm::Expected<CriticalPath> P = findCriticalPath(G, R, *C);
  if (!P) {
    ADD_FAILURE() << llvm::toString(P.takeError());
    return {};
  }
  return std::move(*P);
}

inline std::string simError(const Graph &G, const SimOptions &Opts = {}) {
  llvm::Expected<SimResult> R = simulate(G, Opts);
  if (R)
    return "(no error)";
  return llvm::toString(R.takeError());
}

#define EXPECT_TIMES(R, T, S, E)                                               \
  do {                                                                         \
    EXPECT_EQ((R).Start[T], S) << "start of task " << (T);                     \
    EXPECT_EQ((R).End[T], E) << "end of task " << (T);                         \
  } while (false)

} // namespace dd::test

#endif // DAYDREAM_UNITTESTS_SIMTESTUTIL_H
