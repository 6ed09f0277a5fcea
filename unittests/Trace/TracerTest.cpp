//===- TracerTest.cpp - The tracer on a fake CUPTI, without a window ------===//
//
// What reaches the file: records with their strings, API names once, the
// dropped count when the buffer pool runs dry, the End frame; and that a
// failed start leaves neither a file nor an enabled activity kind.
//
//===----------------------------------------------------------------------===//

#include "TracerFixture.h"

#include <algorithm>

using namespace dd::trace;
using namespace dd::trace::testing;

namespace {

TEST_F(TracerTest, WritesRecordsNamesAndEnd) {
  ASSERT_TRUE(start());
  EXPECT_TRUE(isTracing());
  for (CUpti_ActivityKind Kind : TracedKinds)
    EXPECT_TRUE(fake::state().Enabled.count(Kind)) << Kind;
  EXPECT_FALSE(fake::state().Enabled.count(CUPTI_ACTIVITY_KIND_MEMORY2));

  fake::state().Now = 5000;
  ASSERT_TRUE(fake::emit(api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, 1)));
  ASSERT_TRUE(fake::emit(kernel("gemm_kernel", 1, 100)));
  ASSERT_TRUE(fake::emit(api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, 2)));
  ASSERT_TRUE(fake::emit(api(CUPTI_ACTIVITY_KIND_DRIVER, 211, 3)));
  ASSERT_TRUE(fake::emit(kernel("gemm_kernel", 2, 200)));
  MemcpyRecord Copy = {};
  Copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  Copy.bytes = 4096;
  ASSERT_TRUE(fake::emit(Copy));
  finishTracing();
  EXPECT_FALSE(isTracing());

  TraceFile File = read();
  ASSERT_EQ(File.Error, "");
  EXPECT_EQ(File.Header.Version, RecordFileVersion);
  EXPECT_EQ(File.Header.CuptiRuntimeVersion, 130001u);
  EXPECT_EQ(File.Header.Pid, uint32_t(getpid()));
  EXPECT_EQ(File.Header.StartNs, 1000u);
  EXPECT_EQ(File.Header.LayoutSignature, recordLayoutSignature());
  // Thread ids as the operating system numbers them.
  EXPECT_EQ(fake::state().ThreadIdType, CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);

  EXPECT_EQ(File.kernelNames(),
            (std::vector<std::string>{"gemm_kernel", "gemm_kernel"}));
  EXPECT_EQ(File.frames(FrameType::String).size(), 1u);
  EXPECT_EQ(File.apiCorrelations(CUPTI_ACTIVITY_KIND_RUNTIME),
            (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(File.apiCorrelations(CUPTI_ACTIVITY_KIND_DRIVER),
            (std::vector<uint32_t>{3}));
  EXPECT_EQ(File.records(CUPTI_ACTIVITY_KIND_MEMCPY).size(), 1u);

  // One name per (domain, id): the runtime's and the driver's 211 differ.
  auto Names = File.frames(FrameType::ApiName);
  ASSERT_EQ(Names.size(), 2u);
  EXPECT_EQ(Names[0]->as<uint32_t>(0), uint32_t(CUPTI_CB_DOMAIN_RUNTIME_API));
  EXPECT_EQ(Names[0]->as<uint32_t>(4), 211u);
  EXPECT_EQ(std::string(Names[0]->Payload.begin() + 8, Names[0]->Payload.end()),
            fake::apiName(CUPTI_CB_DOMAIN_RUNTIME_API, 211));
  EXPECT_EQ(Names[1]->as<uint32_t>(0), uint32_t(CUPTI_CB_DOMAIN_DRIVER_API));

  auto Dropped = File.frames(FrameType::Dropped);
  ASSERT_FALSE(Dropped.empty());
  EXPECT_EQ(Dropped.back()->as<uint64_t>(), 0u);
  EXPECT_TRUE(File.frames(FrameType::Window).empty());
  ASSERT_TRUE(File.endsCleanly());
  EXPECT_EQ(File.Frames.back().as<uint64_t>(), 5000u);
  EXPECT_EQ(fake::state().FlushFlags,
            std::vector<uint32_t>{CUPTI_ACTIVITY_FLAG_FLUSH_FORCED});
}

TEST_F(TracerTest, RecordsMemoryOnlyWhenAsked) {
  Config.Memory = true;
  ASSERT_TRUE(start());
  EXPECT_TRUE(fake::state().Enabled.count(CUPTI_ACTIVITY_KIND_MEMORY2));
  MemoryRecord M = {};
  M.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  M.name = "weights";
  M.bytes = 1 << 20;
  ASSERT_TRUE(fake::emit(M));
  finishTracing();
  TraceFile File = read();
  ASSERT_EQ(File.Error, "");
  EXPECT_EQ(File.records(CUPTI_ACTIVITY_KIND_MEMORY2).size(), 1u);
}

TEST_F(TracerTest, EmptyPoolDropsRecordsAndCountsThem) {
  // Two buffers of one kernel record each; the fake keeps full buffers until
  // it is flushed, so the third record finds no buffer.
  Config.BufferBytes = sizeof(KernelRecord);
  Config.BufferPoolBytes = 2 * sizeof(KernelRecord);
  ASSERT_TRUE(start());
  int Stored = 0;
  for (uint32_t I = 0; I < 5; ++I)
    Stored += fake::emit(kernel("k", I));
  EXPECT_EQ(Stored, 2);
  finishTracing();

  TraceFile File = read();
  ASSERT_EQ(File.Error, "");
  EXPECT_EQ(File.kernelNames().size(), 2u);
  auto Dropped = File.frames(FrameType::Dropped);
  ASSERT_FALSE(Dropped.empty());
  EXPECT_EQ(Dropped.back()->as<uint64_t>(), 3u);
  EXPECT_TRUE(File.endsCleanly());
}

TEST_F(TracerTest, ReturnedBuffersAreReused) {
  Config.BufferBytes = sizeof(KernelRecord);
  Config.BufferPoolBytes = 2 * sizeof(KernelRecord);
  ASSERT_TRUE(start());
  for (uint32_t Round = 0; Round < 4; ++Round) {
    EXPECT_TRUE(fake::emit(kernel("k", 2 * Round)));
    EXPECT_TRUE(fake::emit(kernel("k", 2 * Round + 1)));
    fake::api().ActivityFlushAll(0); // CUPTI hands the buffers back
  }
  finishTracing();
  TraceFile File = read();
  EXPECT_EQ(File.kernelNames().size(), 8u);
  EXPECT_EQ(File.frames(FrameType::Dropped).back()->as<uint64_t>(), 0u);
}

TEST_F(TracerTest, FinishingTwiceEndsOnce) {
  ASSERT_TRUE(start());
  fake::emit(kernel("k", 1));
  finishTracing();
  finishTracing();
  // After the end the tracer lends no buffer: later records are dropped.
  EXPECT_FALSE(fake::emit(kernel("late", 2)));
  fake::api().ActivityFlushAll(0);
  TraceFile File = read();
  ASSERT_EQ(File.Error, "");
  EXPECT_EQ(File.frames(FrameType::End).size(), 1u);
  EXPECT_EQ(File.kernelNames(), std::vector<std::string>{"k"});
}

TEST_F(TracerTest, FailedEnableLeavesNothing) {
  fake::state().FailEnable = CUPTI_ACTIVITY_KIND_RUNTIME;
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(start());
  std::string Err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(contains(Err, "dd-trace: CUPTI error in cuptiActivityEnable: "
                            "CUPTI_ERROR_UNKNOWN"));
  EXPECT_FALSE(isTracing());
  EXPECT_TRUE(fake::state().Enabled.empty());
  EXPECT_TRUE(listDir(Dir).empty());
}

TEST_F(TracerTest, FailedSubscribeLeavesNothing) {
  Config.HasWindow = true;
  fake::state().SubscribeResult =
      CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(start());
  std::string Err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(contains(Err, "dd-trace: CUPTI error in cuptiSubscribe: "
                            "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"));
  EXPECT_TRUE(fake::state().Enabled.empty());
  EXPECT_TRUE(listDir(Dir).empty());
}

TEST_F(TracerTest, MissingOutputFolderIsReported) {
  Config.OutputDir = Dir + "/missing";
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(start());
  std::string Err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(contains(Err, "dd-trace: cannot create '" + Dir + "/missing/"));
  EXPECT_TRUE(fake::state().Enabled.empty());
  EXPECT_FALSE(isTracing());
}

} // namespace
