//===- SimTestUtil.h - Helpers shared by the simulator tests ----*- C++ -*-===//
//
// Runs the simulator (and the critical path over its canonical order) and
// turns its Error into a test failure (or a string), and checks a task's
// start and end in one line.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_UNITTESTS_SIMTESTUTIL_H
#define DAYDREAM_UNITTESTS_SIMTESTUTIL_H

#include "daydream/IR/CanonicalOrder.h"
#include "daydream/Sim/CriticalPath.h"
#include "daydream/Sim/Simulator.h"

#include "gtest/gtest.h"

#include <string>

namespace dd::test {

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
