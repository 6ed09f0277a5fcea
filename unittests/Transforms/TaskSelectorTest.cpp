//===- TaskSelectorTest.cpp - Selecting tasks by their properties ---------===//

#include "daydream/Transforms/TaskSelector.h"
#include "../IR/GraphBuilder.h"
#include "daydream/Pass/AnalysisManager.h"
#include "daydream/Pass/PassOptions.h"
#include "daydream/Transforms/NameMatcher.h"

#include "gtest/gtest.h"

using namespace dd;
using namespace dd::test;

namespace {

struct TaskSelectorTest : ::testing::Test {
  Graph G;
  LaneId Cpu = addLane(G, "main thread");
  LaneId Gpu = addLane(G, "stream 7", LaneKind::GpuStream);
  TaskId Launch = addTask(G, Cpu, "cudaLaunchKernel", 0, 1, TaskKind::Runtime);
  TaskId Gemm = addTask(G, Gpu, "volta_sgemm_128x64", 0, 1, TaskKind::Kernel);
  TaskId Relu = addTask(G, Gpu, "relu_kernel", 0, 1, TaskKind::Kernel);
  TaskId Copy = addTask(G, Gpu, "Memcpy HtoD", 0, 1, TaskKind::Memcpy);

  std::vector<TaskId> select(llvm::StringRef Options) {
    TaskSelector S;
    PassOptionParser P("test");
    S.declareOptions(P);
    llvm::Error E = P.parse(Options);
    EXPECT_FALSE(bool(E)) << llvm::toString(std::move(E));
    return S.select(G);
  }
};

TEST_F(TaskSelectorTest, EmptySelectsAll) {
  EXPECT_EQ(select(""), (std::vector<TaskId>{Launch, Gemm, Relu, Copy}));
}

TEST_F(TaskSelectorTest, ByKinds) {
  EXPECT_EQ(select("kind=kernel,memcpy"),
            (std::vector<TaskId>{Gemm, Relu, Copy}));
}

TEST_F(TaskSelectorTest, ByNameRegex) {
  EXPECT_EQ(select("name=sgemm|relu"), (std::vector<TaskId>{Gemm, Relu}));
  EXPECT_EQ(select("name=^relu"), (std::vector<TaskId>{Relu}));
}

TEST_F(TaskSelectorTest, ByLaneAndPhase) {
  G.task(Relu).Phase = Phase::Backward;
  EXPECT_EQ(select("lane=main"), (std::vector<TaskId>{Launch}));
  EXPECT_EQ(select("phase=backward"), (std::vector<TaskId>{Relu}));
  EXPECT_EQ(select("phase=forward,backward lane=stream"),
            (std::vector<TaskId>{Relu}));
}

TEST_F(TaskSelectorTest, ByLayerSkipsTasksWithoutOne) {
  G.task(Gemm).Layer = G.addLayer(Layer{G.intern("encoder.fc1"), NoId});
  EXPECT_EQ(select("layer=fc1"), (std::vector<TaskId>{Gemm}));
}

TEST_F(TaskSelectorTest, WithinMatchesAnyLayerOfTheChain) {
  // DataLoader > stack > empty; a call in "empty" runs within all three.
  LayerId Loader = G.addLayer(Layer{G.intern("enumerate(DataLoader)"), NoId});
  LayerId Stack = G.addLayer(Layer{G.intern("aten::stack"), Loader});
  LayerId Empty = G.addLayer(Layer{G.intern("aten::empty"), Stack});
  // A layer whose parent comes after it is found too.
  LayerId Late = G.addLayer(Layer{G.intern("aten::copy_"), NoId});
  LayerId Early = G.addLayer(Layer{G.intern("aten::to"), Late});
  G.task(Launch).Layer = Empty;
  G.task(Gemm).Layer = Loader;
  G.task(Relu).Layer = Early;
  EXPECT_EQ(select("within=DataLoader"), (std::vector<TaskId>{Launch, Gemm}));
  EXPECT_EQ(select("within=stack"), (std::vector<TaskId>{Launch}));
  EXPECT_EQ(select("within=copy_"), (std::vector<TaskId>{Relu}));
  // layer= is the innermost layer alone.
  EXPECT_EQ(select("layer=DataLoader"), (std::vector<TaskId>{Gemm}));
  EXPECT_TRUE(select("within=nothing").empty());
}

TEST_F(TaskSelectorTest, DescribesItselfAsWritten) {
  TaskSelector S;
  EXPECT_EQ(S.describe(), "every task");
  EXPECT_TRUE(S.selectsAll());
  S.Kinds = {TaskKind::CpuOp, TaskKind::Kernel};
  S.WithinRegex = "DataLoader";
  S.MinBytes = 8;
  EXPECT_EQ(S.describe(), "kind=cpu-op,kernel within=DataLoader min-bytes=8");
  EXPECT_FALSE(S.selectsAll());
}

TEST_F(TaskSelectorTest, AnEmptySelectionWarns) {
  AnalysisManager AM;
  std::vector<std::string> Warnings;
  AM.setWarningHandler([&](llvm::StringRef W) { Warnings.push_back(W.str()); });
  AM.setCurrentPass("remove-tasks");
  TaskSelector S;
  S.NameRegex = "nothing";
  EXPECT_TRUE(S.select(G, AM).empty());
  S.NameRegex = "relu";
  EXPECT_EQ(S.select(G, AM), (std::vector<TaskId>{Relu}));
  ASSERT_EQ(Warnings.size(), 1u);
  EXPECT_EQ(Warnings[0], "remove-tasks: the selection 'name=nothing' matches "
                         "no task; nothing was changed");
  EXPECT_EQ(AM.numWarnings(), 1u);
}

TEST_F(TaskSelectorTest, SkipsRemovedTasks) {
  G.removeTask(Gemm);
  EXPECT_EQ(select("kind=kernel"), (std::vector<TaskId>{Relu}));
}

TEST_F(TaskSelectorTest, RejectsBadKindAndRegex) {
  TaskSelector S;
  PassOptionParser P("test");
  S.declareOptions(P);
  EXPECT_EQ(llvm::toString(P.parse("kind=kernal")),
            "pass 'test': option 'kind': unknown task kind 'kernal'");
  S.NameRegex = "(";
  EXPECT_EQ(llvm::toString(S.validate()).rfind("invalid regex '('", 0), 0u);
}

} // namespace

