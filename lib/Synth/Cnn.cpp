//===- Cnn.cpp - A ResNet's training step ---------------------------------===//
//
// ResNet-50's bottleneck blocks (batch 128, 224x224 images, fp32 with TF32
// on an A100), spread over four stages in ResNet-50's proportions 3:4:6:3:
// each block a 1x1, a 3x3 and a 1x1 convolution with batch norm and ReLU
// (and a projection shortcut opening each stage), then the residual add.
// cuDNN's implicit-GEMM kernels and batch-norm kernels under the ATen ops
// that call them; backward on the autograd thread (data and weight
// gradients of each convolution); SGD with momentum as foreach kernels. The
// stages' blocks take about equal time, as ResNet's do (its width doubles as
// its resolution halves); their gradients grow 4x a stage.
//
//===----------------------------------------------------------------------===//

#include "AtenKernels.h"
#include "Program.h"

#include <string>

using namespace dd;
using namespace dd::synth;

namespace {

const char ConvFwd[] =
    "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_"
    "tilesize128x128x16_stage4_warpsize2x2x1_g1_tensor16x8x8_kernel";
const char ConvDgrad[] =
    "sm80_xmma_dgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_"
    "tilesize128x128x16_stage4_warpsize2x2x1_g1_tensor16x8x8_kernel";
const char ConvWgrad[] =
    "sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_"
    "tilesize128x128x16_stage4_warpsize2x2x1_g1_tensor16x8x8_kernel";
const char BnFwd[] =
    "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>("
    "cudnnTensorStruct, float const*, cudnnTensorStruct, float*, float "
    "const*, float const*, float, float, float*, float*, float*, float*, "
    "float, float)";
const char BnBwd[] =
    "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, true, 1>("
    "float, float, float, float, cudnnTensorStruct, float const*, "
    "cudnnTensorStruct, float const*, cudnnTensorStruct, float*, float "
    "const*, float*, float*, float const*, float const*, float)";
const char Add[] = "void at::native::vectorized_elementwise_kernel<4, "
                   "at::native::CUDAFunctor_add<float>, at::detail::Array<"
                   "char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
                   "at::detail::Array<char*, 3>)";
const char MaxPool[] =
    "void at::native::(anonymous namespace)::max_pool_forward_nchw<float, "
    "float>(int, float const*, long, long, long, int, int, int, int, int, "
    "int, int, int, int, int, float*, long*)";
const char MaxPoolGrad[] =
    "void at::native::(anonymous namespace)::max_pool_backward_nchw<float, "
    "float>(float const*, long const*, int, long, long, long, int, int, int, "
    "int, int, int, int, int, int, int, float*)";
const char AvgPool[] =
    "void at::native::(anonymous namespace)::adaptive_average_pool<float>("
    "float*, float*, int, int, int, int, long, long, long)";
const char AvgPoolGrad[] =
    "void at::native::(anonymous namespace)::adaptive_average_gradinput<"
    "float>(float*, float*, int, int, int, int)";
const char Gemm[] = "ampere_sgemm_32x32_sliced1x4_tn";
const char GemmGrad[] = "ampere_sgemm_64x32_sliced1x4_nn";
const char LogSoftmax[] =
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, "
    "float, float, at::native::(anonymous namespace)::"
    "LogSoftMaxForwardEpilogue>(float*, float const*, int)";
const char LossGrad[] =
    "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float, "
    "float, float, at::native::(anonymous namespace)::"
    "LogSoftMaxBackwardEpilogue>(float*, float const*, float const*, long)";
const char SgdMomentum[] =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<"
    "at::native::(anonymous namespace)::TensorListMetadata<3>, at::native::"
    "(anonymous namespace)::PointwiseOpScalarFunctor<float, 3, 3, 0>, "
    "std::multiplies<float>, double>(at::native::(anonymous namespace)::"
    "TensorListMetadata<3>, at::native::(anonymous namespace)::"
    "PointwiseOpScalarFunctor<float, 3, 3, 0>, std::multiplies<float>, "
    "double)";

/// The stage (0-3) of block \p I of \p N, in ResNet-50's 3:4:6:3.
unsigned stageOf(unsigned I, unsigned N) {
  unsigned Sixteenths = (I * 16 + 8) / N; // the block's middle, in 1/16ths
  return Sixteenths < 3 ? 0 : Sixteenths < 7 ? 1 : Sixteenths < 13 ? 2 : 3;
}

} // namespace

