//===- Recommender.cpp - A DLRM training step -----------------------------===//
//
// DLRM's shape (batch 2048 a rank, 13 dense features, 8 embedding tables a
// rank of dimension 128, MLPs 512 wide, fp32 on an A100): embedding bags,
// the bottom MLP, the pairwise interaction as a batched GEMM, the top MLP
// and a binary cross-entropy loss. Layers are the MLPs' linear layers, a
// third of them (at least one) in the bottom MLP. The tables are model
// parallel: with several ranks the pooled embeddings are exchanged with an
// all-to-all (NCCL's send/recv kernel) in forward and their gradients in
// backward, while the MLPs are data parallel, their gradients all-reduced
// in DDP buckets. Sparse SGD updates each table, dense SGD the MLPs.
//
//===----------------------------------------------------------------------===//

#include "AtenKernels.h"
#include "Program.h"

#include <string>

using namespace dd;
using namespace dd::synth;

namespace {

const char EmbeddingBag[] =
    "void at::native::(anonymous namespace)::embedding_bag_kernel_sum_mean<"
    "float, long>(long const*, long const*, float const*, float*, long*, "
    "long, long, long, long, long, float const*, long, long)";
const char SegmentOffsets[] =
    "void at::native::(anonymous namespace)::krn_partials_per_segment<long>("
    "long*, long const*, long, long)";
const char GradWeightBags[] =
    "void at::native::(anonymous namespace)::compute_grad_weight_bags<float, "
    "long>(long const*, float const*, long const*, long const*, long const*, "
    "long, long, long, long, long*, float const*, long, long*, "
    "at::AccumulateType<float, true>::type*)";
const char SumAndScatter[] =
    "void at::native::(anonymous namespace)::sum_and_scatter<float, long>("
    "long const*, float*, long, long const*, long const*, at::AccumulateType<"
    "float, true>::type const*, long const*, long const*, long, long)";
const char SparseUpdate[] =
    "void at::native::(anonymous namespace)::indexing_backward_kernel<float, "
    "4>(long const*, long const*, float const*, float*, long, long, long, "
    "long, bool)";
const char Gemm[] = "ampere_sgemm_128x64_tn";
const char GemmNN[] = "ampere_sgemm_64x64_nn";
const char GemmNT[] = "ampere_sgemm_128x32_nt";
const char BiasGrad[] =
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
    "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, "
    "float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "
    "unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::"
    "func_wrapper_t<float, at::native::sum_functor<float, float, float>::"
    "operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned "
    "int, float, 4>)";
const char Cat[] =
    "void at::native::(anonymous namespace)::"
    "CatArrayBatchedCopy<float, unsigned int, 2, 128, 1>(float*, "
    "at::native::(anonymous namespace)::CatArrInputTensorMetadata"
    "<float, unsigned int, 128, 1>, at::native::(anonymous "
    "namespace)::TensorSizeStride<unsigned int, 4u>, int, "
    "unsigned int)";
const char Index[] =
    "void at::native::index_elementwise_kernel<128, 4, "
    "at::native::gpu_index_kernel<at::native::index_kernel_"
    "impl<at::native::OpaqueType<4> >(at::TensorIteratorBase&, "
    "c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, "
    "char const*, long)#1}>(at::TensorIteratorBase&, "
    "c10::ArrayRef<long>, c10::ArrayRef<long>, at::native::"
    "index_kernel_impl<at::native::OpaqueType<4> >(at::"
    "TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<"
    "long>)::{lambda(char*, char const*, long)#1} const&)::{"
    "lambda(int)#1}>(long, at::native::gpu_index_kernel<"
    "at::native::index_kernel_impl<at::native::OpaqueType<4> "
    ">(at::TensorIteratorBase&, c10::ArrayRef<long>, "
    "c10::ArrayRef<long>)::{lambda(char*, char const*, long)#1}"
    ">(at::TensorIteratorBase&, c10::ArrayRef<long>, "
    "c10::ArrayRef<long>, at::native::index_kernel_impl<"
    "at::native::OpaqueType<4> >(at::TensorIteratorBase&, "
    "c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, "
    "char const*, long)#1} const&)::{lambda(int)#1})";
const char IndexPut[] =
    "void at::native::(anonymous namespace)::indexing_backward_kernel<float, "
    "1>(long const*, long const*, float const*, float*, long, long, long, "
    "long, bool)";
const char Sigmoid[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::"
    "sigmoid_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()()"
    " const::{lambda()#3}::operator()() const::{lambda(float)#1}, "
    "at::detail::Array<char*, 2> >(int, at::native::sigmoid_kernel_cuda(at::"
    "TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#3}::"
    "operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)";
const char SigmoidGrad[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::"
    "sigmoid_backward_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::"
    "operator()() const::{lambda()#3}::operator()() const::{lambda(float, "
    "float)#1}, at::detail::Array<char*, 3> >(int, at::native::"
    "sigmoid_backward_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::"
    "operator()() const::{lambda()#3}::operator()() const::{lambda(float, "
    "float)#1}, at::detail::Array<char*, 3>)";
const char Bce[] =
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
    "at::native::MeanOps<float, float, float, float>, unsigned int, float, "
    "4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, "
    "float, float>, unsigned int, float, 4>)";
const char BceGrad[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::"
    "binary_cross_entropy_backward_out_cuda(at::Tensor const&, at::Tensor "
    "const&, at::Tensor const&, c10::optional<at::Tensor> const&, long, "
    "at::Tensor&)::{lambda()#1}::operator()() const::{lambda()#1}::operator()"
    "() const::{lambda(float, float, float)#1}, at::detail::Array<char*, 4> "
    ">(int, at::native::binary_cross_entropy_backward_out_cuda(at::Tensor "
    "const&, at::Tensor const&, at::Tensor const&, c10::optional<at::Tensor> "
    "const&, long, at::Tensor&)::{lambda()#1}::operator()() const::{lambda()"
    "#1}::operator()() const::{lambda(float, float, float)#1}, at::detail::"
    "Array<char*, 4>)";

constexpr unsigned Tables = 8;
constexpr uint64_t Batch = 2048, Dim = 128, Width = 512;

} // namespace

void dd::synth::buildRecommender(ProgramBuilder &B, unsigned Layers) {
  const unsigned Bottom = std::max(1u, Layers / 3);
  const uint32_t Mlp = B.shape({8, 16, 1}, {256, 1, 1}, 127, 16384);
  const uint32_t Ew = B.shape({2048, 1, 1}, {128, 1, 1}, 26, 0);
  const uint32_t Bags = B.shape({4096, 1, 1}, {32, 8, 1}, 40, 0);
  const uint32_t Reduce = B.shape({64, 1, 1}, {32, 16, 1}, 40, 4096);
  const uint32_t Lists = B.shape({64, 1, 1}, {512, 1, 1}, 40, 0);
  // Pooled embeddings of the global batch, exchanged among the ranks.
  const uint64_t ExchangeBytes = Batch * Tables * Dim * 4;

  auto Linear = [&](unsigned L) {
    std::string Name = (L < Bottom ? "bot_l." : "top_l.") +
                       std::to_string(2 * (L < Bottom ? L : L - Bottom));
    B.module(Name, [&] {
      B.kernelOp({"aten::linear", "aten::addmm"}, Gemm, 38, Mlp);
    });
    if (L + 1 == Layers)
      B.kernelOp({"aten::sigmoid"}, Sigmoid, 8, Ew);
    else
      B.kernelOp({"aten::relu"}, aten::Relu, 9, Ew);
  };
  auto LinearGrad = [&](unsigned L) {
    if (L + 1 == Layers)
      B.backward("SigmoidBackward0", [&] {
        B.kernelOp({"aten::sigmoid_backward"}, SigmoidGrad, 8, Ew);
      });
    else
      B.backward("ReluBackward0", [&] {
        B.kernelOp({"aten::threshold_backward"}, aten::ReluGrad, 10, Ew);
      });
    B.backward("AddmmBackward0", [&] {
      if (L != 0) // the dense input needs no gradient
        B.kernelOp({"aten::mm"}, GemmNN, 36, Mlp);
      B.kernelOp({"aten::mm"}, GemmNT, 40, Mlp);
      B.kernelOp({"aten::sum"}, BiasGrad, 9, Reduce);
    });
    B.gradientsReady((Width * Width + Width) * 4);
  };

  B.dataLoader(600);
  B.inputCopy(Batch * 13 * 4);          // dense features
  B.inputCopy(Batch * Tables * 20 * 8); // sparse indices
  B.inputCopy(Batch * Tables * 8);      // offsets
  B.inputCopy(Batch * 4);               // labels
  for (unsigned T = 0; T != Tables; ++T)
    B.module("emb_l." + std::to_string(T), [&] {
      B.kernelOp({"aten::embedding_bag", "aten::_embedding_bag"}, EmbeddingBag,
                 70, Bags);
    });
  if (B.ranks() > 1)
    B.allToAll(ExchangeBytes);
  for (unsigned L = 0; L != Bottom; ++L)
    Linear(L);
  B.module("interact_features", [&] {
    B.kernelOp({"aten::cat"}, Cat, 15, Ew);
    B.kernelOp({"aten::bmm"}, GemmNN, 30, Mlp);
    B.kernelOp({"aten::index"}, Index, 10, Ew);
    B.kernelOp({"aten::cat"}, Cat, 12, Ew);
  });
  for (unsigned L = Bottom; L != Layers; ++L)
    Linear(L);
  B.kernelOp({"aten::binary_cross_entropy"}, Bce, 12, Reduce);

  B.cpu(50);
  B.onThread(ThreadRole::Autograd);
  B.backward("BinaryCrossEntropyBackward0", [&] {
    B.kernelOp({"aten::binary_cross_entropy_backward"}, BceGrad, 9, Ew);
  });
  for (unsigned L = Layers; L-- != Bottom;)
    LinearGrad(L);
  B.backward("IndexBackward0",
             [&] { B.kernelOp({"aten::index_put_"}, IndexPut, 14, Ew); });
  B.backward("BmmBackward0", [&] {
    B.kernelOp({"aten::bmm"}, GemmNN, 28, Mlp);
    B.kernelOp({"aten::bmm"}, GemmNT, 28, Mlp);
  });
  for (unsigned L = Bottom; L-- != 0;)
    LinearGrad(L);
  if (B.ranks() > 1)
    B.allToAll(ExchangeBytes);
  for (unsigned T = Tables; T-- != 0;)
    B.backward("EmbeddingBagBackward0", [&] {
      B.op({"aten::_embedding_bag_backward", "aten::_embedding_bag_dense_"
                                             "backward"},
           [&] {
             B.launch(SegmentOffsets, 12, Ew);
             B.launch(GradWeightBags, 45, Bags);
             B.launch(SumAndScatter, 20, Ew);
           });
    });
  B.endBackward();
  B.cpu(30);
  B.module("Optimizer.step#SGD.step", [&] {
    for (unsigned L = 0; L != Layers; ++L)
      B.kernelOp({"aten::_foreach_add_"}, aten::SgdUpdate, 12, Lists);
    for (unsigned T = 0; T != Tables; ++T)
      B.kernelOp({"aten::index_add_"}, SparseUpdate, 25, Bags);
  });
  B.lossItem();
  B.cpu(120);
}
