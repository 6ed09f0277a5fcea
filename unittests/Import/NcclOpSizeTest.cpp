//===- NcclOpSizeTest.cpp - Pre-2024 collective sizes from nccl:* ops ---===//
//
// Traces before 2024 record a collective's size only as the inputs of the
// nccl:* range around its launch ("Input Dims", "Input type"); the reader
// keeps them for those ops alone and gives the kernel their bytes where
// nothing else says its size.
//
//===----------------------------------------------------------------------===//

#include "daydream/Import/InputFile.h"
#include "daydream/Import/KinetoReader.h"

#include "KinetoTestUtil.h"

#include "gtest/gtest.h"

using namespace dd;
using namespace dd::import;

namespace {

/// A trace of world size 4 whose one launch (correlation 7, at 12 us) is
/// inside \p Op, an event of its own, and whose kernel has \p KernelArgs.
std::string traceWith(llvm::StringRef Op, llvm::StringRef KernelArgs = "") {
  return (R"J({"distributedInfo": {"rank": 0, "world_size": 4},
  "traceEvents": [)J" +
          Op + R"J(,
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
     "tid": 1, "ts": 12, "dur": 5, "args": {"correlation": 7}},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float",
     "pid": 0, "tid": 20, "ts": 20, "dur": 5,
     "args": {"device": 0, "stream": 20, "correlation": 7)J" +
          KernelArgs + "}}]}")
      .str();
}

uint64_t kernelBytes(llvm::StringRef Op, llvm::StringRef KernelArgs = "") {
  TraceModel M = dd::test::readKinetoOk(traceWith(Op, KernelArgs));
  EXPECT_EQ(M.Activities.size(), 1u);
  return M.Activities.empty() ? 0 : M.Activities[0].Attrs.Bytes;
}

TEST(NcclOpSizeTest, InputsOfTheEnclosingOp) {
  // DLRM's spelling: a user_annotation, 394241 floats.
  EXPECT_EQ(kernelBytes(R"J({"ph": "X", "cat": "user_annotation",
      "name": "nccl:all_reduce", "pid": 1, "tid": 1, "ts": 10, "dur": 20,
      "args": {"External id": 1138, "Input Dims": [[394241]],
               "Input type": ["float"]}})J"),
            394241u * 4);
  // A cpu_op, two tensors and a non-tensor input; types before dims.
  EXPECT_EQ(kernelBytes(R"J({"ph": "X", "cat": "cpu_op",
      "name": "nccl:all_reduce", "pid": 1, "tid": 1, "ts": 10, "dur": 20,
      "args": {"Input type": ["c10::BFloat16", "long int", "Scalar"],
               "Input Dims": [[2, 3], [ 5 ], []]}})J"),
            6u * 2 + 5 * 8);
}

TEST(NcclOpSizeTest, AllGatherInputIsOneRanksPart) {
  // 256 halves from each of the 4 ranks.
  EXPECT_EQ(kernelBytes(R"J({"ph": "X", "cat": "user_annotation",
      "name": "nccl:all_gather", "pid": 1, "tid": 1, "ts": 10, "dur": 20,
      "args": {"Input Dims": [[256]], "Input type": ["c10::Half"]}})J"),
            256u * 2 * 4);
}

TEST(NcclOpSizeTest, KernelArgsComeFirst) {
  EXPECT_EQ(kernelBytes(R"J({"ph": "X", "cat": "user_annotation",
      "name": "nccl:all_reduce", "pid": 1, "tid": 1, "ts": 10, "dur": 20,
      "args": {"Input Dims": [[10]], "Input type": ["float"]}})J",
                        R"J(, "In msg nelems": 2048, "dtype": "Float")J"),
            2048u * 4);
}

TEST(NcclOpSizeTest, WhatGivesNoSize) {
  const char *Ops[] = {
      // Not around the launch (ends before it).
      R"J({"ph": "X", "cat": "user_annotation", "name": "nccl:all_reduce",
          "pid": 1, "tid": 1, "ts": 1, "dur": 5,
          "args": {"Input Dims": [[8]], "Input type": ["float"]}})J",
      // Another name.
      R"J({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1,
          "tid": 1, "ts": 10, "dur": 20,
          "args": {"Input Dims": [[8]], "Input type": ["float"]}})J",
      // An unknown type, a count that disagrees, no tensor, malformed
      // dims, no types.
      R"J({"ph": "X", "cat": "cpu_op", "name": "nccl:all_reduce", "pid": 1,
          "tid": 1, "ts": 10, "dur": 20,
          "args": {"Input Dims": [[8]], "Input type": ["quaternion"]}})J",
      R"J({"ph": "X", "cat": "cpu_op", "name": "nccl:all_reduce", "pid": 1,
          "tid": 1, "ts": 10, "dur": 20,
          "args": {"Input Dims": [[8], [2]], "Input type": ["float"]}})J",
      R"J({"ph": "X", "cat": "cpu_op", "name": "nccl:broadcast", "pid": 1,
          "tid": 1, "ts": 10, "dur": 20,
          "args": {"Input Dims": [[]], "Input type": ["Scalar"]}})J",
      R"J({"ph": "X", "cat": "cpu_op", "name": "nccl:all_reduce", "pid": 1,
          "tid": 1, "ts": 10, "dur": 20,
          "args": {"Input Dims": [["8"]], "Input type": ["float"]}})J",
      // Dimensions are digits only: no sign, fraction or exponent.
      R"J({"ph": "X", "cat": "cpu_op", "name": "nccl:all_reduce", "pid": 1,
          "tid": 1, "ts": 10, "dur": 20,
          "args": {"Input Dims": [[-8]], "Input type": ["float"]}})J",
      R"J({"ph": "X", "cat": "cpu_op", "name": "nccl:all_reduce", "pid": 1,
          "tid": 1, "ts": 10, "dur": 20,
          "args": {"Input Dims": [[8.0]], "Input type": ["float"]}})J",
      R"J({"ph": "X", "cat": "cpu_op", "name": "nccl:all_reduce", "pid": 1,
          "tid": 1, "ts": 10, "dur": 20,
          "args": {"Input Dims": [[1e3]], "Input type": ["float"]}})J",
      R"J({"ph": "X", "cat": "cpu_op", "name": "nccl:all_reduce", "pid": 1,
          "tid": 1, "ts": 10, "dur": 20, "args": {"Input Dims": [[8]]}})J",
  };
  for (const char *Op : Ops)
    EXPECT_EQ(kernelBytes(Op), 0u) << Op;
}

TEST(NcclOpSizeTest, AllGatherWithoutWorldSizeHasNoSize) {
  TraceModel M = dd::test::readKinetoOk(R"J({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "nccl:all_gather",
     "pid": 1, "tid": 1, "ts": 10, "dur": 20,
     "args": {"Input Dims": [[256]], "Input type": ["float"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
     "tid": 1, "ts": 12, "dur": 5, "args": {"correlation": 7}},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllGather_RING_LL_Sum_float",
     "pid": 0, "tid": 20, "ts": 20, "dur": 5,
     "args": {"device": 0, "stream": 20, "correlation": 7}}]})J");
  ASSERT_EQ(M.Activities.size(), 1u);
  EXPECT_EQ(M.Activities[0].Attrs.Bytes, 0u);
}

} // namespace
