//===- CollectiveReachTest.cpp - What a rank's collectives wait for -------===//
//
// crossStreamReach() on small rank graphs: a dependency through the CPU or
// through kernels of a stream without collectives gives an edge, one that
// an earlier edge into the same stream already implies gives none, and
// collectives on one stream give none at all.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Import/CollectiveReach.h"
#include "../IR/GraphBuilder.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <utility>

using namespace dd;
using namespace dd::import;
using namespace dd::test;

namespace {

/// A rank: a CPU thread that launches kernels, with its streams.
struct Rank {
  Graph G;
  LaneId Cpu = addLane(G, "python");
  TaskId LastCpu = NoId;
  int64_t Now = 0;

  LaneId stream(llvm::StringRef Name) {
    return addLane(G, Name, LaneKind::GpuStream);
  }
  /// A CPU call, after the one before it.
  TaskId call(llvm::StringRef Name) {
    TaskId T = addTask(G, Cpu, Name, Now += 10, 5);
    if (LastCpu != NoId)
      G.addEdge(LastCpu, T, EdgeKind::ProgramOrder);
    return LastCpu = T;
  }
  /// A kernel on \p S, launched now.
  TaskId launch(LaneId S, TaskKind K = TaskKind::Collective) {
    TaskId L = call("cudaLaunchKernel");
    TaskId T = addTask(G, S, K == TaskKind::Collective ? "nccl" : "gemm",
                       Now + 6, 20, K);
    G.addEdge(L, T, EdgeKind::Launch);
    return T;
  }
  /// The CPU waits for \p Kernel (cudaStreamSynchronize).
  void waitFor(TaskId Kernel) {
    TaskId W = call("cudaStreamSynchronize");
    G.addEdge(Kernel, W, EdgeKind::Sync);
  }
  std::vector<TaskId> collectives() const {
    std::vector<TaskId> K;
    for (TaskId T = 0; T != G.numTaskSlots(); ++T)
      if (G.task(T).Kind == TaskKind::Collective)
        K.push_back(T);
    return K;
  }
  std::vector<std::pair<TaskId, TaskId>> reach() const {
    std::vector<std::pair<TaskId, TaskId>> Pairs;
    for (const Edge &E : crossStreamReach(G, collectives())) {
      EXPECT_EQ(E.Kind, EdgeKind::CrossStream);
      Pairs.emplace_back(E.Src, E.Dst);
    }
    std::sort(Pairs.begin(), Pairs.end());
    return Pairs;
  }
};

using Pairs = std::vector<std::pair<TaskId, TaskId>>;

TEST(CollectiveReachTest, ACpuWaitOrdersTwoStreams) {
  // A tensor-parallel all-reduce on stream 20, the CPU waits for it, then
  // a data-parallel one on stream 21: the second waits for the first. The
  // next one on stream 20 was launched before anything waited for the
  // one on 21, so nothing says it waits for it.
  Rank R;
  const LaneId Tp = R.stream("stream 20"), Dp = R.stream("stream 21");
  TaskId A = R.launch(Tp);
  R.waitFor(A);
  TaskId B = R.launch(Dp);
  TaskId C = R.launch(Tp);
  EXPECT_EQ(R.reach(), (Pairs{{A, B}}));
  (void)C;
}

TEST(CollectiveReachTest, WhatAnEarlierEdgeSaysIsNotRepeated) {
  // Two all-reduces on stream 21 after the wait: the first gets the edge,
  // and the second, after it on its stream, needs none. Then the CPU waits
  // for the second, and the next one on stream 20 waits for it.
  Rank R;
  const LaneId Tp = R.stream("stream 20"), Dp = R.stream("stream 21");
  TaskId A = R.launch(Tp);
  R.waitFor(A);
  TaskId B1 = R.launch(Dp);
  TaskId B2 = R.launch(Dp);
  R.waitFor(B2);
  TaskId C = R.launch(Tp);
  EXPECT_EQ(R.reach(), (Pairs{{A, B1}, {B2, C}}));
}

TEST(CollectiveReachTest, ThroughKernelsOfAnotherStream) {
  // No CPU wait: the all-reduce on stream 20 is followed by a kernel on
  // stream 7 that waits for it (an event), and the all-reduce on stream 21
  // waits for that kernel.
  Rank R;
  const LaneId Tp = R.stream("stream 20"), Dp = R.stream("stream 21"),
               Compute = R.stream("stream 7");
  TaskId A = R.launch(Tp);
  TaskId K = R.launch(Compute, TaskKind::Kernel);
  R.G.addEdge(A, K, EdgeKind::CrossStream);
  TaskId B = R.launch(Dp);
  R.G.addEdge(K, B, EdgeKind::CrossStream);
  EXPECT_EQ(R.reach(), (Pairs{{A, B}}));
}

TEST(CollectiveReachTest, OneStreamNeedsNothing) {
  // Its order says it all, waits or not.
  Rank R;
  const LaneId Tp = R.stream("stream 20");
  TaskId A = R.launch(Tp);
  R.waitFor(A);
  R.launch(Tp);
  EXPECT_TRUE(R.reach().empty());
}

} // namespace
