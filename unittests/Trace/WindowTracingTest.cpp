//===- WindowTracingTest.cpp - The iteration window on a fake CUPTI -------===//
//
// With DDTRACE_WINDOW FIRST:LAST, records appear only from the start of
// iteration FIRST; API records stop at the start of LAST+1, GPU records at
// the start of LAST+2; the Window frame holds the span; the window closes at
// exit if the program ends inside it.
//
//===----------------------------------------------------------------------===//

#include "TracerFixture.h"

using namespace dd::trace;
using namespace dd::trace::testing;

namespace {

class WindowTest : public TracerTest {
protected:
  void SetUp() override {
    TracerTest::SetUp();
    Config.HasWindow = true;
    Config.WindowFirst = 2;
    Config.WindowLast = 3;
  }

  /// One iteration's worth of activity: a launch and its kernel.
  void iteration(const char *Range, const char *Kernel, uint32_t Correlation) {
    fake::nvtxPushA(Range);
    fake::emit(api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, Correlation));
    fake::emit(kernel(Kernel, Correlation));
  }
};

TEST_F(WindowTest, RecordsOnlyTheWindow) {
  ASSERT_TRUE(start());
  // Only the metadata kinds until the window opens.
  EXPECT_EQ(fake::state().Enabled,
            (std::set<CUpti_ActivityKind>{CUPTI_ACTIVITY_KIND_DEVICE,
                                          CUPTI_ACTIVITY_KIND_CONTEXT,
                                          CUPTI_ACTIVITY_KIND_NAME}));
  DeviceRecord Device = {};
  Device.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  Device.name = "Fake H200";
  EXPECT_TRUE(fake::emit(Device));

  iteration("ProfilerStep#0", "k0", 10);
  iteration("ProfilerStep#1", "k1", 11);
  fake::state().Now = 2000;
  iteration("ProfilerStep#2", "k2", 12);
  // Not an iteration: a layer inside iteration 2.
  fake::nvtxPushA("forward");
  fake::emit(kernel("k2-forward", 12));
  iteration("ProfilerStep#3", "k3", 13);
  fake::state().Now = 3000;
  iteration("ProfilerStep#4", "k4", 14); // API off, GPU still on
  iteration("ProfilerStep#5", "k5", 15); // both off
  EXPECT_EQ(fake::state().Enabled.size(), 3u);
  iteration("ProfilerStep#6", "k6", 16);
  fake::state().Now = 4000;
  finishTracing();

  TraceFile File = read();
  ASSERT_EQ(File.Error, "");
  EXPECT_EQ(File.kernelNames(),
            (std::vector<std::string>{"k2", "k2-forward", "k3", "k4"}));
  EXPECT_EQ(File.apiCorrelations(CUPTI_ACTIVITY_KIND_RUNTIME),
            (std::vector<uint32_t>{12, 13}));
  EXPECT_EQ(File.records(CUPTI_ACTIVITY_KIND_DEVICE).size(), 1u);
  auto Windows = File.frames(FrameType::Window);
  ASSERT_EQ(Windows.size(), 1u);
  EXPECT_EQ(Windows[0]->as<uint64_t>(0), 2000u);
  EXPECT_EQ(Windows[0]->as<uint64_t>(8), 3000u);
  EXPECT_TRUE(File.endsCleanly());
  // The flush when the window closes is not forced; the one at exit is.
  EXPECT_EQ(fake::state().FlushFlags,
            (std::vector<uint32_t>{0, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED}));
}

TEST_F(WindowTest, EveryRangeStartFormCounts) {
  Config.WindowFirst = 4;
  Config.WindowLast = 4;
  ASSERT_TRUE(start());
  fake::nvtxPushA("step 0");
  fake::nvtxRangeStartA("Step_1");
  fake::nvtxPushW(L"iteration 2");
  fake::nvtxPushEx("step#3");
  fake::state().Now = 7000;
  fake::nvtxDomainRangeStartEx("ITERATION 4");
  EXPECT_TRUE(fake::emit(kernel("in-window", 1)));
  fake::state().Now = 8000;
  finishTracing();
  TraceFile File = read();
  EXPECT_EQ(File.kernelNames(), std::vector<std::string>{"in-window"});
  auto Windows = File.frames(FrameType::Window);
  ASSERT_EQ(Windows.size(), 1u);
  // Closed at exit, inside the window.
  EXPECT_EQ(Windows[0]->as<uint64_t>(0), 7000u);
  EXPECT_EQ(Windows[0]->as<uint64_t>(8), 8000u);
  // The Window frame comes before the End frame.
  EXPECT_EQ(File.Frames[File.Frames.size() - 2].Type, FrameType::Window);
}

TEST_F(WindowTest, NamedRangePrefix) {
  Config.WindowFirst = 0;
  Config.WindowLast = 0;
  Config.WindowRange = "train_batch";
  ASSERT_TRUE(start());
  fake::nvtxPushA("ProfilerStep#0"); // not the named range
  EXPECT_FALSE(fake::emit(kernel("before", 1)));
  fake::nvtxPushA("train_batch 17");
  EXPECT_TRUE(fake::emit(kernel("inside", 2)));
  fake::nvtxPushA("train_batch 18");
  EXPECT_TRUE(fake::emit(kernel("draining", 3)));
  EXPECT_FALSE(fake::emit(api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, 3)));
  finishTracing();
  EXPECT_EQ(read().kernelNames(),
            (std::vector<std::string>{"inside", "draining"}));
}

TEST_F(WindowTest, RefusedKindDoesNotStopTheOthers) {
  Config.WindowFirst = 0;
  fake::state().FailEnable = CUPTI_ACTIVITY_KIND_MARKER;
  ASSERT_TRUE(start());
  ::testing::internal::CaptureStderr();
  fake::nvtxPushA("step 0");
  std::string Err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(contains(Err, "dd-trace: CUPTI error in cuptiActivityEnable: "
                            "CUPTI_ERROR_UNKNOWN (MARKER)"));
  EXPECT_TRUE(fake::state().Enabled.count(CUPTI_ACTIVITY_KIND_MARKER_DATA));
  EXPECT_TRUE(fake::emit(kernel("k", 1)));
  finishTracing();
  EXPECT_EQ(read().kernelNames(), std::vector<std::string>{"k"});
}

TEST_F(WindowTest, UnopenedWindowIsReported) {
  Config.WindowFirst = 5;
  Config.WindowLast = 6;
  ASSERT_TRUE(start());
  fake::nvtxPushA("ProfilerStep#0");
  fake::nvtxPushA("ProfilerStep#1");
  ::testing::internal::CaptureStderr();
  finishTracing();
  std::string Err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(contains(Err, "dd-trace: the window 5:6 never opened: the "
                            "program started 2 iterations"));
  EXPECT_TRUE(contains(Err, "NVTX_INJECTION64_PATH"));
  TraceFile File = read();
  EXPECT_TRUE(File.endsCleanly());
  EXPECT_TRUE(File.frames(FrameType::Window).empty());
  EXPECT_TRUE(File.kernelNames().empty());
}

} // namespace
