//===- SweepWindowTest.cpp - How wide a ring the windowed sweep takes -----===//
//
// The windowed sweep keeps the times pushed along edges in a ring as wide
// as the farthest edge reaches (WindowedSweep.cpp). Up to 2^20 slots it is
// taken whenever it is at most half the graph; a wider one only where it is
// at most a sixteenth of the tasks, so that it stays under 4 bytes a task.
// The figures are those of the jobs in docs/Performance.md.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Sim/Replay.h"

#include "gtest/gtest.h"

using namespace dd;

TEST(SweepWindowTest, TheRingIsSmallBesideTheGraph) {
  EXPECT_EQ(sim::ringFor(5000, 20000), 8192u);
  EXPECT_EQ(sim::ringFor(10000, 20000), 0u);
  EXPECT_EQ(sim::ringFor(1000000, 3000000), uint64_t(1) << 20);
  // The 64-rank job's, and the 160-rank job's, whose 2^21 slots are a
  // seventy-sixth of its tasks; the same reach in too small a graph.
  EXPECT_EQ(sim::ringFor(460004, 63781921), uint64_t(1) << 19);
  EXPECT_EQ(sim::ringFor(1157934, 159449665), uint64_t(1) << 21);
  EXPECT_EQ(sim::ringFor(1157934, 20000000), 0u);
}
