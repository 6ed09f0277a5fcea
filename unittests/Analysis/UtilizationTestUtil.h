//===- UtilizationTestUtil.h - Comparing utilization figures ----*- C++ -*-===//
//
// The utilization tests hold one way of measuring to another, figure for
// figure; this is that comparison, once.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_UNITTESTS_ANALYSIS_UTILIZATIONTESTUTIL_H
#define DAYDREAM_UNITTESTS_ANALYSIS_UTILIZATIONTESTUTIL_H

#include "daydream/Analysis/Utilization.h"

#include "gtest/gtest.h"

namespace dd::test {

/// Every figure of \p A equals \p B's; the per-iteration ones only with
/// \p Iterations (the figures measured during a simulation have none).
inline void expectSameUtilization(const RunUtilization &A,
                                  const RunUtilization &B,
                                  bool Iterations = true) {
  EXPECT_EQ(A.Run.Begin, B.Run.Begin);
  EXPECT_EQ(A.Run.End, B.Run.End);
  ASSERT_EQ(A.Gpus.size(), B.Gpus.size());
  for (size_t I = 0; I != A.Gpus.size(); ++I) {
    EXPECT_EQ(A.Gpus[I].Device, B.Gpus[I].Device);
    EXPECT_EQ(A.Gpus[I].ComputeNs, B.Gpus[I].ComputeNs) << "GPU " << I;
    if (Iterations)
      EXPECT_EQ(A.Gpus[I].IterationComputeNs, B.Gpus[I].IterationComputeNs);
  }
  EXPECT_EQ(A.LaneBusyNs, B.LaneBusyNs);
  EXPECT_EQ(A.CommunicationNs, B.CommunicationNs);
  EXPECT_EQ(A.OverlappedCommunicationNs, B.OverlappedCommunicationNs);
}

} // namespace dd::test

#endif // DAYDREAM_UNITTESTS_ANALYSIS_UTILIZATIONTESTUTIL_H
