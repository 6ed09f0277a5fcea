//===- PrecisionTest.cpp - Reading a kernel's dtype from what it is called ===//
//
// Names from the traces in ../shared (V100, A100, MI250) and from the
// libraries' naming rules (cuBLAS, cuDNN, CUTLASS, Tensile, ATen).
//
//===----------------------------------------------------------------------===//

#include "daydream/Transforms/Precision.h"

#include "gtest/gtest.h"

using namespace dd;

namespace {

TEST(PrecisionTest, KernelNamesFromRealTraces) {
  struct Case {
    const char *Name;
    DType Type;
  } Cases[] = {
      // resnet50_v100_2021format, resnet_v100_train (V100, FP32).
      {"volta_sgemm_64x64_nt", DType::FP32},
      {"volta_scudnn_128x128_stridedB_splitK_small_nn_v1", DType::FP32},
      {"void implicit_convolve_sgemm<float, float, 1024, 6, 7, 3, 3, 5, 1, "
       "false, true, true>(int, int, int, float const*, int, float*)",
       DType::FP32},
      {"void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>",
       DType::FP32},
      {"void at::native::vectorized_elementwise_kernel<4, "
       "at::native::AddFunctor<float>, at::detail::Array<char*, 3> >",
       DType::FP32},
      // resnet_ddp_a100_rank0of2: CUTLASS's m16n8k8 on an A100 is TF32.
      {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_"
       "align4>(cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4::Params)",
       DType::TF32},
      // event_sync_a100: a half reduction that accumulates in float.
      {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<"
       "c10::Half, at::native::func_wrapper_t<c10::Half, "
       "at::native::sum_functor<c10::Half, float, float>",
       DType::FP16},
      {"ampere_sgemm_128x64_nn", DType::FP32},
      // toy_mi250_rocm: Tensile, single precision with beta.
      {"Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0",
       DType::FP32},
  };
  for (const Case &C : Cases)
    EXPECT_EQ(dtypeOfKernelName(C.Name), C.Type) << C.Name;
}

TEST(PrecisionTest, KernelNamesFromTheLibrariesRules) {
  struct Case {
    const char *Name;
    DType Type;
  } Cases[] = {
      {"volta_h884gemm_128x128_ldg8_nn", DType::FP16},
      {"volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn", DType::FP16},
      {"turing_s1688gemm_128x128_ldg8_nn", DType::FP16},
      {"ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn",
       DType::FP16},
      {"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn",
       DType::BF16},
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64",
       DType::BF16},
      {"sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc",
       DType::TF32},
      {"sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc",
       DType::FP16},
      {"sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32_tn_n", DType::FP8},
      {"void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, "
       "false, false, cutlass::bfloat16_t>>",
       DType::BF16},
      {"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1", DType::FP16},
      {"Cijk_Ailk_Bjlk_BBS_BH_MT256x128x64_MI32x32x8x1", DType::BF16},
      {"Cijk_Ailk_Bljk_DB_MT64x64x8", DType::FP64},
      {"Cijk_Ailk_Bljk_F8SS_BH_MT256x256x64", DType::FP8},
      {"void at::native::vectorized_elementwise_kernel<4, "
       "at::native::FillFunctor<c10::BFloat16>>",
       DType::BF16},
      {"volta_dgemm_64x64_nn", DType::FP64},
      // Triton and hand-written kernels do not say.
      {"triton_poi_fused_add_relu_0", DType::Unknown},
      {"spin_kernel", DType::Unknown},
  };
  for (const Case &C : Cases)
    EXPECT_EQ(dtypeOfKernelName(C.Name), C.Type) << C.Name;
}

TEST(PrecisionTest, OpInputTypes) {
  EXPECT_EQ(dtypeOfTypeName("float"), DType::FP32);
  EXPECT_EQ(dtypeOfTypeName("c10::Half"), DType::FP16);
  EXPECT_EQ(dtypeOfTypeName("c10::BFloat16"), DType::BF16);
  EXPECT_EQ(dtypeOfTypeName("c10::Float8_e4m3fn"), DType::FP8);
  EXPECT_EQ(dtypeOfTypeName("long int"), DType::Unknown);
  EXPECT_EQ(dtypeOfTypeName("Scalar"), DType::Unknown);
  // The first floating tensor decides; integers and scalars are skipped.
  EXPECT_EQ(dtypeOfInputTypes(R"(["long int", "c10::BFloat16", "float"])"),
            DType::BF16);
  EXPECT_EQ(dtypeOfInputTypes(R"(["GenericList", "Int"])"), DType::Unknown);
  EXPECT_EQ(dtypeOfInputTypes(R"([])"), DType::Unknown);
  EXPECT_EQ(dtypeOfInputTypes(R"(["unterminated)"), DType::Unknown);
  EXPECT_EQ(bytesPerElement(DType::BF16), 2u);
  EXPECT_EQ(bytesPerElement(DType::Unknown), 4u);
}

} // namespace
