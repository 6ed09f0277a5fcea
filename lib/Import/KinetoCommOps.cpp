//===- KinetoCommOps.cpp - Collective sizes from nccl:* ops' inputs -------===//
//
// Traces before 2024 record nothing of a collective on its kernel: its size
// is only in the inputs of the record_function range ProcessGroupNCCL opens
// around the call ("nccl:all_reduce", with "Input Dims": [[394241]] and
// "Input type": ["float"]). The decoder skips CPU ops' args for speed, so
// for these ops alone it reads the two arrays here, with simdjson like every
// other field, and keeps only the bytes they add up to.
//
//===----------------------------------------------------------------------===//

#include "KinetoEvent.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"

using namespace dd::import;
using namespace dd::import::kineto;
using llvm::StringRef;
using simdjson::error_code;
using simdjson::SUCCESS;
namespace od = simdjson::ondemand;

namespace {

/// Bytes of one element of an "Input type": the C++ names the profiler
/// writes (caffe2 TypeMeta) and, for good measure, c10's ScalarType names.
uint64_t elementBytes(StringRef Type) {
  return llvm::StringSwitch<uint64_t>(Type)
      .Cases("double", "long int", "long", "int64_t", 8)
      .Cases("c10::complex<float>", "Double", "Long", 8)
      .Cases("float", "int", "unsigned int", "Float", "Int", 4)
      .Cases("c10::Half", "c10::BFloat16", "short int", "short", 2)
      .Cases("Half", "BFloat16", "Short", 2)
      .Cases("unsigned char", "signed char", "bool", "char", 1)
      .Cases("c10::Float8_e4m3fn", "c10::Float8_e5m2", "Byte", "Char", "Bool",
             1)
      .Case("c10::complex<double>", 16)
      .Default(0);
}

/// Elements of each input of "Input Dims" ([[394241], []]): the product of
/// its dimensions, UINT64_MAX for a non-tensor ([]). \p Ok false if the
/// value is not an array of arrays of non-negative integers, or a tensor is
/// too large to be real; the rest of the value is still read past.
error_code readElementCounts(od::value &V, llvm::SmallVectorImpl<uint64_t> &Out,
                             bool &Ok) {
  od::array Inputs;
  if (error_code Err = readArray(V, Inputs, Ok); Err || !Ok)
    return Err;
  for (auto InputOr : Inputs) {
    od::value Input;
    if (error_code Err = InputOr.get(Input))
      return Err;
    od::array Dims;
    bool IsArray = false;
    if (error_code Err = readArray(Input, Dims, IsArray))
      return Err;
    if (!IsArray) {
      Ok = false;
      continue;
    }
    uint64_t N = 1;
    bool Any = false;
    for (auto DimOr : Dims) {
      od::value Dim;
      if (error_code Err = DimOr.get(Dim))
        return Err;
      // Digits only, as shapes are written: no sign, fraction or exponent.
      StringRef Tok = StringRef(Dim.raw_json_token()).rtrim();
      uint64_t D = 0;
      if (Tok.empty() ||
          Tok.find_first_not_of("0123456789") != StringRef::npos ||
          Tok.getAsInteger(10, D) ||
          (D != 0 && N > UINT64_MAX / D / 16)) { // not a real tensor
        Ok = false;
        continue;
      }
      Any = true;
      N *= D;
    }
    Out.push_back(Any ? N : UINT64_MAX);
  }
  return SUCCESS;
}

/// The names of "Input type" (["float", "Scalar"]); \p Ok false if the
/// value is not an array of strings.
error_code readTypeNames(od::value &V, llvm::SmallVectorImpl<StringRef> &Out,
                         bool &Ok) {
  od::array Types;
  if (error_code Err = readArray(V, Types, Ok); Err || !Ok)
    return Err;
  for (auto TypeOr : Types) {
    od::value Type;
    if (error_code Err = TypeOr.get(Type))
      return Err;
    StringRef Name;
    bool IsString = false;
    if (error_code Err = readString(Type, Name, IsString))
      return Err;
    if (!IsString) {
      Ok = false;
      continue;
    }
    Out.push_back(Name);
  }
  return SUCCESS;
}

} // namespace

uint64_t kineto::inputBytes(llvm::ArrayRef<uint64_t> Elems,
                            llvm::ArrayRef<StringRef> Types) {
  if (Types.size() != Elems.size())
    return 0;
  uint64_t Bytes = 0;
  bool AnyTensor = false;
  for (size_t I = 0; I != Elems.size(); ++I) {
    if (Elems[I] == UINT64_MAX)
      continue;
    uint64_t Size = elementBytes(Types[I]);
    if (Size == 0)
      return 0;
    AnyTensor = true;
    Bytes += Elems[I] * Size;
  }
  return AnyTensor ? Bytes : 0;
}

error_code kineto::decodeNcclOpArgs(od::value &V, EventArgs &A) {
  od::object Obj;
  bool IsObject = false;
  if (error_code Err = readObject(V, Obj, IsObject); Err || !IsObject)
    return Err;
  llvm::SmallVector<uint64_t, 4> Elems;
  llvm::SmallVector<StringRef, 4> Types;
  bool DimsOk = false, TypesOk = false;
  if (error_code Err =
          forEachField(Obj, [&](StringRef Key, od::value &FV) -> error_code {
            if (Key == "Input Dims") {
              Elems.clear();
              return readElementCounts(FV, Elems, DimsOk);
            }
            if (Key == "Input type") {
              Types.clear();
              return readTypeNames(FV, Types, TypesOk);
            }
            return SUCCESS;
          }))
    return Err;
  if (DimsOk && TypesOk) {
    A.InputBytesV = inputBytes(Elems, Types);
    A.Present |= EventArgs::InputBytes;
  }
  return SUCCESS;
}
