//===- OpWork.h - FLOPs and bytes of an op from its shapes -------*- C++
//-*-===//
//
// With record_shapes, PyTorch's profiler writes each op's input shapes and
// types ("Input Dims", "Input type"). For the ops that carry most of a
// model's arithmetic, the FLOPs follow from the shapes: a small table of
// GEMM, convolution and attention formulas (docs/CostModels.md). Every other
// op with tensor inputs is taken to stream its inputs and one output the
// size of its largest input through memory. The importer spreads an op's
// work over the kernels it launched, for the per-kernel roofline.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TRANSFORMS_OPWORK_H
#define DAYDREAM_TRANSFORMS_OPWORK_H

#include "llvm/ADT/Optional.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace dd {

struct OpWork {
  double Flops = 0;
  double Bytes = 0;
  /// From the table's formulas (GEMM, convolution, attention), for the
  /// op's compute-bound kernels; false for the memory rule.
  bool FromFormula = false;
};

/// The work of op \p Name by the table's formula, from its "Input Dims"
/// and "Input type" as written (\p DimsJson, \p TypesJson); None where the
/// table has no formula for it or the shapes it needs are missing.
llvm::Optional<OpWork> formulaWork(llvm::StringRef Name,
                                   llvm::StringRef DimsJson,
                                   llvm::StringRef TypesJson);

/// The memory rule: the bytes of the tensor inputs plus one output the
/// size of the largest; None without tensor inputs.
llvm::Optional<OpWork> memoryWork(llvm::StringRef DimsJson,
                                  llvm::StringRef TypesJson);

/// The number of elements of each of an op's arguments, in order, from its
/// "Input Dims" as written: 0 for an argument that is no tensor, the total
/// of its tensors' for a TensorList. False if \p DimsJson does not parse.
bool readInputElements(llvm::StringRef DimsJson,
                       llvm::SmallVectorImpl<double> &Out);

} // namespace dd

#endif // DAYDREAM_TRANSFORMS_OPWORK_H
