//===- KinetoOpInputs.cpp - A CPU op's "Input Dims" and "Input type" ------===//
//
// With record_shapes, the profiler writes each op's tensor shapes and types
// in its args ("Input Dims": [[3, 224, 224], []], "Input type": ["float",
// "Scalar"]). The lowering keeps them, as written, on the op's cpu-op task
// (the notes input-dims and input-types), for the passes and cost models
// that read shapes; pre-2024 collectives' sizes are made of them too
// (KinetoCommOps.cpp). The decoder takes each array's text in one step
// (simdjson skips it by its structure) and parses nothing else of the args,
// so ops cost little more than a skipped object.
//
//===----------------------------------------------------------------------===//

#include "KinetoEvent.h"

using namespace dd::import;
using namespace dd::import::kineto;
using llvm::StringRef;
using simdjson::error_code;
using simdjson::SUCCESS;
namespace od = simdjson::ondemand;

/// The text of \p V if it is an array; \p Found false otherwise.
static error_code arrayText(od::value &V, StringRef &Out, bool &Found) {
  od::array A;
  if (error_code Err = readArray(V, A, Found); Err || !Found)
    return Err;
  std::string_view Raw;
  if (error_code Err = A.raw_json().get(Raw))
    return Err;
  Out = StringRef(Raw.data(), Raw.size()).rtrim(" \t\r\n");
  return SUCCESS;
}

error_code kineto::readOpInput(StringRef Key, od::value &V, EventArgs &A) {
  bool Dims = Key == "Input Dims";
  if (!Dims && Key != "Input type")
    return SUCCESS;
  bool Found = false;
  if (error_code Err = arrayText(V, Dims ? A.InputDimsV : A.InputTypesV, Found))
    return Err;
  if (Found)
    A.Present |= Dims ? EventArgs::InputDims : EventArgs::InputTypes;
  return SUCCESS;
}

void kineto::addCommBytes(EventArgs &A) {
  if (A.has(EventArgs::InputDims) && A.has(EventArgs::InputTypes)) {
    A.InputBytesV = inputBytesOfText(A.InputDimsV, A.InputTypesV);
    A.Present |= EventArgs::InputBytes;
  }
}

error_code kineto::decodeOpInputs(od::value &V, EventArgs &A, bool CommBytes) {
  od::object Obj;
  bool IsObject = false;
  if (error_code Err = readObject(V, Obj, IsObject); Err || !IsObject)
    return Err;
  if (error_code Err =
          forEachField(Obj, [&A](StringRef Key, od::value &FV) -> error_code {
            return readOpInput(Key, FV, A);
          }))
    return Err;
  if (CommBytes)
    addCommBytes(A);
  return SUCCESS;
}

std::string kineto::normalizeJson(StringRef Raw) {
  std::string Out;
  Out.reserve(Raw.size());
  bool InString = false;
  for (size_t I = 0; I != Raw.size(); ++I) {
    char C = Raw[I];
    if (InString) {
      Out += C;
      if (C == '\\' && I + 1 != Raw.size())
        Out += Raw[++I];
      else if (C == '"')
        InString = false;
      continue;
    }
    if (C == ' ' || C == '\t' || C == '\n' || C == '\r')
      continue;
    Out += C;
    if (C == '"')
      InString = true;
    else if (C == ',')
      Out += ' ';
  }
  return Out;
}
