//===- KernelClass.cpp - What kind of work a GPU task does ----------------===//
//
// Name patterns, checked in order: the first that matches decides. The
// order matters: cuDNN's "implicit_gemm" kernels are convolutions, a
// "gemm" inside a "conv" name is a convolution, "softmax" is a reduction
// even though it is also elementwise.
//
//===----------------------------------------------------------------------===//

#include "daydream/Transforms/KernelClass.h"
#include "daydream/IR/Graph.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace dd;
using llvm::StringRef;

namespace {
struct Pattern {
  StringRef Text;
  KernelClass Class;
};
} // namespace

static const Pattern Patterns[] = {
    // Collectives first: NCCL kernel names contain "reduce" and "copy".
    {"nccl", KernelClass::Communication},
    {"rccl", KernelClass::Communication},
    // Inductor's generated kernels say what they are in their prefix
    // (torch/_inductor/codegen/triton.py): the op names that follow
    // ("triton_poi_fused_convolution_0") are what was fused, not the kind.
    {"triton_poi", KernelClass::Elementwise},
    {"triton_red", KernelClass::Reduction},
    {"triton_per", KernelClass::Reduction},
    {"triton_tem", KernelClass::Gemm},
    {"triton_mm", KernelClass::Gemm},
    {"triton_bmm", KernelClass::Gemm},
    // Tensile's GEMMs (rocBLAS, hipBLASLt): "Cijk_Ailk_Bljk_HHS_BH_MT...".
    {"cijk_", KernelClass::Gemm},
    // Optimizers: fused Adam and foreach kernels are elementwise by shape
    // but the passes treat them as the optimizer step.
    {"adam", KernelClass::Optimizer},
    {"sgd", KernelClass::Optimizer},
    // Not "lamb": ATen's kernels carry "{lambda(float)#1}" in their names.
    {"lamb_", KernelClass::Optimizer},
    {"lambfunctor", KernelClass::Optimizer},
    {"multi_tensor_apply", KernelClass::Optimizer},
    {"multitensorapply", KernelClass::Optimizer},
    // Convolutions, before GEMMs: cuDNN names its implicit-GEMM kernels
    // "implicit_gemm" and CUTLASS/xmma convolutions "fprop", "dgrad", "wgrad".
    {"conv", KernelClass::Convolution},
    {"scudnn", KernelClass::Convolution},
    {"winograd", KernelClass::Convolution},
    {"implicit_gemm", KernelClass::Convolution},
    {"implicit_convolve", KernelClass::Convolution},
    {"fprop", KernelClass::Convolution},
    {"dgrad", KernelClass::Convolution},
    {"wgrad", KernelClass::Convolution},
    {"fft2d", KernelClass::Convolution},
    // MIOpen's implicit-GEMM convolutions (igemm_fwd_gtc_*, igemm_wrw_*).
    {"igemm_fwd", KernelClass::Convolution},
    {"igemm_bwd", KernelClass::Convolution},
    {"igemm_wrw", KernelClass::Convolution},
    // Normalization before reduction: "batch_norm_collect_statistics" is
    // a normalization kernel that reduces.
    {"batch_norm", KernelClass::Normalization},
    {"batchnorm", KernelClass::Normalization},
    {"bn_fw", KernelClass::Normalization},
    {"bn_bw", KernelClass::Normalization},
    {"layer_norm", KernelClass::Normalization},
    {"layernorm", KernelClass::Normalization},
    {"group_norm", KernelClass::Normalization},
    {"groupnorm", KernelClass::Normalization},
    {"instance_norm", KernelClass::Normalization},
    {"rms_norm", KernelClass::Normalization},
    {"rmsnorm", KernelClass::Normalization},
    // MIOpen's other kernels are convolutions, once its batch norms
    // ("MIOpenBatchNormFwdTrainSpatial") have matched above.
    {"miopen", KernelClass::Convolution},
    // GEMMs.
    {"gemm", KernelClass::Gemm},
    {"gemv", KernelClass::Gemm},
    {"cutlass", KernelClass::Gemm},
    {"cublas", KernelClass::Gemm},
    {"nvjet", KernelClass::Gemm},
    {"matmul", KernelClass::Gemm},
    {"_mma_", KernelClass::Gemm},
    {"xmma", KernelClass::Gemm},
    {"bmm", KernelClass::Gemm},
    {"flash", KernelClass::Gemm},
    {"fmha", KernelClass::Gemm},
    {"attention", KernelClass::Gemm},
    // Triton attention on ROCm (aotriton, the FlashAttention Triton port).
    {"attn_fwd", KernelClass::Gemm},
    {"attn_bwd", KernelClass::Gemm},
    // Reductions.
    {"softmax", KernelClass::Reduction},
    {"reduce", KernelClass::Reduction},
    {"reduction", KernelClass::Reduction},
    {"cross_entropy", KernelClass::Reduction},
    {"nll_loss", KernelClass::Reduction},
    {"pool", KernelClass::Reduction},
    {"argmax", KernelClass::Reduction},
    {"cub::", KernelClass::Reduction},
    {"scan", KernelClass::Reduction},
    {"sort", KernelClass::Reduction},
    // Elementwise.
    {"elementwise", KernelClass::Elementwise},
    {"pointwise", KernelClass::Elementwise},
    {"vectorized", KernelClass::Elementwise},
    {"unrolled", KernelClass::Elementwise},
    {"relu", KernelClass::Elementwise},
    {"gelu", KernelClass::Elementwise},
    {"silu", KernelClass::Elementwise},
    {"sigmoid", KernelClass::Elementwise},
    {"tanh", KernelClass::Elementwise},
    {"threshold", KernelClass::Elementwise},
    {"dropout", KernelClass::Elementwise},
    {"fill", KernelClass::Elementwise},
    {"copy", KernelClass::Elementwise},
    {"cat_", KernelClass::Elementwise},
    {"catarray", KernelClass::Elementwise},
    {"index", KernelClass::Elementwise},
    {"add_", KernelClass::Elementwise},
    {"mul_", KernelClass::Elementwise},
};