void dd::synth::buildCnn(ProgramBuilder &B, unsigned Layers) {
  const uint32_t Conv = B.shape({196, 2, 1}, {128, 1, 1}, 128, 65536);
  const uint32_t Bn = B.shape({256, 1, 1}, {512, 1, 1}, 46, 4096);
  const uint32_t Ew = B.shape({65535, 1, 1}, {128, 1, 1}, 26, 0);
  const uint32_t Small = B.shape({4, 64, 1}, {128, 1, 1}, 86, 8192);
  const uint32_t Lists = B.shape({320, 1, 1}, {512, 1, 1}, 40, 0);

  auto Convolution = [&](double Us) {
    B.kernelOp({"aten::conv2d", "aten::convolution", "aten::cudnn_convolution"},
               ConvFwd, Us, Conv);
  };
  auto BatchNorm = [&] {
    B.kernelOp({"aten::batch_norm", "aten::cudnn_batch_norm"}, BnFwd, 90, Bn);
  };
  auto ReluOp = [&] {
    B.kernelOp({"aten::relu_", "aten::clamp_min_"}, aten::Relu, 60, Ew);
  };
  auto ConvGrad = [&](double Us, bool Data) {
    B.backward("ConvolutionBackward0", [&] {
      B.op({"aten::convolution_backward"}, [&] {
        if (Data)
          B.launch(ConvDgrad, Us * 1.1, Conv);
        B.launch(ConvWgrad, Us * 1.2, Conv);
      });
    });
  };
  auto BatchNormGrad = [&] {
    B.backward("CudnnBatchNormBackward0", [&] {
      B.kernelOp({"aten::cudnn_batch_norm_backward"}, BnBwd, 150, Bn);
    });
  };
  auto ReluGradOp = [&] {
    B.backward("ReluBackward0", [&] {
      B.kernelOp({"aten::threshold_backward"}, aten::ReluGrad, 80, Ew);
    });
  };
  // Blocks opening a stage have a projection shortcut.
  auto Projects = [&](unsigned I) {
    return I == 0 || stageOf(I, Layers) != stageOf(I - 1, Layers);
  };

  B.dataLoader(900);
  B.inputCopy(128ull * 3 * 224 * 224 * 4);
  B.inputCopy(128ull * 8); // labels
  B.module("conv1", [&] { Convolution(620); });
  B.module("bn1", BatchNorm);
  B.module("relu", ReluOp);
  B.module("maxpool", [&] {
    B.kernelOp({"aten::max_pool2d", "aten::max_pool2d_with_indices"}, MaxPool,
               150, Ew);
  });
  for (unsigned I = 0; I != Layers; ++I) {
    unsigned Stage = stageOf(I, Layers);
    std::string Name =
        "layer" + std::to_string(Stage + 1) + "." + std::to_string(I);
    B.module(Name, [&] {
      Convolution(150);
      BatchNorm();
      ReluOp();
      Convolution(400);
      BatchNorm();
      ReluOp();
      Convolution(200);
      BatchNorm();
      if (Projects(I)) {
        B.module(Name + ".downsample", [&] {
          Convolution(220);
          BatchNorm();
        });
      }
      B.kernelOp({"aten::add_"}, Add, 70, Ew);
      ReluOp();
    });
  }
  B.module("avgpool", [&] {
    B.kernelOp({"aten::adaptive_avg_pool2d", "aten::_adaptive_avg_pool2d"},
               AvgPool, 45, Ew);
  });
  B.module("fc", [&] {
    B.kernelOp({"aten::linear", "aten::addmm"}, Gemm, 20, Small);
  });
  B.crossEntropy(LogSoftmax, 6, Small, aten::NllLoss, 5, Small);

  B.beginBackward(50, aten::NllLossGrad, 5, Small, LossGrad, 6, Small);
  B.backward("AddmmBackward0", [&] {
    B.kernelOp({"aten::mm"}, GemmGrad, 22, Small);
    B.kernelOp({"aten::mm"}, GemmGrad, 24, Small);
  });
  B.gradientsReady(2049ull * 1000 * 4);
  B.backward("MeanBackward1",
             [&] { B.kernelOp({"aten::div"}, AvgPoolGrad, 50, Ew); });
  for (unsigned I = Layers; I-- != 0;) {
    unsigned Stage = stageOf(I, Layers);
    ReluGradOp();
    if (Projects(I)) {
      BatchNormGrad();
      ConvGrad(220, true);
    }
    BatchNormGrad();
    ConvGrad(200, true);
    ReluGradOp();
    BatchNormGrad();
    ConvGrad(400, true);
    ReluGradOp();
    BatchNormGrad();
    ConvGrad(150, true);
    // Weights of a bottleneck block: 17 C^2 / 16 for its output width C
    // = 256 << stage, plus the projection.
    uint64_t C = 256ull << Stage;
    B.gradientsReady((17 * C * C / 16 + (Projects(I) ? C * C / 2 : 0)) * 4);
  }
  B.backward("MaxPool2DWithIndicesBackward0", [&] {
    B.kernelOp({"aten::max_pool2d_with_indices_backward"}, MaxPoolGrad, 260,
               Ew);
  });
  ReluGradOp();
  BatchNormGrad();
  ConvGrad(620, false); // the input needs no gradient
  B.gradientsReady(64ull * 3 * 49 * 4);
  B.endBackward();
  B.cpu(30);
  B.module("Optimizer.step#SGD.step", [&] {
    for (unsigned I = 0; I <= Layers; ++I) {
      B.kernelOp({"aten::_foreach_add_"}, SgdMomentum, 40, Lists);
      B.kernelOp({"aten::_foreach_add_"}, aten::SgdUpdate, 35, Lists);
    }
  });
  B.lossItem();
  B.cpu(120);
}
