//===- LoweringTest.cpp - Trace events to dependency graphs ---------------===//
//
// Hand-made event models with times chosen so the expected edges, gaps and
// durations can be worked out by hand, plus a property: replaying the
// lowered graph of a trace that follows the replay model reproduces every
// recorded CPU start exactly.
//
//===----------------------------------------------------------------------===//

#include "daydream/Import/Lowering.h"
#include "../../lib/Import/LoweringContext.h"
#include "GraphQueries.h"
#include "LoweringTestUtil.h"
#include "daydream/IR/Verifier.h"
#include "daydream/Sim/Simulator.h"

#include "gtest/gtest.h"

#include <random>
#include <set>
#include <tuple>

using namespace dd;
using namespace dd::import;
using namespace dd::testing;

namespace {

TEST(LoweringTest, LaunchesAndStreamSynchronize) {
  // Two launches, then a synchronize that returns 10 ns after the second
  // kernel ends. Without a sync record the call waited for the latest work
  // ending while it ran: k2. Its own duration is what is left: 200 - 190.
  ModelBuilder B;
  B.call("cudaLaunchKernel", 0, 10, 1);
  B.call("cudaLaunchKernel_v7000", 12, 20, 2);
  B.call("cudaStreamSynchronize", 25, 200);
  B.work("k1", 10, 100, 1);
  B.work("k2", 100, 190, 2);
  Lowered L = lower(B);
  const Graph &G = L.G;
  EXPECT_EQ(edges(G),
            (EdgeSet{{"cudaLaunchKernel", "k1", EdgeKind::Launch},
                     {"cudaLaunchKernel_v7000", "k2", EdgeKind::Launch},
                     {"k2", "cudaStreamSynchronize", EdgeKind::Sync}}));
  TaskId Sync = find(G, "cudaStreamSynchronize");
  EXPECT_EQ(G.task(Sync).Kind, TaskKind::Sync);
  EXPECT_EQ(G.task(Sync).DurationNs, 10);
  EXPECT_EQ(G.task(Sync).GapNs, 5);                              // 25 - 20
  EXPECT_EQ(G.task(find(G, "cudaLaunchKernel_v7000")).GapNs, 2); // 12 - 10
  EXPECT_EQ(G.task(find(G, "k2")).GapNs, 0);
  EXPECT_EQ(L.Stats.LaunchEdges, 2u);
  EXPECT_EQ(L.Stats.SyncEdges, 1u);
  EXPECT_EQ(G.numLanes(), 2u);
  EXPECT_EQ(G.lane(1).Kind, LaneKind::GpuStream);
  EXPECT_EQ(G.str(G.lane(1).Name), "stream 7");
}

TEST(LoweringTest, SyncRecordNamesTheStream) {
  // With a cuda_sync record the synchronized stream is known: stream 8's
  // work is waited for although stream 7's ends later.
  ModelBuilder B;
  uint32_t S8 = B.M.stream(0, 8);
  B.call("cudaLaunchKernel", 0, 10, 1);
  B.call("cudaLaunchKernel", 10, 20, 2);
  B.call("cudaStreamSynchronize", 20, 60, 3);
  B.work("on7", 10, 300, 1, B.S7);
  B.work("on8", 20, 50, 2, S8);
  SyncRecord R;
  R.Correlation = 3;
  R.Kind = ApiKind::StreamSync;
  R.Device = 0;
  R.Stream = 8;
  B.M.Syncs.push_back(R);
  Lowered L = lower(B);
  EXPECT_TRUE(
      edges(L.G).count({"on8", "cudaStreamSynchronize", EdgeKind::Sync}));
  EXPECT_FALSE(
      edges(L.G).count({"on7", "cudaStreamSynchronize", EdgeKind::Sync}));
}

TEST(LoweringTest, DeviceSynchronizeWaitsForEveryStream) {
  ModelBuilder B;
  uint32_t S8 = B.M.stream(0, 8);
  B.call("cudaLaunchKernel", 0, 10, 1);
  B.call("cudaLaunchKernel", 10, 20, 2);
  B.call("cudaDeviceSynchronize", 20, 60);
  B.work("on7", 10, 40, 1, B.S7);
  B.work("on8", 20, 50, 2, S8);
  Lowered L = lower(B);
  EdgeSet E = edges(L.G);
  EXPECT_TRUE(E.count({"on7", "cudaDeviceSynchronize", EdgeKind::Sync}));
  EXPECT_TRUE(E.count({"on8", "cudaDeviceSynchronize", EdgeKind::Sync}));
}

TEST(LoweringTest, BlockingCopyWaitsForItsWork) {
  // cudaMemcpy lasted until its copy was done: the copy depends on what
  // preceded the call, and the call on the copy.
  ModelBuilder B;
  B.call("cudaLaunchKernel", 0, 10, 1);
  B.call("cudaMemcpy", 20, 150, 2);
  B.work("k", 10, 30, 1);
  B.work("Memcpy DtoH", 60, 140, 2, 0, TaskKind::Memcpy);
  Lowered L = lower(B);
  EXPECT_EQ(edges(L.G),
            (EdgeSet{{"cudaLaunchKernel", "k", EdgeKind::Launch},
                     {"cudaLaunchKernel", "Memcpy DtoH", EdgeKind::Launch},
                     {"Memcpy DtoH", "cudaMemcpy", EdgeKind::Sync}}));
  EXPECT_EQ(L.G.task(find(L.G, "cudaMemcpy")).DurationNs, 10); // 150 - 140
}

TEST(LoweringTest, NestedCallsMerge) {
  ModelBuilder B;
  B.call("cudaLaunchKernel", 0, 20, 1);
  B.call("cuLaunchKernel", 5, 15, 1); // the driver call inside it
  B.work("k", 10, 30, 1);
  Lowered L = lower(B);
  EXPECT_EQ(L.Stats.NestedCalls, 1u);
  EXPECT_EQ(L.Stats.DuplicateCorrelations, 0u);
  EXPECT_EQ(L.G.numTasks(), 2u);
  EXPECT_EQ(edges(L.G), (EdgeSet{{"cudaLaunchKernel", "k", EdgeKind::Launch}}));
}

TEST(LoweringTest, LayersPhasesAndIterations) {
  // One step: a forward op, an optimizer step, and a backward op on the
  // autograd thread. Work inherits the layer and phase of its launch.
  ModelBuilder B;
  uint32_t Bwd = B.M.thread(100, 101);
  B.range("ProfilerStep#3", 0, 1000, RangeKind::Step);
  B.range("aten::linear", 0, 100);
  B.range("aten::addmm", 5, 50);
  B.call("cudaLaunchKernel", 10, 20, 1);
  B.range("autograd::engine::evaluate_function: AddmmBackward0", 200, 300,
          RangeKind::Op, Bwd);
  B.call("cudaLaunchKernel", 210, 220, 2, Bwd);
  B.range("Optimizer.step#SGD.step", 500, 600);
  B.call("cudaLaunchKernel", 510, 520, 3);
  B.call("cudaGetDevice", 900, 901);
  B.work("gemm", 20, 80, 1);
  B.work("gemm_bwd", 220, 280, 2);
  B.work("sgd", 520, 540, 3);
  Lowered L = lower(B);
  const Graph &G = L.G;
  ASSERT_EQ(G.iterations().size(), 1u);
  EXPECT_EQ(G.str(G.iterations()[0].Name), "ProfilerStep#3");
  EXPECT_EQ(G.iterations()[0].MeasuredNs, 1000);
  TaskId Marker = find(G, "ProfilerStep#3");
  EXPECT_EQ(G.task(Marker).Kind, TaskKind::Marker);
  EXPECT_EQ(G.task(Marker).DurationNs, 0);

  TaskId Gemm = find(G, "gemm");
  ASSERT_NE(G.task(Gemm).Layer, NoId);
  const Layer &Addmm = G.layer(G.task(Gemm).Layer);
  EXPECT_EQ(G.str(Addmm.Name), "aten::addmm");
  ASSERT_NE(Addmm.Parent, NoId);
  EXPECT_EQ(G.str(G.layer(Addmm.Parent).Name), "aten::linear");
  EXPECT_EQ(G.task(Gemm).Phase, Phase::Forward);
  EXPECT_EQ(G.task(find(G, "gemm_bwd")).Phase, Phase::Backward);
  EXPECT_EQ(G.task(find(G, "sgd")).Phase, Phase::Optimizer);
  // After the optimizer step has begun, the rest of the step on the main
  // thread is the optimizer's.
  EXPECT_EQ(G.task(find(G, "cudaGetDevice")).Phase, Phase::Optimizer);
  EXPECT_EQ(G.task(find(G, "cudaGetDevice")).Layer, NoId);
}

TEST(LoweringTest, AutogradNodesAreBackwardWithoutEvaluateFunction) {
  // 2021 traces name the autograd nodes but have no evaluate_function
  // ranges; "...Backward" as a word in a longer name is not a node (before
  // the step's first node: after it, the thread is in its backward).
  ModelBuilder B;
  B.range("ProfilerStep#1", 0, 1000, RangeKind::Step);
  B.range("my Backward", 20, 90);
  B.call("cudaLaunchKernel", 30, 40, 3);
  B.range("CudnnConvolutionBackward", 100, 200);
  B.call("cudaLaunchKernel", 110, 120, 1);
  B.range("AddmmBackward0", 300, 400);
  B.call("cudaLaunchKernel", 310, 320, 2);
  B.work("other", 40, 80, 3);
  B.work("conv_bwd", 120, 180, 1);
  B.work("gemm_bwd", 320, 380, 2);
  Lowered L = lower(B);
  EXPECT_EQ(L.G.task(find(L.G, "conv_bwd")).Phase, Phase::Backward);
  EXPECT_EQ(L.G.task(find(L.G, "gemm_bwd")).Phase, Phase::Backward);
  EXPECT_EQ(L.G.task(find(L.G, "other")).Phase, Phase::Forward);
}

TEST(LoweringTest, RecordedStreamWaitEvent) {
  // Stream 8 waits for the event recorded on stream 7 after "producer".
  ModelBuilder B;
  uint32_t S8 = B.M.stream(0, 8);
  B.call("cudaLaunchKernel", 0, 10, 1);
  B.call("cudaEventRecord", 10, 12, 2);
  B.call("cudaStreamWaitEvent", 12, 14, 3);
  B.call("cudaLaunchKernel", 14, 20, 4);
  B.work("producer", 10, 100, 1, B.S7);
  B.work("consumer", 100, 150, 4, S8);
  SyncRecord R;
  R.Correlation = 3;
  R.Kind = ApiKind::StreamWaitEvent;
  R.Device = 0;
  R.Stream = 8;
  R.WaitOnStream = 7;
  R.EventRecordCorrelation = 2;
  B.M.Syncs.push_back(R);
  Lowered L = lower(B);
  EXPECT_TRUE(
      edges(L.G).count({"producer", "consumer", EdgeKind::CrossStream}));
  EXPECT_EQ(L.Stats.CrossStreamEdges, 1u);
  EXPECT_EQ(L.Stats.InferredCrossStream, 0u);
}

TEST(LoweringTest, InferredCrossStreamWait) {
  // "consumer" was launched by 20 us on an idle stream but started at
  // 100.5 us, right after "producer" ended on the other stream (within the
  // 5 us tolerance).
  ModelBuilder B;
  uint32_t S8 = B.M.stream(0, 8);
  B.call("cudaLaunchKernel", 0, 10000, 1);
  B.call("cudaLaunchKernel", 14000, 20000, 2);
  B.work("producer", 10000, 100000, 1, B.S7);
  B.work("consumer", 100500, 150000, 2, S8);
  Lowered L = lower(B);
  EXPECT_TRUE(
      edges(L.G).count({"producer", "consumer", EdgeKind::CrossStream}));
  EXPECT_EQ(L.Stats.InferredCrossStream, 1u);

  ModelBuilder NoInfer;
  uint32_t S8b = NoInfer.M.stream(0, 8);
  NoInfer.call("cudaLaunchKernel", 0, 10000, 1);
  NoInfer.call("cudaLaunchKernel", 14000, 20000, 2);
  NoInfer.work("producer", 10000, 100000, 1, NoInfer.S7);
  NoInfer.work("consumer", 100500, 150000, 2, S8b);
  LoweringOptions Off;
  Off.InferDependencies = false;
  Lowered L2 = lower(NoInfer, Off);
  EXPECT_FALSE(
      edges(L2.G).count({"producer", "consumer", EdgeKind::CrossStream}));
}

TEST(LoweringTest, InferredCrossThreadHandOver) {
  // The autograd thread starts 200 us after its last call, 3 us after the
  // main thread's last forward call: a hand-over. Its gap counts from there.
  ModelBuilder B;
  uint32_t Bwd = B.M.thread(100, 101);
  B.call("cudaGetDevice", 0, 10, 0, Bwd);
  B.call("fwd_call", 100000, 100010);
  B.call("bwd_call", 100013, 100020, 0, Bwd);
  Lowered L = lower(B);
  EXPECT_TRUE(
      edges(L.G).count({"fwd_call", "bwd_call", EdgeKind::ProgramOrder}));
  EXPECT_EQ(L.G.task(find(L.G, "bwd_call")).GapNs, 3);
  EXPECT_EQ(L.Stats.InferredCrossThread, 1u);
}

TEST(LoweringTest, EmptyModelIsAnError) {
  TraceModel M;
  LoweringStats S;
  auto G = lowerTrace(std::move(M), {}, S);
  ASSERT_FALSE(bool(G));
  EXPECT_EQ(llvm::toString(G.takeError()),
            "no API calls, GPU activity or CPU operators to import");
}

TEST(LoweringTest, TimesBeyondTheGraphsLimitsAreAnError) {
  // Garbage times would overflow the lowering's sums (an end plus a
  // tolerance) and the simulator's; no real trace comes near 73 years from
  // the epoch, or spans 36 years.
  ModelBuilder B;
  B.call("cudaLaunchKernel", 0, 10, 1);
  B.work("k", 20, INT64_MAX, 1);
  LoweringStats S;
  auto G = lowerTrace(std::move(B.M), {}, S);
  ASSERT_FALSE(bool(G));
  EXPECT_EQ(llvm::toString(G.takeError()),
            "GPU work at 9223372036854775807 ns: times beyond 2^61 ns from "
            "the epoch are not supported");

  ModelBuilder Wide;
  Wide.call("cudaLaunchKernel", -(int64_t(1) << 60), 10, 1);
  Wide.work("k", 20, int64_t(1) << 59, 1);
  auto W = lowerTrace(std::move(Wide.M), {}, S);
  ASSERT_FALSE(bool(W));
  EXPECT_EQ(llvm::toString(W.takeError()),
            "the trace's events span 1729382256910270464 ns (from "
            "-1152921504606846976 to 576460752303423488 ns), past the limit "
            "of 2^60 ns");
}

TEST(LoweringTest, ReservedCorrelationsMeanNone) {
  // The two largest ids are the lowering's hash-map sentinels: a trace
  // holding them gets no launch edge from them, and no corrupted map.
  ModelBuilder B;
  B.call("cudaLaunchKernel", 0, 10, ~0U);
  B.call("cudaLaunchKernel", 10, 20, ~0U - 1);
  B.work("k1", 20, 30, ~0U);
  B.work("k2", 30, 40, ~0U - 1);
  Lowered L = lower(B);
  EXPECT_EQ(L.Stats.LaunchEdges, 0u);
  EXPECT_EQ(L.Stats.UnmatchedActivities, 2u);
}

TEST(LoweringTest, CyclesLoseTheirMostDoubtfulEdge) {
  // Three tasks on three lanes tied in a cycle by a recorded, a heuristic
  // and an inferred edge: the inferred one goes, with a note.
  TraceModel M;
  LoweringOptions Opts;
  LoweringStats Stats;
  lowering::Context C(M, Opts, Stats);
  for (const char *N : {"a", "b", "c"}) {
    Lane L;
    L.Name = C.G.intern(N);
    LaneId Id = C.G.addLane(L);
    Task T;
    T.Name = L.Name;
    T.Lane = Id;
    C.G.addTask(T);
  }
  C.addEdge(0, 1, EdgeKind::Launch, lowering::Recorded);
  C.addEdge(1, 2, EdgeKind::CrossStream, lowering::Inferred);
  C.addEdge(2, 0, EdgeKind::Sync, lowering::Heuristic);
  ASSERT_FALSE(bool(lowering::commitEdges(C)));
  EXPECT_EQ(Stats.CyclesBroken, 1u);
  ASSERT_EQ(Stats.CycleNotes.size(), 1u);
  EXPECT_EQ(Stats.CycleNotes[0],
            "dropped cross-stream edge 'b' (start 0 ns) -> 'c' (start 0 ns) "
            "to break a dependency cycle");
  EXPECT_EQ(C.G.countLiveEdges(), 2u);
}

/// A random single-GPU training-like trace generated by the replay model
/// itself: kernels start when launched and their stream is free, or when the
/// other stream's work they wait for ends; synchronize calls return when the
/// last launched work ends; the autograd thread takes over after the main
/// thread's forward calls and hands back after its last call. Each launch
/// is inside an op, itself sometimes inside another, with CPU time around
/// the call (their self time), and in some seeds the main thread waits
/// for the backward inside an annotation.
ModelBuilder randomTrace(unsigned Seed) {
  std::mt19937 Rng(Seed);
  auto Pick = [&](int Lo, int Hi) {
    return std::uniform_int_distribution<int>(Lo, Hi)(Rng);
  };
  ModelBuilder B;
  uint32_t Bwd = B.M.thread(100, 101);
  uint32_t S8 = B.M.stream(0, 8);
  int64_t Cpu = 1000, StreamFree[2] = {0, 0};
  int64_t Last[2] = {0, 0};
  uint32_t Corr = 1;
  auto Launch = [&](uint32_t Thread, int64_t &Now) {
    int64_t OpStart = Now + Pick(0, 1000);
    int64_t Start = OpStart + Pick(0, 2000), End = Start + Pick(3000, 8000);
    int64_t OpEnd = End + Pick(0, 2000);
    B.range("aten::op" + std::to_string(Pick(0, 2)), OpStart, OpEnd,
            RangeKind::Op, Thread);
    if (Pick(0, 1))
      B.range("aten::outer", OpStart, OpEnd + Pick(0, 1000), RangeKind::Op,
              Thread);
    unsigned S = Pick(0, 3) == 0;
    int64_t KStart = std::max(End, StreamFree[S]);
    // Sometimes stream 8 waits for stream 7, long enough to be told apart
    // from launch jitter (the lowering's inference tolerance).
    if (S == 1 && Pick(0, 2) == 0 && StreamFree[0] > KStart + 10000)
      KStart = StreamFree[0];
    int64_t KEnd = KStart + Pick(1000, 60000);
    B.call("cudaLaunchKernel", Start, End, Corr, Thread);
    B.work("kernel" + std::to_string(Corr), KStart, KEnd, Corr, S ? S8 : B.S7);
    ++Corr;
    StreamFree[S] = KEnd;
    Last[S] = KEnd;
    Now = OpEnd + 1000; // past any outer op
  };
  for (int Step = 0; Step != 3; ++Step) {
    int64_t StepStart = Cpu;
    for (int K = Pick(5, 15); K; --K)
      Launch(0, Cpu);
    // Hand over to the autograd thread and back.
    int64_t Handed = Cpu;
    int64_t Bw = Cpu + Pick(60000, 90000);
    for (int K = Pick(5, 15); K; --K)
      Launch(Bwd, Bw);
    Cpu = Bw + Pick(60000, 90000);
    if (Seed % 2)
      B.range("## backward ##", Handed, Cpu, RangeKind::Annotation);
    for (int K = Pick(1, 4); K; --K)
      Launch(0, Cpu);
    int64_t SyncStart = Cpu + Pick(0, 2000);
    // The model has no time after a wait: the call returns when the work
    // ends, or after its own 2 us if the work was done already.
    int64_t Work = std::max(Last[0], Last[1]);
    int64_t SyncEnd = Work > SyncStart ? Work : SyncStart + 2000;
    B.call("cudaDeviceSynchronize", SyncStart, SyncEnd, Corr++);
    Cpu = SyncEnd + Pick(0, 5000);
    B.range("ProfilerStep#" + std::to_string(Step), StepStart, Cpu,
            RangeKind::Step);
  }
  return B;
}

TEST(LoweringTest, ReplayReproducesRecordedCpuStarts) {
  uint64_t Waits = 0, CpuOps = 0;
  for (unsigned Seed = 1; Seed <= 20; ++Seed) {
    ModelBuilder B = randomTrace(Seed);
    std::vector<ApiCall> Calls = B.M.Calls;
    Lowered L = lower(B);
    Waits += L.Stats.HandOverWaits;
    CpuOps += L.Stats.CpuOpTasks;
    auto R = simulate(L.G);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    for (TaskId T = 0; T != L.G.numTaskSlots(); ++T) {
      const Task &Tk = L.G.task(T);
      if (L.G.lane(Tk.Lane).Kind == LaneKind::CpuThread)
        EXPECT_EQ(R->Start[T], Tk.StartNs)
            << "seed " << Seed << ": " << L.G.str(Tk.Name).str();
    }
    for (const IterationResult &I : R->Iterations)
      if (&I != &R->Iterations.back())
        EXPECT_EQ(I.PredictedNs, I.MeasuredNs) << "seed " << Seed;
  }
  // The traces exercise ops' self time and waits inside an annotation.
  EXPECT_GT(CpuOps, 0u);
  EXPECT_GT(Waits, 0u);
}

} // namespace
