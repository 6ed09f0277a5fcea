//===- OpWorkTest.cpp - FLOPs and bytes from op shapes, hand-worked -------===//
//
// Shapes as the profiler writes them (from resnet50_v100_2021format and
// dlrm_8rank_v100 in ../shared/traces).
//
//===----------------------------------------------------------------------===//

#include "daydream/Transforms/OpWork.h"

#include "gtest/gtest.h"

using namespace dd;

namespace {

TEST(OpWorkTest, Gemms) {
  // addmm(bias [1000], [32, 2048], [2048, 1000]): 2 x 32 x 2048 x 1000.
  auto W =
      formulaWork("aten::addmm", "[[1000], [32, 2048], [2048, 1000], [], []]",
                  R"(["float", "float", "float", "Int", "Int"])");
  ASSERT_TRUE(W);
  EXPECT_DOUBLE_EQ(W->Flops, 2.0 * 32 * 2048 * 1000);
  // Inputs 1000 + 65536 + 2048000 floats, output 32000.
  EXPECT_DOUBLE_EQ(W->Bytes, 4.0 * (1000 + 65536 + 2048000 + 32000));
  EXPECT_TRUE(W->FromFormula);
  // bmm [16, 16, 27] x [16, 27, 27].
  W = formulaWork("aten::bmm", "[[16, 16, 27], [16, 27, 27]]",
                  R"(["float", "float"])");
  ASSERT_TRUE(W);
  EXPECT_DOUBLE_EQ(W->Flops, 2.0 * 16 * 16 * 27 * 27);
  // linear [16, 13] x [256, 13]^T, in half precision: 2-byte elements.
  W = formulaWork("aten::linear", "[[16, 13], [256, 13], [256]]",
                  R"(["c10::Half", "c10::Half", "c10::Half"])");
  ASSERT_TRUE(W);
  EXPECT_DOUBLE_EQ(W->Flops, 2.0 * 16 * 13 * 256);
  EXPECT_DOUBLE_EQ(W->Bytes, 2.0 * (16 * 13 + 256 * 13 + 256 + 16 * 256));
  // matmul broadcasts a batch: [8, 4, 5] x [5, 6].
  W = formulaWork("aten::matmul", "[[8, 4, 5], [5, 6]]",
                  R"(["float", "float"])");
  ASSERT_TRUE(W);
  EXPECT_DOUBLE_EQ(W->Flops, 2.0 * 8 * 4 * 5 * 6);
}

TEST(OpWorkTest, Convolutions) {
  // The ResNet stem: [32, 3, 224, 224] * [64, 3, 7, 7], output taken at the
  // input's spatial size (stride unknown): 2 x 32 x 64 x 224^2 x 3 x 49.
  auto W = formulaWork(
      "aten::cudnn_convolution",
      "[[32, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], []]",
      R"(["float", "float", "GenericList"])");
  ASSERT_TRUE(W);
  EXPECT_DOUBLE_EQ(W->Flops, 2.0 * 32 * 64 * 224 * 224 * 3 * 49);
  // Backward with the input first (cudnn_convolution_backward): the
  // grad_output is the argument with the weight's 2048 output channels.
  W = formulaWork(
      "aten::cudnn_convolution_backward",
      "[[32, 512, 7, 7], [32, 2048, 7, 7], [2048, 512, 1, 1], [], []]",
      R"(["float", "float", "float"])");
  ASSERT_TRUE(W);
  EXPECT_DOUBLE_EQ(W->Flops, 4.0 * 32 * 2048 * 49 * 512);
  // The same with grad_output first (aten::convolution_backward).
  auto W2 =
      formulaWork("aten::convolution_backward",
                  "[[32, 2048, 7, 7], [32, 512, 7, 7], [2048, 512, 1, 1], []]",
                  R"(["float", "float", "float"])");
  ASSERT_TRUE(W2);
  EXPECT_DOUBLE_EQ(W2->Flops, W->Flops);
}

TEST(OpWorkTest, AttentionAndTheMemoryRule) {
  auto W =
      formulaWork("aten::_scaled_dot_product_flash_attention",
                  "[[2, 8, 128, 64], [2, 8, 256, 64], [2, 8, 256, 64]]",
                  R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])");
  ASSERT_TRUE(W);
  EXPECT_DOUBLE_EQ(W->Flops, 4.0 * 2 * 8 * 128 * 256 * 64);
  // add_ of two [32, 256, 56, 56] floats: two read, one written.
  auto M = memoryWork("[[32, 256, 56, 56], [32, 256, 56, 56], []]",
                      R"(["float", "float", "Int"])");
  ASSERT_TRUE(M);
  EXPECT_DOUBLE_EQ(M->Bytes, 3.0 * 4 * 32 * 256 * 56 * 56);
  EXPECT_EQ(M->Flops, 0);
  // A TensorList ([[128, 128], [128]] twice) counts its tensors' elements.
  M = memoryWork("[[[128, 128], [128]], [[128, 128], [128]], []]",
                 R"(["TensorList", "TensorList", "Scalar"])");
  ASSERT_TRUE(M);
  EXPECT_DOUBLE_EQ(M->Bytes, 3.0 * 4 * (128 * 128 + 128));
  // No formula, no shapes, bad text: nothing.
  EXPECT_FALSE(formulaWork("aten::relu", "[[4]]", R"(["float"])"));
  EXPECT_FALSE(formulaWork("aten::mm", "[[], []]", R"(["float", "float"])"));
  EXPECT_FALSE(memoryWork("[[], []]", R"(["GenericList", "Int"])"));
  EXPECT_FALSE(memoryWork("[[3, x]]", R"(["float"])"));
  EXPECT_FALSE(memoryWork("[[3, 4]", R"(["float"])"));
}

TEST(OpWorkTest, InputElements) {
  // A tensor, a scalar, an empty tensor, a TensorList: what autocast casts.
  llvm::SmallVector<double, 8> N;
  ASSERT_TRUE(readInputElements("[[64, 1024], [], [0], [[2, 3], [4]]]", N));
  ASSERT_EQ(N.size(), 4u);
  EXPECT_EQ(N[0], 65536);
  EXPECT_EQ(N[1], 0);
  EXPECT_EQ(N[2], 0);
  EXPECT_EQ(N[3], 10);
  N.clear();
  EXPECT_FALSE(readInputElements("[[64, 1024]", N));
  EXPECT_FALSE(readInputElements("not dims", N));
}

} // namespace
