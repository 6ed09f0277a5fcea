//===- KernelClass.h - What kind of work a GPU task does --------*- C++ -*-===//
//
// Optimizations act on classes of kernels, not on names: mixed precision
// speeds up tensor-core-eligible GEMMs and convolutions by one factor and
// memory-bound kernels by another; fusion merges elementwise kernels; a move
// to another GPU scales compute-bound work by the FLOP ratio and
// memory-bound work by the bandwidth ratio. The class is read from the
// kernel's name (cuBLAS, cuDNN, CUTLASS, ATen, Triton, NCCL, and ROCm's
// Tensile, MIOpen, Composable Kernel and RCCL spellings),
// once per distinct name.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TRANSFORMS_KERNELCLASS_H
#define DAYDREAM_TRANSFORMS_KERNELCLASS_H

#include "daydream/IR/Types.h"

#include "llvm/ADT/Optional.h"
#include "llvm/ADT/StringRef.h"

#include <vector>

namespace dd {

class Graph;

enum class KernelClass : uint8_t {
  Gemm,          ///< matrix multiply (cuBLAS, CUTLASS, nvjet, Triton mm)
  Convolution,   ///< cuDNN / MIOpen convolutions, implicit GEMM included
  Elementwise,   ///< pointwise and copy-like kernels: activation, add, fill
  Normalization, ///< batch, layer, group, instance and RMS norm
  Reduction,     ///< softmax, sums, means, losses, pooling
  Optimizer,     ///< optimizer kernels (Adam, SGD, multi_tensor_apply)
  Communication, ///< NCCL / RCCL collectives and point-to-point
  Copy,          ///< memcpy and memset tasks
  Other,         ///< everything else, and CPU tasks
};
constexpr unsigned NumKernelClasses = unsigned(KernelClass::Other) + 1;

/// The class of a GPU kernel called \p Name.
KernelClass classifyKernelName(llvm::StringRef Name);

/// Compute-bound classes: tensor-core eligible (GEMM, convolution).
inline bool isComputeBound(KernelClass C) {
  return C == KernelClass::Gemm || C == KernelClass::Convolution;
}

/// Memory-bound classes: elementwise, normalization, reduction, optimizer.
inline bool isMemoryBound(KernelClass C) {
  return C == KernelClass::Elementwise || C == KernelClass::Normalization ||
         C == KernelClass::Reduction || C == KernelClass::Optimizer;
}

llvm::StringRef toString(KernelClass C);
llvm::Optional<KernelClass> parseKernelClass(llvm::StringRef S);

/// Classes of the tasks of one graph, computed once per distinct name:
/// kernels by name, collectives as Communication, memcpy and memset as
/// Copy, CPU tasks as Other.
class KernelClassifier {
public:
  explicit KernelClassifier(const Graph &G);
  KernelClass classOf(TaskId T);

private:
  const Graph &G;
  std::vector<uint8_t> ByName; ///< by StrId; 0xff: not classified yet
};

} // namespace dd

#endif // DAYDREAM_TRANSFORMS_KERNELCLASS_H
