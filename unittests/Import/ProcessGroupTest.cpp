//===- ProcessGroupTest.cpp - Process groups as Kineto writes them
//---------===//
//
// The members list of a collective's "Process Group Ranks" arg, good and
// malformed, and the group args of a kernel as the reader keeps them (the
// name, or the older numeric "Process Group ID", and the list as written).
//
//===----------------------------------------------------------------------===//

#include "daydream/Import/ImportJob.h"
#include "daydream/Import/KinetoReader.h"

#include "KinetoTestUtil.h"

#include "gtest/gtest.h"

using namespace dd;
using namespace dd::import;

namespace {

std::vector<int32_t> parseOk(llvm::StringRef Text) {
  auto R = parseGroupRanks(Text);
  if (!R) {
    ADD_FAILURE() << Text.str() << ": " << llvm::toString(R.takeError());
    return {};
  }
  return *R;
}

std::string parseError(llvm::StringRef Text) {
  auto R = parseGroupRanks(Text);
  if (R) {
    ADD_FAILURE() << Text.str() << " parsed";
    return "";
  }
  return llvm::toString(R.takeError());
}

TEST(ProcessGroupTest, ParsesKinetoLists) {
  EXPECT_EQ(parseOk("[0, 1, 2]"), (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(parseOk("[0,1]"), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(parseOk(" [ 6 , 2,4, 0 ] "), (std::vector<int32_t>{0, 2, 4, 6}));
  EXPECT_EQ(parseOk("[3]"), (std::vector<int32_t>{3}));
}

TEST(ProcessGroupTest, MalformedListsAreErrors) {
  EXPECT_EQ(parseError("0, 1"), "malformed process group ranks '0, 1': "
                                "expected a list such as [0, 1, 2]");
  EXPECT_EQ(parseError("[0, 1"), "malformed process group ranks '[0, 1': "
                                 "expected a list such as [0, 1, 2]");
  EXPECT_EQ(parseError("[]"), "malformed process group ranks '[]': no ranks");
  EXPECT_EQ(parseError("[0, x]"),
            "malformed process group ranks '[0, x]': 'x' is not a rank");
  EXPECT_EQ(parseError("[0, -1]"),
            "malformed process group ranks '[0, -1]': '-1' is not a rank");
  EXPECT_EQ(parseError("[0, , 1]"),
            "malformed process group ranks '[0, , 1]': '' is not a rank");
  EXPECT_EQ(parseError("[0, 1,]"), "malformed process group ranks '[0, 1,]': "
                                   "a rank is missing after the last ','");
  EXPECT_EQ(parseError("[1, 0, 1]"), "malformed process group ranks "
                                     "'[1, 0, 1]': rank 1 is listed twice");
  EXPECT_EQ(parseError("[...]"),
            "malformed process group ranks '[...]': '...' is not a rank");
}

TEST(ProcessGroupTest, KernelArgsNameTheGroup) {
  TraceModel M = dd::test::readKinetoOk(R"J({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllGather_RING_LL(x)",
     "pid": 0, "tid": 20, "ts": 10, "dur": 5,
     "args": {"device": 0, "stream": 20, "Process Group Name": "3",
              "Process Group Description": "tp", "Process Group Ranks": "[0, 2]"}},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float",
     "pid": 0, "tid": 20, "ts": 20, "dur": 5,
     "args": {"device": 0, "stream": 20, "Process Group ID": 7}},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float",
     "pid": 0, "tid": 20, "ts": 30, "dur": 5, "args": {"device": 0, "stream": 20}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 40,
     "dur": 5, "args": {"device": 0, "stream": 7, "Process Group Name": "3"}}
  ]})J");
  ASSERT_EQ(M.Activities.size(), 4u);
  auto Str = [&](StrId Id) {
    return Id == NoId ? std::string("-") : M.Strings.get(Id).str();
  };
  EXPECT_EQ(Str(M.Activities[0].Group), "3");
  EXPECT_EQ(Str(M.Activities[0].GroupRanks), "[0, 2]");
  EXPECT_EQ(Str(M.Activities[1].Group), "7");
  EXPECT_EQ(Str(M.Activities[1].GroupRanks), "-");
  // No group args: the world.
  EXPECT_EQ(Str(M.Activities[2].Group), "-");
  // Only collectives have a group.
  EXPECT_EQ(Str(M.Activities[3].Group), "-");
}

TEST(ProcessGroupTest, RecordParamCommsStandsInForKernelArgs) {
  // The kernel records nothing; the record_param_comms op around its
  // launch records the group and the size (2048 floats). A second kernel
  // launched outside any such op stays in the world.
  TraceModel M = dd::test::readKinetoOk(R"J({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1,
     "tid": 1, "ts": 10, "dur": 20,
     "args": {"Collective name": "allreduce", "In msg nelems": 2048,
              "Out msg nelems": 2048, "dtype": "Float",
              "Process Group Name": "5", "Process Group Ranks": "[1, 3]"}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
     "tid": 1, "ts": 12, "dur": 5, "args": {"correlation": 7}},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float",
     "pid": 0, "tid": 20, "ts": 20, "dur": 5,
     "args": {"device": 0, "stream": 20, "correlation": 7}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
     "tid": 1, "ts": 40, "dur": 5, "args": {"correlation": 8}},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float",
     "pid": 0, "tid": 20, "ts": 50, "dur": 5,
     "args": {"device": 0, "stream": 20, "correlation": 8}}
  ]})J");
  ASSERT_EQ(M.Activities.size(), 2u);
  const GpuActivity &In = M.Activities[0], &Out = M.Activities[1];
  ASSERT_NE(In.Group, NoId);
  EXPECT_EQ(M.Strings.get(In.Group), "5");
  ASSERT_NE(In.GroupRanks, NoId);
  EXPECT_EQ(M.Strings.get(In.GroupRanks), "[1, 3]");
  EXPECT_EQ(In.Attrs.Bytes, 2048u * 4);
  EXPECT_EQ(Out.Group, NoId);
  EXPECT_EQ(Out.Attrs.Bytes, 0u);
}

} // namespace
