//===- Precision.h - The element type a kernel computes in ------*- C++ -*-===//
//
// Which peak bounds a kernel depends on its precision: an FP32 GEMM on CUDA
// cores, a TF32 one on tensor cores, an already-BF16 model that mixed
// precision cannot speed up. Traces do not record it as a field, but the
// libraries spell it in their kernel names (cuBLAS "h884", "s1688",
// "bf16"; CUTLASS "half_t", "tfloat32_t"; ATen "FillFunctor<c10::Half>";
// Tensile "Cijk_..._HHS_") and PyTorch's profiler records each op's
// "Input type". Both readers are here; docs/CostModels.md lists the rules.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TRANSFORMS_PRECISION_H
#define DAYDREAM_TRANSFORMS_PRECISION_H

#include "daydream/IR/Types.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace dd {

/// The precision a kernel called \p Name computes in, or DType::Unknown
/// if its name does not say (Triton, most hand-written kernels).
DType dtypeOfKernelName(llvm::StringRef Name);

/// The precision of one of PyTorch's tensor type names ("float",
/// "c10::Half", "c10::BFloat16", "double", "c10::Float8_e4m3fn"), or
/// DType::Unknown for non-floating and non-tensor types ("long int",
/// "Scalar", "").
DType dtypeOfTypeName(llvm::StringRef Type);

/// The precision of each of an op's inputs, in order, read from its "Input
/// type" as written (`["float", "Scalar"]`): dtypeOfTypeName of each name.
void readInputTypes(llvm::StringRef InputTypesJson,
                    llvm::SmallVectorImpl<DType> &Out);

/// The precision of an op's first floating-point tensor input; Unknown if
/// none.
DType dtypeOfInputTypes(llvm::StringRef InputTypesJson);

/// Bytes of one element; 4 for Unknown (the FP32 a model is assumed to be
/// in when nothing says).
unsigned bytesPerElement(DType D);

/// Narrower than FP32: what mixed precision would convert to.
inline bool isReducedPrecision(DType D) {
  return D == DType::FP16 || D == DType::BF16 || D == DType::FP8 ||
         D == DType::INT8;
}

} // namespace dd

#endif // DAYDREAM_TRANSFORMS_PRECISION_H
