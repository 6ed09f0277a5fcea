//===- ParameterSizes.h - The model's parameter bytes, as recorded -*- C++
//-*-===//
//
// What the data-parallel passes (ddp-insert, p3, fsdp) need to know and a
// trace rarely says outright: how many bytes of parameters the model has.
// A trace recorded with record_shapes=True says it through autograd: every
// parameter's gradient goes through one torch::autograd::AccumulateGrad op
// per step, whose input is that gradient, the parameter's own shape and
// type (its "input-dims" and "input-types" notes, KinetoOpInputs.cpp). The
// sum over one step is the model's parameter bytes.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_PASSES_PARAMETERSIZES_H
#define DAYDREAM_PASSES_PARAMETERSIZES_H

#include "llvm/ADT/Optional.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace dd {

class Graph;

struct RecordedParameters {
  /// Bytes of all parameters, and how many there are.
  uint64_t Bytes = 0;
  uint64_t Count = 0;
};

/// The parameters of the step that records the most of them (steps cut
/// short by the trace's window record fewer), None if no AccumulateGrad op
/// has its input's shape.
llvm::Optional<RecordedParameters> recordedParameters(const Graph &G);

/// Bytes of one element of a profiler "Input type" ("float" 4, "c10::Half"
/// 2, ...), 0 if unknown.
unsigned elementBytes(llvm::StringRef Type);

} // namespace dd

#endif // DAYDREAM_PASSES_PARAMETERSIZES_H
