//===- CuptiModelBuilderTest.cpp - CUPTI records to a model and a graph ---===//
//
// Feeds the records of CuptiRecordsFixture.h, real CUPTI structs of every
// kind dd-trace enables, to CuptiModelBuilder and checks the model field by
// field, then the graph the common lowering makes of it: launches, the
// stream wait, the device synchronize, the iteration, layers and phases.
//
//===----------------------------------------------------------------------===//

#include "daydream/Import/CuptiModelBuilder.h"
#include "daydream/IR/Verifier.h"
#include "daydream/Import/Lowering.h"

#include "CuptiRecordsFixture.h"
#include "GraphQueries.h"

#include "gtest/gtest.h"

using namespace dd;
using namespace dd::import;
using namespace dd::testing;

namespace {

TraceModel build(const CuptiRecordsFixture &F) {
  CuptiModelBuilder B;
  for (const ApiNameEntry &N : F.ApiNames)
    B.setApiName(N.Domain, N.Cbid, N.Name);
  for (const RawRecord &R : F.Records)
    B.add(reinterpret_cast<const CUpti_Activity *>(R.data()));
  return B.finish();
}

const ApiCall &callNamed(const TraceModel &M, llvm::StringRef Name) {
  for (const ApiCall &C : M.Calls)
    if (M.Strings.get(C.Name) == Name)
      return C;
  ADD_FAILURE() << "no call " << Name.str();
  return M.Calls.front();
}

TEST(CuptiModelBuilderTest, EveryRecordKindLandsInTheModel) {
  CuptiRecordsFixture F;
  TraceModel M = build(F);
  EXPECT_EQ(M.Meta.SourceFormat, "cupti");
  EXPECT_EQ(M.Stats.Events, F.Records.size());
  // External correlation, marker data: read, not modelled.
  EXPECT_EQ(M.Stats.SkippedOther, 2u);
  EXPECT_EQ(M.Stats.MissingFields, 0u);
  EXPECT_EQ(M.Stats.TracerOverheadNs, 750u);

  // API calls, both domains, classified by name.
  ASSERT_EQ(M.Calls.size(), 8u);
  EXPECT_EQ(callNamed(M, "cudaLaunchKernel").Kind, ApiKind::Launch);
  EXPECT_EQ(callNamed(M, "cuLaunchKernel").Kind, ApiKind::Launch);
  EXPECT_EQ(callNamed(M, "cudaMemcpyAsync").Kind, ApiKind::Memcpy);
  EXPECT_EQ(callNamed(M, "cudaEventRecord").Kind, ApiKind::EventRecord);
  EXPECT_EQ(callNamed(M, "cudaStreamWaitEvent").Kind, ApiKind::StreamWaitEvent);
  EXPECT_EQ(callNamed(M, "cudaDeviceSynchronize").Kind, ApiKind::DeviceSync);
  EXPECT_EQ(callNamed(M, "cudaLaunchKernel").Correlation, 2u);

  // One thread, named by its NAME record; two streams of device 0.
  ASSERT_EQ(M.Threads.size(), 1u);
  EXPECT_EQ(M.Threads[0].Pid, 100);
  EXPECT_EQ(M.Threads[0].Tid, 7);
  EXPECT_EQ(M.Strings.get(M.Threads[0].Name), "trainer");
  ASSERT_EQ(M.Streams.size(), 2u);

  // GPU work with its attributes.
  ASSERT_EQ(M.Activities.size(), 4u);
  const GpuActivity &Gemm = M.Activities[0];
  EXPECT_EQ(M.Strings.get(Gemm.Name), "sgemm_128x64");
  EXPECT_EQ(Gemm.Kind, TaskKind::Kernel);
  EXPECT_EQ(Gemm.Attrs.Grid[0], 128u);
  EXPECT_EQ(Gemm.Attrs.Block[0], 256u);
  EXPECT_EQ(Gemm.Attrs.RegistersPerThread, 64u);
  EXPECT_EQ(Gemm.Attrs.SharedMemBytes, 4096u);
  EXPECT_EQ(M.Activities[1].Kind, TaskKind::Collective);
  EXPECT_EQ(M.Strings.get(M.Activities[2].Name), "Memcpy HtoD");
  EXPECT_EQ(M.Activities[2].Attrs.Bytes, 4096u);
  EXPECT_EQ(M.Activities[2].Attrs.CopyKind,
            static_cast<uint8_t>(CopyKind::HostToDevice));
  EXPECT_EQ(M.Activities[3].Kind, TaskKind::Memset);

  // NVTX ranges paired by id: the iteration and the forward annotation.
  ASSERT_EQ(M.Ranges.size(), 2u);
  for (const CpuRange &R : M.Ranges) {
    if (M.Strings.get(R.Name) == "step#0") {
      EXPECT_EQ(R.Kind, RangeKind::Step);
      EXPECT_EQ(R.StartNs, 0);
      EXPECT_EQ(R.EndNs, 100000);
    } else {
      EXPECT_EQ(M.Strings.get(R.Name), "## forward ##");
      EXPECT_EQ(R.Kind, RangeKind::Annotation);
    }
  }

  // The stream wait resolved to the event record it waited for, by sync id;
  // the device synchronize to its context's device.
  ASSERT_EQ(M.Syncs.size(), 2u);
  const SyncRecord &Wait = M.Syncs[0];
  EXPECT_EQ(Wait.Kind, ApiKind::StreamWaitEvent);
  EXPECT_EQ(Wait.Stream, 13);
  EXPECT_EQ(Wait.WaitOnStream, 7);
  EXPECT_EQ(Wait.EventRecordCorrelation, 5u);
  EXPECT_EQ(M.Syncs[1].Kind, ApiKind::DeviceSync);
  EXPECT_EQ(M.Syncs[1].Device, 0);

  // The allocation, on the thread of the cudaMalloc that made it.
  ASSERT_EQ(M.Memory.size(), 1u);
  EXPECT_EQ(M.Memory[0].Bytes, 2 << 20);
  EXPECT_EQ(M.Memory[0].Device, 0);
  EXPECT_EQ(M.Memory[0].Thread, 0u);

  ASSERT_EQ(M.Meta.Devices.size(), 1u);
  EXPECT_EQ(M.Meta.Devices[0].Name, "NVIDIA H200");
  EXPECT_EQ(M.Meta.Devices[0].SmCount, 132);
  EXPECT_DOUBLE_EQ(M.Meta.Devices[0].MemoryBandwidthGBps, 4800);
}

TEST(CuptiModelBuilderTest, LowersToTheSameRulesAsEveryImporter) {
  CuptiRecordsFixture F;
  LoweringStats Stats;
  auto G = lowerTrace(build(F), LoweringOptions(), Stats);
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  llvm::Error E = verifyGraph(*G);
  ASSERT_FALSE(bool(E)) << llvm::toString(std::move(E));

  EdgeSet Edges = edges(*G);
  EXPECT_TRUE(
      Edges.count({"cudaLaunchKernel", "sgemm_128x64", EdgeKind::Launch}));
  EXPECT_TRUE(
      Edges.count({"cuLaunchKernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
                   EdgeKind::Launch}));
  // The all-reduce on stream 13 waits for the event recorded on stream 7
  // after the memset, the last work launched there.
  EXPECT_TRUE(Edges.count({"Memset", "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
                           EdgeKind::CrossStream}));
  // The device synchronize waits for the last GPU work.
  EXPECT_TRUE(Edges.count({"ncclDevKernel_AllReduce_Sum_f32_RING_LL",
                           "cudaDeviceSynchronize", EdgeKind::Sync}));
  EXPECT_EQ(Stats.UnmatchedActivities, 0u);
  EXPECT_EQ(Stats.LaunchEdges, 4u);

  ASSERT_EQ(G->iterations().size(), 1u);
  EXPECT_EQ(G->iterations()[0].MeasuredNs, 100000);
  const Task &Gemm = G->task(find(*G, "sgemm_128x64"));
  EXPECT_EQ(Gemm.Phase, Phase::Forward);
  EXPECT_EQ(Gemm.Kind, TaskKind::Kernel);
  EXPECT_EQ(G->task(find(*G, "ncclDevKernel_AllReduce_Sum_f32_RING_LL")).Kind,
            TaskKind::Collective);
  ASSERT_NE(Gemm.Layer, NoId);
  EXPECT_EQ(G->str(G->layer(Gemm.Layer).Name), "## forward ##");
  EXPECT_EQ(G->metadata().Devices.size(), 1u);
  EXPECT_EQ(G->memoryEvents().size(), 1u);
}

TEST(CuptiModelBuilderTest, UnnamedApisAndOpenRanges) {
  // An API the writer never named keeps a placeholder and does nothing
  // special; a range still open when tracing stopped is incomplete; a
  // kernel record without a name is missing a field.
  CuptiRecordsFixture F;
  F.Records.clear();
  F.ApiNames.clear();
  F.api(CUPTI_ACTIVITY_KIND_RUNTIME, 4242, "unused", 10, 20, 1);
  F.ApiNames.clear();
  F.marker(5, CUPTI_ACTIVITY_FLAG_MARKER_START, 0, "step#3");
  F.kernel(nullptr, 7, 30, 40, 1);
  TraceModel M = build(F);
  ASSERT_EQ(M.Calls.size(), 1u);
  EXPECT_EQ(M.Strings.get(M.Calls[0].Name), "cudaRuntimeApi#4242");
  EXPECT_EQ(M.Calls[0].Kind, ApiKind::Other);
  EXPECT_TRUE(M.Ranges.empty());
  EXPECT_TRUE(M.Activities.empty());
  EXPECT_EQ(M.Stats.MissingFields, 2u);
}

TEST(CuptiModelBuilderTest, ProcessesKeepTheirCorrelationsApart) {
  // Two processes both number their first launch 1: each kernel must be
  // matched to its own process's launch.
  CuptiModelBuilder B;
  CuptiRecordsFixture F;
  B.setApiName(CUPTI_CB_DOMAIN_RUNTIME_API,
               CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
               "cudaLaunchKernel");
  for (uint32_t Pid : {100u, 200u}) {
    B.beginProcess();
    trace::ApiRecord Call{};
    Call.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    Call.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
    Call.start = Pid;
    Call.end = Pid + 10;
    Call.processId = Pid;
    Call.threadId = Pid;
    Call.correlationId = 1;
    B.add(reinterpret_cast<const CUpti_Activity *>(&Call));
    trace::KernelRecord K{};
    K.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    K.name = Pid == 100 ? "k100" : "k200";
    K.start = Pid + 20;
    K.end = Pid + 30;
    K.deviceId = Pid / 100;
    K.streamId = 7;
    K.correlationId = 1;
    B.add(reinterpret_cast<const CUpti_Activity *>(&K));
  }
  TraceModel M = B.finish();
  ASSERT_EQ(M.Calls.size(), 2u);
  EXPECT_NE(M.Calls[0].Correlation, M.Calls[1].Correlation);
  EXPECT_EQ(M.Activities[0].Correlation, M.Calls[0].Correlation);
  EXPECT_EQ(M.Activities[1].Correlation, M.Calls[1].Correlation);
  LoweringStats Stats;
  auto G = lowerTrace(std::move(M), LoweringOptions(), Stats);
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  EXPECT_EQ(Stats.LaunchEdges, 2u);
  EXPECT_EQ(Stats.DuplicateCorrelations, 0u);
}

} // namespace
