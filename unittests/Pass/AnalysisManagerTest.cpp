//===- AnalysisManagerTest.cpp - Caching and invalidation of analyses -----===//

#include "daydream/Pass/AnalysisManager.h"
#include "../IR/GraphBuilder.h"

#include "gtest/gtest.h"

using namespace dd;
using namespace dd::test;

namespace {

int StructureRuns = 0, TimingRuns = 0;

/// Depends on structure only.
struct CountTasks {
  using Result = size_t;
  static AnalysisKey Key;
  static llvm::StringRef name() { return "count-tasks"; }
  Result run(Graph &G, AnalysisManager &) {
    ++StructureRuns;
    return G.numTasks();
  }
};
AnalysisKey CountTasks::Key;

/// Depends on durations, and uses another analysis.
struct TotalTime {
  using Result = int64_t;
  static AnalysisKey Key;
  static llvm::StringRef name() { return "total-time"; }
  Result run(Graph &G, AnalysisManager &AM) {
    ++TimingRuns;
    AM.getResult<CountTasks>(G);
    int64_t Sum = 0;
    for (const Task &T : G.taskSlots())
      Sum += T.DurationNs;
    return Sum;
  }
};
AnalysisKey TotalTime::Key;

} // namespace

namespace dd {
template <> struct AnalysisSetOf<CountTasks> {
  static AnalysisSetKey *get() { return StructureAnalyses::ID(); }
};
} // namespace dd

namespace {

TEST(AnalysisManagerTest, CachesAndInvalidatesBySet) {
  StructureRuns = TimingRuns = 0;
  Graph G;
  LaneId L = addLane(G, "a");
  addTask(G, L, "x", 0, 5);
  std::string Log;
  llvm::raw_string_ostream OS(Log);
  AnalysisManager AM(&OS);

  EXPECT_EQ(AM.getResult<TotalTime>(G), 5);
  EXPECT_EQ(AM.getResult<TotalTime>(G), 5);
  EXPECT_EQ(TimingRuns, 1);
  EXPECT_EQ(StructureRuns, 1);

  // A duration-only change keeps structure analyses.
  G.task(0).DurationNs = 7;
  AM.invalidate(PreservedAnalyses::none().preserveSet<StructureAnalyses>());
  EXPECT_EQ(AM.getCachedResult<TotalTime>(), nullptr);
  ASSERT_NE(AM.getCachedResult<CountTasks>(), nullptr);
  EXPECT_EQ(AM.getResult<TotalTime>(G), 7);
  EXPECT_EQ(StructureRuns, 1);

  // Preserving one analysis by name keeps just that one.
  AM.invalidate(PreservedAnalyses::none().preserve<TotalTime>());
  EXPECT_EQ(AM.getCachedResult<CountTasks>(), nullptr);
  EXPECT_NE(AM.getCachedResult<TotalTime>(), nullptr);

  AM.invalidate(PreservedAnalyses::all());
  EXPECT_NE(AM.getCachedResult<TotalTime>(), nullptr);
  AM.invalidate(PreservedAnalyses::none());
  EXPECT_EQ(AM.getCachedResult<TotalTime>(), nullptr);

  EXPECT_EQ(OS.str(), "Running analysis: total-time\n"
                      "Running analysis: count-tasks\n"
                      "Invalidating analysis: total-time\n"
                      "Running analysis: total-time\n"
                      "Invalidating analysis: count-tasks\n"
                      "Invalidating analysis: total-time\n");
}

} // namespace
