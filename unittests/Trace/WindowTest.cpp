//===- WindowTest.cpp - Iteration names, window syntax and counting -------===//

#include "Window.h"
#include "NvtxRange.h"

#include <cupti_nvtx_cbid.h>
#include <generated_nvtx_meta.h>
#include <gtest/gtest.h>

using namespace dd::trace;

namespace {

TEST(IterationNameTest, AcceptsTheCommonNames) {
  for (const char *Name :
       {"ProfilerStep#0", "ProfilerStep#12", "profilerstep 3", "step 1",
        "Step_2", "STEP#3", "step4", "iteration 5", "Iteration_6 fwd"})
    EXPECT_TRUE(isIterationName(Name)) << Name;
}

TEST(IterationNameTest, RejectsOthers) {
  for (const char *Name :
       {"", "step", "step_", "step  1", "step-1", "stepper 1", "forward",
        "optimizer.step 1", "iter 1", "Iteration", "ProfilerStep#x"})
    EXPECT_FALSE(isIterationName(Name)) << Name;
  EXPECT_FALSE(isIterationName(nullptr));
}

TEST(IterationNameTest, PrefixIsCaseSensitive) {
  EXPECT_TRUE(startsIteration("train 3", "train"));
  EXPECT_FALSE(startsIteration("Train 3", "train"));
  EXPECT_FALSE(startsIteration("step 3", "train"));
  EXPECT_TRUE(startsIteration("step 3", ""));
}

TEST(ParseWindowTest, Valid) {
  uint32_t First = 9, Last = 9;
  std::string Err;
  ASSERT_TRUE(parseWindow("10:20", First, Last, Err)) << Err;
  EXPECT_EQ(First, 10u);
  EXPECT_EQ(Last, 20u);
  ASSERT_TRUE(parseWindow("0:0", First, Last, Err)) << Err;
  EXPECT_EQ(First, 0u);
  EXPECT_EQ(Last, 0u);
}

TEST(ParseWindowTest, Invalid) {
  uint32_t First, Last;
  for (const char *Text : {"", "10", "10:", ":20", "a:b", "-1:2", "1:2:3",
                           " 1:2", "1: 2", "99999999999:1"}) {
    std::string Err;
    EXPECT_FALSE(parseWindow(Text, First, Last, Err)) << Text;
    EXPECT_NE(Err.find("expected FIRST:LAST"), std::string::npos) << Err;
  }
  std::string Err;
  EXPECT_FALSE(parseWindow("5:4", First, Last, Err));
  EXPECT_NE(Err.find("FIRST is after LAST"), std::string::npos) << Err;
}

TEST(IterationWindowTest, Steps) {
  using Step = IterationWindow::Step;
  IterationWindow W(1, 2, "");
  EXPECT_EQ(W.onRangeStart("step 0"), Step::None);
  EXPECT_EQ(W.onRangeStart("forward"), Step::None);
  EXPECT_EQ(W.onRangeStart("step 1"), Step::Open);
  EXPECT_EQ(W.onRangeStart("step 2"), Step::None);
  EXPECT_EQ(W.onRangeStart("step 3"), Step::Close);
  EXPECT_FALSE(W.done());
  EXPECT_EQ(W.onRangeStart("step 4"), Step::Drain);
  EXPECT_TRUE(W.done());
  EXPECT_EQ(W.onRangeStart("step 5"), Step::None);
  EXPECT_EQ(W.iterations(), 5u);
}

TEST(IterationWindowTest, WindowAtZero) {
  using Step = IterationWindow::Step;
  IterationWindow W(0, 0, "it");
  EXPECT_EQ(W.onRangeStart("it0"), Step::Open);
  EXPECT_EQ(W.onRangeStart("it1"), Step::Close);
  EXPECT_EQ(W.onRangeStart("it2"), Step::Drain);
}

TEST(NvtxRangeTest, NamesOfEveryStartForm) {
  std::string Name;
  nvtxRangePushA_params PushA{"step 1"};
  CUpti_NvtxData Data{"nvtxRangePushA", &PushA, nullptr};
  ASSERT_TRUE(nvtxRangeStartName(CUPTI_CBID_NVTX_nvtxRangePushA, &Data, Name));
  EXPECT_EQ(Name, "step 1");

  nvtxRangeStartW_params StartW{L"wide \u00e9name"};
  Data.functionParams = &StartW;
  ASSERT_TRUE(nvtxRangeStartName(CUPTI_CBID_NVTX_nvtxRangeStartW, &Data, Name));
  EXPECT_EQ(Name, "wide "); // cut at the first non-ASCII character

  nvtxEventAttributes_t A = {};
  A.messageType = NVTX_MESSAGE_TYPE_ASCII;
  A.message.ascii = "ProfilerStep#4";
  nvtxDomainRangePushEx_params DomainPush{};
  DomainPush.core.eventAttrib = &A;
  Data.functionParams = &DomainPush;
  ASSERT_TRUE(
      nvtxRangeStartName(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, &Data, Name));
  EXPECT_EQ(Name, "ProfilerStep#4");

  A.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  ASSERT_TRUE(
      nvtxRangeStartName(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, &Data, Name));
  EXPECT_EQ(Name, "");
}

TEST(NvtxRangeTest, OtherCallsAreNotStarts) {
  std::string Name;
  CUpti_NvtxData Data{"nvtxRangePop", nullptr, nullptr};
  EXPECT_FALSE(nvtxRangeStartName(CUPTI_CBID_NVTX_nvtxRangePop, &Data, Name));
  EXPECT_FALSE(nvtxRangeStartName(CUPTI_CBID_NVTX_nvtxMarkA, &Data, Name));
  // A start without parameters has an empty name rather than crashing.
  EXPECT_TRUE(nvtxRangeStartName(CUPTI_CBID_NVTX_nvtxRangePushA, &Data, Name));
  EXPECT_EQ(Name, "");
}

} // namespace