KernelClass dd::classifyKernelName(StringRef Name) {
  std::string Lower = Name.lower();
  for (const Pattern &P : Patterns)
    if (StringRef(Lower).contains(P.Text))
      return P.Class;
  return KernelClass::Other;
}

static const StringRef ClassNames[] = {
    "gemm",      "conv",          "elementwise", "norm", "reduction",
    "optimizer", "communication", "copy",        "other"};

StringRef dd::toString(KernelClass C) { return ClassNames[size_t(C)]; }

llvm::Optional<KernelClass> dd::parseKernelClass(StringRef S) {
  for (size_t I = 0; I != std::size(ClassNames); ++I)
    if (S == ClassNames[I])
      return KernelClass(I);
  return llvm::None;
}

KernelClassifier::KernelClassifier(const Graph &G)
    : G(G), ByName(G.strings().size(), 0xff) {}

KernelClass KernelClassifier::classOf(TaskId T) {
  const Task &Tk = G.task(T);
  switch (Tk.Kind) {
  case TaskKind::Collective:
    return KernelClass::Communication;
  case TaskKind::Memcpy:
  case TaskKind::Memset:
    return KernelClass::Copy;
  case TaskKind::Kernel:
    break;
  default:
    return KernelClass::Other;
  }
  if (Tk.Name == NoId)
    return KernelClass::Other;
  if (Tk.Name >= ByName.size()) // a name interned after construction
    ByName.resize(G.strings().size(), 0xff);
  uint8_t &C = ByName[Tk.Name];
  if (C == 0xff)
    C = uint8_t(classifyKernelName(G.str(Tk.Name)));
  return KernelClass(C);
}
