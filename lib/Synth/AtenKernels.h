//===- AtenKernels.h - Kernel names several families launch -----*- C++ -*-===//
//
// ATen's kernels for ReLU and its gradient, SGD's update and the NLL loss
// and its gradient, in fp32, spelled as the profiler records them. Private
// to lib/Synth.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_SYNTH_ATENKERNELS_H
#define DAYDREAM_LIB_SYNTH_ATENKERNELS_H

namespace dd::synth::aten {

/// relu_ / relu: clamp_min by a scalar.
inline constexpr char Relu[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::"
    "(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, "
    "c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}"
    "::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}"
    ", at::detail::Array<char*, 2> >(int, at::native::(anonymous namespace)::"
    "launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
    "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{"
    "lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<"
    "char*, 2>)";

/// threshold_backward, ReLU's gradient.
inline constexpr char ReluGrad[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::"
    "(anonymous namespace)::threshold_kernel_impl<float>(at::"
    "TensorIteratorBase&, float, float)::{lambda(float, float)#1}, "
    "at::detail::Array<char*, 3> >(int, at::native::(anonymous namespace)::"
    "threshold_kernel_impl<float>(at::TensorIteratorBase&, float, float)::{"
    "lambda(float, float)#1}, at::detail::Array<char*, 3>)";

/// foreach add with alpha: SGD's parameter update.
inline constexpr char SgdUpdate[] =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<"
    "at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::"
    "(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, "
    "std::plus<float>, float>(at::native::(anonymous namespace)::"
    "TensorListMetadata<2>, at::native::(anonymous namespace)::"
    "BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float)";

/// nll_loss and its gradient (the loss reduced to a float).
inline constexpr char NllLoss[] =
    "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_"
    "kernel_2d<float, long>(float*, float*, float const*, long const*, float "
    "const*, bool, long, long, long, long)";
inline constexpr char NllLossGrad[] =
    "void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_"
    "kernel_2d<float, long>(float*, float const*, long const*, float const*, "
    "float const*, bool, int, int, long, long)";

} // namespace dd::synth::aten

#endif // DAYDREAM_LIB_SYNTH_ATENKERNELS_H