namespace {

TEST_F(TaskSelectorTest, ByKernelClassOnlyGpuWork) {
  // A CPU task named like a GEMM is never selected by class.
  addTask(G, Cpu, "gemm_on_cpu", 0, 1, TaskKind::CpuOp);
  EXPECT_EQ(select("class=gemm"), std::vector<TaskId>({Gemm}));
  EXPECT_EQ(select("class=elementwise,copy"),
            std::vector<TaskId>({Relu, Copy}));
}

TEST_F(TaskSelectorTest, ByMinBytes) {
  TaskAttrs Big, Small;
  Big.Bytes = 4096;
  Small.Bytes = 16;
  G.setAttrs(Copy, Big);
  G.setAttrs(Relu, Small);
  EXPECT_EQ(select("min-bytes=1024"), std::vector<TaskId>({Copy}));
  EXPECT_EQ(select("min-bytes=16").size(), 2u);
}

} // namespace

namespace {

TEST(NameMatcherTest, EmptyMatchesAllAndLateNamesWork) {
  Graph G;
  StrId Gemm = G.intern("volta_sgemm");
  NameMatcher Any(G, "");
  EXPECT_TRUE(Any.matches(NoId));
  NameMatcher Re(G, "GEMM", llvm::Regex::IgnoreCase);
  EXPECT_TRUE(Re.matches(Gemm));
  EXPECT_FALSE(Re.matches(NoId));
  // A name interned after the matcher was made.
  StrId Late = G.intern("fused(gemm+relu)");
  StrId Other = G.intern("relu");
  EXPECT_TRUE(Re.matches(Late));
  EXPECT_FALSE(Re.matches(Other));
}

} // namespace
