//===- KernelClassTest.cpp - Kernel classes and the GPU table -------------===//

#include "daydream/Transforms/KernelClass.h"
#include "../IR/GraphBuilder.h"
#include "daydream/Device/GpuSpecs.h"

#include "gtest/gtest.h"

using namespace dd;
using namespace dd::test;

namespace {

TEST(KernelClassTest, RealKernelNames) {
  struct Case {
    const char *Name;
    KernelClass Class;
  } Cases[] = {
      {"volta_sgemm_128x64_nn", KernelClass::Gemm},
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64",
       KernelClass::Gemm},
      {"nvjet_tst_128x256_64x4_1x2_h_bz_coopA_TNT", KernelClass::Gemm},
      {"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn",
       KernelClass::Gemm},
      {"volta_scudnn_128x64_relu_interior_nn_v1", KernelClass::Convolution},
      {"sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc",
       KernelClass::Convolution},
      {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>",
       KernelClass::Normalization},
      {"void at::native::batch_norm_collect_statistics_kernel<...>",
       KernelClass::Normalization},
      {"void at::native::(anonymous "
       "namespace)::vectorized_layer_norm_kernel<float>",
       KernelClass::Normalization},
      {"void at::native::vectorized_elementwise_kernel<4, "
       "at::native::AddFunctor<float>>",
       KernelClass::Elementwise},
      {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>",
       KernelClass::Reduction},
      {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>",
       KernelClass::Reduction},
      // ROCm: Tensile GEMMs, MIOpen, Triton attention (toy_mi250_rocm and
      // the libraries' naming).
      {"Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN",
       KernelClass::Gemm},
      {"igemm_fwd_gtc_gfx90a_nhwc_fp16_bx0_ex1_bt128x128x32",
       KernelClass::Convolution},
      {"MIOpenBatchNormFwdTrainSpatial", KernelClass::Normalization},
      {"attn_fwd", KernelClass::Gemm},
      // Inductor: the prefix decides, not the fused ops' names.
      {"triton_poi_fused_convolution_relu_0", KernelClass::Elementwise},
      {"triton_red_fused__to_copy_add_sum_1", KernelClass::Reduction},
      {"triton_tem_fused_mm_0", KernelClass::Gemm},
      {"void "
       "at::native::multi_tensor_apply_kernel<at::native::"
       "FusedAdamMathFunctor>",
       KernelClass::Optimizer},
      {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<"
       "4096ul>)",
       KernelClass::Communication},
      {"triton_poi_fused_add_relu_0", KernelClass::Elementwise},
      {"void at::native::vectorized_elementwise_kernel<4, "
       "at::native::(anonymous "
       "namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, "
       "c10::Scalar, "
       "at::native::detail::ClampLimits)::{lambda()#1}::operator()() "
       "const::{lambda()#7}::operator()() const::{lambda(float)#1}, "
       "at::detail::Array<char*, 2> >",
       KernelClass::Elementwise},
      {"void "
       "at::native::multi_tensor_apply_kernel<at::native::LambFunctor<float>>",
       KernelClass::Optimizer},
      {"some_custom_kernel", KernelClass::Other},
  };
  for (const Case &C : Cases)
    EXPECT_EQ(classifyKernelName(C.Name), C.Class) << C.Name;
}

TEST(KernelClassTest, NamesRoundTrip) {
  for (unsigned C = 0; C != NumKernelClasses; ++C)
    EXPECT_EQ(parseKernelClass(toString(KernelClass(C))), KernelClass(C));
  EXPECT_FALSE(parseKernelClass("gemms"));
}

TEST(KernelClassTest, ClassifierByTaskKind) {
  Graph G;
  LaneId Gpu = addLane(G, "stream 7", LaneKind::GpuStream);
  TaskId K = addTask(G, Gpu, "volta_sgemm", 0, 1, TaskKind::Kernel);
  TaskId K2 = addTask(G, Gpu, "volta_sgemm", 1, 1, TaskKind::Kernel);
  TaskId C = addTask(G, Gpu, "Memcpy HtoD", 2, 1, TaskKind::Memcpy);
  TaskId A = addTask(G, Gpu, "allreduce", 3, 1, TaskKind::Collective);
  TaskId R = addTask(G, Gpu, "gemm_like_runtime", 4, 1, TaskKind::Runtime);
  KernelClassifier KC(G);
  EXPECT_EQ(KC.classOf(K), KernelClass::Gemm);
  EXPECT_EQ(KC.classOf(K2), KernelClass::Gemm);
  EXPECT_EQ(KC.classOf(C), KernelClass::Copy);
  EXPECT_EQ(KC.classOf(A), KernelClass::Communication);
  EXPECT_EQ(KC.classOf(R), KernelClass::Other);
  // A name interned after the classifier was made is still classified.
  TaskId Late = addTask(G, Gpu, "relu_kernel_new", 5, 1, TaskKind::Kernel);
  EXPECT_EQ(KC.classOf(Late), KernelClass::Elementwise);
}

TEST(GpuSpecsTest, FindsDevicesByTheirTraceNames) {
  ASSERT_NE(findGpu("Tesla V100-SXM2-16GB"), nullptr);
  EXPECT_EQ(findGpu("Tesla V100-SXM2-16GB")->Name, "v100");
  EXPECT_EQ(findGpu("NVIDIA H200")->Name, "h200");
  EXPECT_EQ(findGpu("NVIDIA A100-SXM4-80GB")->Name, "a100");
  EXPECT_EQ(findGpu("AMD Instinct MI300X")->Name, "mi300x");
  EXPECT_EQ(findGpu("B200")->Name, "b200");
  EXPECT_EQ(findGpu("GeForce GTX 1080"), nullptr);
  for (const GpuSpec &S : knownGpus()) {
    EXPECT_GT(S.Fp16Tflops, S.Fp32Tflops) << S.Name.str();
    EXPECT_GT(S.MemoryBandwidthGBps, 0) << S.Name.str();
  }
  Graph G;
  EXPECT_EQ(findGraphGpu(G), nullptr);
  Device D;
  D.Name = "NVIDIA H100 80GB HBM3";
  G.metadata().Devices.push_back(D);
  ASSERT_NE(findGraphGpu(G), nullptr);
  EXPECT_EQ(findGraphGpu(G)->Name, "h100");
}

} // namespace
