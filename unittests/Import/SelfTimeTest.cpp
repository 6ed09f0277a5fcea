//===- SelfTimeTest.cpp - CPU ops' self time, waits and lost launches -----===//
//
// The lowering steps that make CPU time tasks (SelfTime.cpp), tell a wait
// for another thread from work (HandOverWaits.cpp), give GPU work a launch
// the trace lost (InferredLaunches.cpp) and keep what a synchronizing call
// did after its wait (SplitSyncWaits.cpp), on models small enough to work
// out by hand (times in ns).
//
//===----------------------------------------------------------------------===//

#include "GraphQueries.h"
#include "LoweringTestUtil.h"
#include "daydream/Sim/Simulator.h"

#include "gtest/gtest.h"

using namespace dd;
using namespace dd::import;
using namespace dd::testing;

namespace {

/// The live tasks named \p Name, as (start, duration) pairs in id order.
std::vector<std::pair<int64_t, int64_t>> pieces(const Graph &G,
                                                llvm::StringRef Name) {
  std::vector<std::pair<int64_t, int64_t>> Out;
  for (TaskId T = 0; T != G.numTaskSlots(); ++T)
    if (G.isLive(T) && G.str(G.task(T).Name) == Name)
      Out.push_back({G.task(T).StartNs, G.task(T).DurationNs});
  return Out;
}

using Pieces = std::vector<std::pair<int64_t, int64_t>>;

TEST(SelfTimeTest, AroundChildrenAndCalls) {
  // outer 0-100 holds a call 20-30 and inner 50-60, which holds a call
  // 52-58; an op of zero length at 70 leaves nothing, and outer's time
  // goes on across it in one task.
  ModelBuilder B;
  B.range("outer", 0, 100);
  B.call("cudaGetDevice", 20, 30);
  B.range("inner", 50, 60);
  B.call("cudaGetLastError", 52, 58);
  B.range("empty", 70, 70);
  Lowered L = lower(B);
  EXPECT_EQ(pieces(L.G, "outer"), (Pieces{{0, 20}, {30, 20}, {60, 40}}));
  EXPECT_EQ(pieces(L.G, "inner"), (Pieces{{50, 2}, {58, 2}}));
  EXPECT_TRUE(pieces(L.G, "empty").empty());
  EXPECT_EQ(L.Stats.CpuOpTasks, 5u);
  EXPECT_EQ(L.Stats.CpuOpRanges, 2u);
  // Every piece is the op's kind of task, in its layer.
  TaskId Inner = find(L.G, "inner");
  EXPECT_EQ(L.G.task(Inner).Kind, TaskKind::CpuOp);
  EXPECT_EQ(L.G.str(L.G.layer(L.G.task(Inner).Layer).Name), "inner");
  EXPECT_EQ(L.G.str(L.G.layer(L.G.layer(L.G.task(Inner).Layer).Parent).Name),
            "outer");
}

TEST(SelfTimeTest, InputsGoOnTheFirstPiece) {
  ModelBuilder B;
  B.range("aten::to", 0, 100);
  B.M.Ranges.back().InputDims = B.M.Strings.intern("[[2, 3]]");
  B.call("cudaMemcpyAsync", 40, 50);
  Lowered L = lower(B);
  ASSERT_EQ(L.G.notes().size(), 1u);
  EXPECT_EQ(L.G.notes()[0].Task, find(L.G, "aten::to"));
  EXPECT_EQ(L.G.str(L.G.notes()[0].Key), "input-dims");
  EXPECT_EQ(L.G.str(L.G.notes()[0].Value), "[[2, 3]]");
}

/// LoweringOptions::ThreadIdleNs scaled down to these models: 50 ns.
LoweringOptions smallIdle() {
  LoweringOptions Opts;
  Opts.ThreadIdleNs = 50;
  return Opts;
}

/// The main thread's "wait" annotation 0-1000 holds an op 0-100; thread
/// Other works from \p Start to \p End in one op.
Lowered waitWithOther(int64_t Start, int64_t End, int64_t Before = -1) {
  ModelBuilder B;
  uint32_t Other = B.M.thread(100, 200);
  B.range("wait", 0, 1000, RangeKind::Annotation);
  B.range("aten::ones_like", 0, 100);
  if (Before >= 0)
    B.range("earlier", Before, Before + 10, RangeKind::Op, Other);
  B.range("other work", Start, End, RangeKind::Op, Other);
  return lower(B, smallIdle());
}

TEST(SelfTimeTest, AHandOverIsCutOutOfTheWaitingOp) {
  // Other idle at 100, busy 200-900, idle at 1000: "wait" waited for it
  // from 100 to 900 and works 100 ns after.
  Lowered L = waitWithOther(200, 900);
  EXPECT_EQ(pieces(L.G, "wait"), (Pieces{{900, 100}}));
  EXPECT_EQ(L.Stats.HandOverWaits, 1u);
  EXPECT_TRUE(edges(L.G).count({"other work", "wait", EdgeKind::ProgramOrder}));
}

TEST(SelfTimeTest, WorkBesideTheOpIsNotAWait) {
  // Busy across the piece's start: it ran beside the op, not for it.
  EXPECT_EQ(pieces(waitWithOther(50, 900).G, "wait"), (Pieces{{100, 900}}));
  // Still busy when the piece ends.
  EXPECT_EQ(pieces(waitWithOther(200, 1100).G, "wait"), (Pieces{{100, 900}}));
  // A little polling is not a hand-over: less than ThreadIdleNs of work.
  ModelBuilder B;
  uint32_t Other = B.M.thread(100, 200);
  B.range("wait", 0, 1000, RangeKind::Annotation);
  B.range("poll", 400, 440, RangeKind::Op, Other);
  EXPECT_EQ(pieces(lower(B, smallIdle()).G, "wait"), (Pieces{{0, 1000}}));
  // And a wait whose other thread finished earlier work by its start is
  // still one.
  EXPECT_EQ(pieces(waitWithOther(200, 900, 10).G, "wait"),
            (Pieces{{900, 100}}));
}

TEST(SelfTimeTest, LostLaunchesGetTheTracesLatency) {
  // Linked kernels on an idle stream start 4, 6 and 5 ns after their calls
  // began: the median, 5, places k3's launch at 195, in "op" (190-196),
  // which ended before k3 began: op launched it. k4's (295) falls in
  // "long" (280-400), still running when k4 began, so the task before it
  // did.
  ModelBuilder B;
  B.call("cudaLaunchKernel", 0, 3, 1);
  B.work("k1", 4, 10, 1);
  B.call("cudaLaunchKernel", 20, 24, 2);
  B.work("k2", 26, 30, 2);
  B.call("cudaLaunchKernel", 40, 43, 3);
  B.work("k0", 45, 50, 3);
  B.range("op", 190, 196);
  B.work("k3", 200, 210, 77);
  B.range("before", 250, 260);
  B.range("long", 280, 400);
  B.work("k4", 300, 310, 78);
  Lowered L = lower(B);
  EXPECT_EQ(L.Stats.UnmatchedActivities, 2u);
  EXPECT_EQ(L.Stats.InferredLaunches, 2u);
  EXPECT_EQ(L.Stats.LaunchLatencyNs, 5);
  EdgeSet E = edges(L.G);
  EXPECT_TRUE(E.count({"op", "k3", EdgeKind::Launch}));
  EXPECT_TRUE(E.count({"before", "k4", EdgeKind::Launch}));
  // Their whole delay after the launch is kept: the replay is unchanged.
  auto R = simulate(L.G);
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(R->Start[find(L.G, "k3")], 200);
  EXPECT_EQ(R->Start[find(L.G, "k4")], 300);
}

TEST(SelfTimeTest, TimeAfterAWaitIsKept) {
  // A blocking copy: the call 100-200 staged the copy 120-150 and copied it
  // out for 50 ns after: the rest is a task of its own, and the replay ends
  // the call at 200 as recorded. A synchronize 2 ns past its wait is not
  // split (less than LoweringOptions::SyncRestNs, 20 here).
  LoweringOptions Opts;
  Opts.SyncRestNs = 20;
  ModelBuilder B;
  B.call("cudaMemcpyAsync", 100, 200, 1);
  B.work("Memcpy DtoH", 120, 150, 1, B.S7, TaskKind::Memcpy);
  B.call("cudaLaunchKernel", 210, 215, 2);
  B.work("k", 216, 300, 2);
  B.call("cudaStreamSynchronize", 220, 302, 3);
  B.call("cudaGetDevice", 310, 311);
  Lowered L = lower(B, Opts);
  EXPECT_EQ(L.Stats.SyncWaitsSplit, 1u);
  EXPECT_EQ(pieces(L.G, "cudaMemcpyAsync (after wait)"), (Pieces{{150, 50}}));
  EXPECT_EQ(pieces(L.G, "cudaStreamSynchronize (after wait)"), Pieces{});
  auto R = simulate(L.G);
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(R->End[find(L.G, "cudaMemcpyAsync (after wait)")], 200);
  EXPECT_EQ(R->Start[find(L.G, "cudaLaunchKernel")], 210);
  // The synchronize's 2 ns after its wait stay its duration, which the
  // simulator overlaps with the wait: what follows runs 2 ns early.
  EXPECT_EQ(R->Start[find(L.G, "cudaGetDevice")], 308);
}

} // namespace
