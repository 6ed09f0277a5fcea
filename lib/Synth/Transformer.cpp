//===- Transformer.cpp - A GPT-style decoder's training step --------------===//
//
// GPT-2 medium's shape (hidden 1024, 16 heads, sequence 1024, micro-batch
// 8: 8192 tokens a step) in fp16 autocast on an A100, with AdamW and
// gradient clipping: per block, layer norms, the QKV, output and MLP GEMMs,
// attention as two batched GEMMs around a softmax and dropout, GELU,
// residual adds; backward as the autograd engine runs it on its own thread;
// a fused AdamW kernel per block. Kernel names and launch shapes are those
// PyTorch 2.x and cuBLAS record; mean times are what those shapes take on
// that GPU (the GEMMs at about 200 TFLOP/s, the rest at about 1.5 TB/s).
//
//===----------------------------------------------------------------------===//

#include "AtenKernels.h"
#include "Program.h"

#include <string>

using namespace dd;
using namespace dd::synth;

namespace {

const char LayerNorm[] =
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<"
    "c10::Half, float>(int, float, c10::Half const*, c10::Half const*, "
    "c10::Half const*, float*, float*, c10::Half*)";
const char LayerNormGradInput[] =
    "void at::native::(anonymous namespace)::"
    "layer_norm_grad_input_kernel_vectorized<c10::Half, float>(c10::Half "
    "const*, c10::Half const*, float const*, float const*, c10::Half const*, "
    "c10::Half*, int)";
const char LayerNormGradWeight[] =
    "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel_"
    "32x32<c10::Half, float>(long, long, c10::Half const*, c10::Half const*, "
    "float const*, float const*, c10::Half*, c10::Half*)";
const char GemmTN[] =
    "ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_stages_64x3_tn";
const char GemmNN[] =
    "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn";
const char GemmNT[] =
    "ampere_fp16_s16816gemm_fp16_128x256_ldg8_f2f_stages_64x3_nt";
const char Softmax[] =
    "void (anonymous namespace)::softmax_warp_forward<c10::Half, c10::Half, "
    "float, 10, false, false>(c10::Half*, c10::Half const*, int, int, int, "
    "bool const*, int, bool)";
const char SoftmaxGrad[] =
    "void (anonymous namespace)::softmax_warp_backward<c10::Half, c10::Half, "
    "float, 10, false, false>(c10::Half*, c10::Half const*, c10::Half "
    "const*, int, int, int, bool const*)";
const char Dropout[] =
    "void at::native::(anonymous namespace)::fused_dropout_kernel_vec<"
    "c10::Half, float, unsigned int, 1, 4, bool>(at::cuda::detail::"
    "TensorInfo<c10::Half const, unsigned int>, at::cuda::detail::TensorInfo<"
    "c10::Half, unsigned int>, at::cuda::detail::TensorInfo<bool, unsigned "
    "int>, unsigned int, float, at::PhiloxCudaState)";
const char DropoutGrad[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::"
    "(anonymous namespace)::masked_scale_kernel<bool, c10::Half, float>("
    "at::Tensor&, at::Tensor const&, at::Tensor const&, float)::{lambda("
    "c10::Half, bool)#1}, at::detail::Array<char*, 3> >(int, at::native::"
    "(anonymous namespace)::masked_scale_kernel<bool, c10::Half, float>("
    "at::Tensor&, at::Tensor const&, at::Tensor const&, float)::{lambda("
    "c10::Half, bool)#1}, at::detail::Array<char*, 3>)";
const char Add[] = "void at::native::vectorized_elementwise_kernel<4, "
                   "at::native::CUDAFunctor_add<c10::Half>, at::detail::Array<"
                   "char*, 3> >(int, at::native::CUDAFunctor_add<c10::Half>, "
                   "at::detail::Array<char*, 3>)";
const char Gelu[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::"
    "GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{"
    "lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{"
    "lambda(c10::Half)#1}, at::detail::Array<char*, 2> >(int, at::native::"
    "GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{"
    "lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{"
    "lambda(c10::Half)#1}, at::detail::Array<char*, 2>)";
const char GeluGrad[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::"
    "GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::"
    "GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() "
    "const::{lambda(c10::Half, c10::Half)#1}, at::detail::Array<char*, 3> >("
    "int, at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, "
    "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::"
    "operator()() const::{lambda(c10::Half, c10::Half)#1}, at::detail::"
    "Array<char*, 3>)";
const char BiasGrad[] =
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::Half, "
    "at::native::func_wrapper_t<c10::Half, at::native::sum_functor<"
    "c10::Half, float, c10::Half>::operator()(at::TensorIterator&)::{lambda("
    "float, float)#1}>, unsigned int, c10::Half, 4> >(at::native::ReduceOp<"
    "c10::Half, at::native::func_wrapper_t<c10::Half, at::native::"
    "sum_functor<c10::Half, float, c10::Half>::operator()(at::"
    "TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::Half, "
    "4>)";
const char Embedding[] =
    "void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::Half, "
    "long, unsigned int, 2, 2, -2, true>(at::cuda::detail::TensorInfo<"
    "c10::Half, unsigned int>, at::cuda::detail::TensorInfo<c10::Half const, "
    "unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned int>, "
    "int, int, unsigned int, unsigned int, long)";
const char EmbeddingSort[] =
    "void at_cuda_detail::cub::DeviceRadixSortOnesweepKernel<at_cuda_detail::"
    "cub::DeviceRadixSortPolicy<long, long, int>::Policy800, false, long, "
    "long, int, int>(int*, int*, long*, long const*, long*, long const*, "
    "long*, long const*, int, int, int)";
const char EmbeddingGrad[] =
    "void at::native::(anonymous namespace)::embedding_backward_feature_"
    "kernel<c10::Half, float, long>(long const*, c10::Half const*, c10::Half*, "
    "int, long, int)";
const char LogSoftmax[] =
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, "
    "c10::Half, float, float, at::native::(anonymous namespace)::"
    "LogSoftMaxForwardEpilogue>(float*, c10::Half const*, int)";
const char LogSoftmaxGrad[] =
    "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, "
    "c10::Half, float, float, at::native::(anonymous namespace)::"
    "LogSoftMaxBackwardEpilogue>(c10::Half*, float const*, float const*, "
    "long)";
const char ForeachNorm[] =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<"
    "at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::"
    "(anonymous namespace)::LpNormFunctor<float, (at::native::(anonymous "
    "namespace)::NormType)1, float, float>, float*, int>(at::native::"
    "(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous "
    "namespace)::LpNormFunctor<float, (at::native::(anonymous namespace)::"
    "NormType)1, float, float>, float*, int)";
const char NormCleanup[] =
    "void at::native::(anonymous namespace)::lpnorm_cleanup<float, "
    "(at::native::(anonymous namespace)::NormType)1, float, float>(float "
    "const*, at::native::(anonymous namespace)::TensorListAddresses, int)";
const char ForeachMul[] =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<"
    "at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::"
    "(anonymous namespace)::BinaryOpScalarTensorFunctor<float, 1, 1, 0>, "
    "std::multiplies<float>, float*>(at::native::(anonymous namespace)::"
    "TensorListMetadata<1>, at::native::(anonymous namespace)::"
    "BinaryOpScalarTensorFunctor<float, 1, 1, 0>, std::multiplies<float>, "
    "float*)";
const char FusedAdamW[] =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<"
    "at::native::(anonymous namespace)::FusedOptimizerTensorListMetadata<4>, "
    "at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, "
    "(at::native::ADAM_MODE)1, false>, double*, double, double, double, "
    "double, double, bool, float*, float*>(at::native::(anonymous "
    "namespace)::FusedOptimizerTensorListMetadata<4>, at::native::(anonymous "
    "namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, "
    "false>, double*, double, double, double, double, double, bool, float*, "
    "float*)";

/// Gradient bytes (fp32) of one block: 12 H^2 weights and 13 H biases and
/// norm parameters, H = 1024; and of the token and position embeddings.
constexpr uint64_t BlockGradBytes = (12ull * 1024 * 1024 + 13ull * 1024) * 4;
constexpr uint64_t EmbeddingGradBytes = (50257ull + 1024) * 1024 * 4;
/// A block's activations (8192 tokens of H floats): what a tensor-parallel
/// all-reduce sums after the attention's and the MLP's row-parallel layers.
constexpr uint64_t ActivationBytes = 8192ull * 1024 * 4;

} // namespace

void dd::synth::buildTransformer(ProgramBuilder &B, unsigned Layers) {
  const uint32_t Gemm = B.shape({24, 64, 1}, {256, 1, 1}, 232, 73728);
  const uint32_t Bmm = B.shape({8, 8, 128}, {128, 1, 1}, 238, 81920);
  const uint32_t Rows = B.shape({8192, 1, 1}, {128, 1, 1}, 30, 0);
  const uint32_t Ew = B.shape({16384, 1, 1}, {128, 1, 1}, 26, 0);
  const uint32_t Wide = B.shape({65535, 1, 1}, {128, 1, 1}, 28, 0);
  const uint32_t Reduce = B.shape({128, 8, 1}, {32, 16, 1}, 40, 8192);
  const uint32_t Lists = B.shape({320, 1, 1}, {512, 1, 1}, 64, 0);
  auto Norm = [&] {
    B.kernelOp({"aten::layer_norm", "aten::native_layer_norm"}, LayerNorm, 30,
               Rows);
  };
  auto Linear = [&](double Us) {
    B.kernelOp({"aten::linear", "aten::addmm"}, GemmTN, Us, Gemm);
  };
  auto Drop = [&](double Us) {
    B.kernelOp({"aten::dropout", "aten::native_dropout"}, Dropout, Us, Ew);
  };
  auto Residual = [&] { B.kernelOp({"aten::add"}, Add, 25, Ew); };
  auto LinearGrad = [&](double Us) {
    B.backward("AddmmBackward0", [&] {
      B.kernelOp({"aten::mm"}, GemmNN, Us, Gemm);
      B.kernelOp({"aten::mm"}, GemmNT, Us * 1.05, Gemm);
      B.kernelOp({"aten::sum"}, BiasGrad, 20 + Us / 20, Reduce);
    });
  };
  auto NormGrad = [&] {
    B.backward("NativeLayerNormBackward0", [&] {
      B.op({"aten::native_layer_norm_backward"}, [&] {
        B.launch(LayerNormGradInput, 40, Rows);
        B.launch(LayerNormGradWeight, 30, Reduce);
      });
    });
  };
  auto DropGrad = [&](double Us) {
    B.backward("NativeDropoutBackward0", [&] {
      B.kernelOp({"aten::native_dropout_backward"}, DropoutGrad, Us, Ew);
    });
  };
  auto BmmGrad = [&] {
    B.backward("BmmBackward0", [&] {
      B.kernelOp({"aten::bmm"}, GemmNN, 110, Bmm);
      B.kernelOp({"aten::bmm"}, GemmNT, 115, Bmm);
    });
  };

  B.dataLoader(350);
  B.inputCopy(8ull * 1024 * 8); // token ids
  B.inputCopy(8ull * 1024 * 8); // labels
  B.module("model.embed", [&] {
    for (int I = 0; I != 2; ++I) // tokens, positions
      B.kernelOp({"aten::embedding", "aten::index_select"}, Embedding, 40, Ew);
    Residual();
    Drop(25);
  });
  for (unsigned L = 0; L != Layers; ++L) {
    std::string Name = "model.layers." + std::to_string(L);
    B.module(Name, [&] {
      Norm();
      B.module(Name + ".attn", [&] {
        Linear(260); // QKV
        B.kernelOp({"aten::matmul", "aten::bmm"}, GemmNN, 110, Bmm);
        B.kernelOp({"aten::softmax", "aten::_softmax"}, Softmax, 360, Wide);
        Drop(400);
        B.kernelOp({"aten::matmul", "aten::bmm"}, GemmNN, 110, Bmm);
        Linear(90); // output projection
        B.tensorParallelAllReduce(ActivationBytes);
        Drop(25);
      });
      Residual();
      Norm();
      B.module(Name + ".mlp", [&] {
        Linear(350);
        B.kernelOp({"aten::gelu"}, Gelu, 90, Wide);
        Linear(350);
        B.tensorParallelAllReduce(ActivationBytes);
        Drop(25);
      });
      Residual();
    });
  }
  B.module("model.norm", Norm);
  B.module("lm_head", [&] {
    B.kernelOp({"aten::linear", "aten::mm"}, GemmTN, 4200, Gemm);
  });
  B.crossEntropy(LogSoftmax, 1900, Rows, aten::NllLoss, 30, Reduce);

  B.beginBackward(60, aten::NllLossGrad, 40, Reduce, LogSoftmaxGrad, 2000,
                  Rows);
  B.backward("MmBackward0", [&] {
    B.kernelOp({"aten::mm"}, GemmNN, 4200, Gemm);
    B.kernelOp({"aten::mm"}, GemmNT, 4300, Gemm);
  });
  NormGrad();
  B.gradientsReady(2ull * 1024 * 4);
  for (unsigned L = Layers; L-- != 0;) {
    DropGrad(25);
    LinearGrad(350); // fc2
    B.backward("GeluBackward0", [&] {
      B.kernelOp({"aten::gelu_backward"}, GeluGrad, 120, Wide);
    });
    LinearGrad(350); // fc1
    NormGrad();
    DropGrad(25);
    LinearGrad(90); // output projection
    BmmGrad();
    DropGrad(400);
    B.backward("SoftmaxBackward0", [&] {
      B.kernelOp({"aten::_softmax_backward_data"}, SoftmaxGrad, 420, Wide);
    });
    BmmGrad();
    LinearGrad(260); // QKV
    NormGrad();
    B.gradientsReady(BlockGradBytes);
  }
  DropGrad(25);
  for (int I = 0; I != 2; ++I)
    B.backward("EmbeddingBackward0", [&] {
      B.op({"aten::embedding_backward", "aten::embedding_dense_backward"}, [&] {
        B.launch(EmbeddingSort, 35, Lists);
        B.launch(EmbeddingGrad, 80, Ew);
      });
    });
  B.gradientsReady(EmbeddingGradBytes);
  B.endBackward();

  // clip_grad_norm_ and AdamW on the main thread.
  B.cpu(40);
  for (unsigned L = 0; L <= Layers; ++L)
    B.kernelOp({"aten::_foreach_norm"}, ForeachNorm, 25, Lists);
  B.op({"aten::linalg_vector_norm"}, [&] { B.launch(NormCleanup, 8, Reduce); });
  for (unsigned L = 0; L <= Layers; ++L)
    B.kernelOp({"aten::_foreach_mul_"}, ForeachMul, 30, Lists);
  B.module("Optimizer.step#AdamW.step", [&] {
    for (unsigned L = 0; L <= Layers; ++L)
      B.kernelOp({"aten::_fused_adamw_"}, FusedAdamW, 180, Lists);
  });
  B.lossItem();
  B.cpu(150);
}
