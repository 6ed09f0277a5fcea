//===- KinetoCommOps.cpp - Collective sizes from nccl:* ops' inputs -------===//
//
// Traces before 2024 record nothing of a collective on its kernel: its size
// is only in the inputs of the record_function range ProcessGroupNCCL opens
// around the call ("nccl:all_reduce", with "Input Dims": [[394241]] and
// "Input type": ["float"]). The decoder skips CPU ops' args for speed, so
// for these ops alone it keeps the two arrays as raw JSON, and the mapper
// turns them into bytes here, once per op, with a small parser of its own.
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

error_code kineto::decodeNcclOpArgs(od::value &V, EventArgs &A) {
  od::object Obj;
  bool IsObject = false;
  if (error_code Err = readObject(V, Obj, IsObject); Err || !IsObject)
    return Err;
  return forEachField(Obj, [&A](StringRef Key, od::value &FV) -> error_code {
    bool IsDims = Key == "Input Dims";
    if (!IsDims && Key != "Input type")
      return SUCCESS;
    od::array Arr;
    bool Found = false;
    if (error_code Err = readArray(FV, Arr, Found); Err || !Found)
      return Err;
    std::string_view Raw;
    if (error_code Err = Arr.raw_json().get(Raw))
      return Err;
    (IsDims ? A.InputDimsV : A.InputTypeV) = StringRef(Raw.data(), Raw.size());
    A.Present |= IsDims ? EventArgs::InputDims : EventArgs::InputType;
    return SUCCESS;
  });
}

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

/// A cursor over the few JSON forms the two arrays take: arrays, integers
/// and strings without escapes. Anything else fails the parse.
class Cursor {
public:
  explicit Cursor(StringRef S) : S(S) {}

  bool eat(char C) {
    S = S.ltrim();
    if (S.empty() || S.front() != C)
      return false;
    S = S.drop_front();
    return true;
  }
  bool peek(char C) {
    S = S.ltrim();
    return !S.empty() && S.front() == C;
  }
  bool integer(uint64_t &Out) {
    S = S.ltrim();
    size_t N = S.find_first_not_of("0123456789");
    N = N == StringRef::npos ? S.size() : N;
    if (N == 0 || S.substr(0, N).getAsInteger(10, Out))
      return false;
    S = S.drop_front(N);
    return true;
  }
  bool string(StringRef &Out) {
    if (!eat('"'))
      return false;
    size_t End = S.find_first_of("\"\\");
    if (End == StringRef::npos || S[End] != '"')
      return false;
    Out = S.take_front(End);
    S = S.drop_front(End + 1);
    return true;
  }
  bool done() { return S.ltrim().empty(); }

  /// [item, item, ...], calling \p Item for each.
  template <typename Fn> bool list(Fn Item) {
    if (!eat('['))
      return false;
    if (eat(']'))
      return true;
    do {
      if (!Item())
        return false;
    } while (eat(','));
    return eat(']');
  }

private:
  StringRef S;
};

} // namespace

uint64_t kineto::inputBytes(StringRef DimsJson, StringRef TypesJson) {
  // Elements of each input; UINT64_MAX for a non-tensor ([]).
  llvm::SmallVector<uint64_t, 4> Elems;
  Cursor D(DimsJson);
  bool Ok = D.list([&] {
    uint64_t N = 1;
    bool Any = false;
    bool Shape = D.list([&] {
      uint64_t Dim = 0;
      if (!D.integer(Dim))
        return false;
      Any = true;
      if (Dim != 0 && N > UINT64_MAX / Dim / 16)
        return false; // too large to be a real tensor
      N *= Dim;
      return true;
    });
    Elems.push_back(Any ? N : UINT64_MAX);
    return Shape;
  });
  if (!Ok || !D.done())
    return 0;
  llvm::SmallVector<StringRef, 4> Types;
  Cursor T(TypesJson);
  Ok = T.list([&] {
    StringRef Ty;
    if (!T.string(Ty))
      return false;
    Types.push_back(Ty);
    return true;
  });
  if (!Ok || !T.done() || Types.size() != Elems.size())
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
