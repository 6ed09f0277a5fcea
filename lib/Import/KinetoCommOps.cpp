//===- KinetoCommOps.cpp - Collective sizes from nccl:* ops' inputs -------===//
//
// Traces before 2024 record nothing of a collective on its kernel: its size
// is only in the inputs of the record_function range ProcessGroupNCCL opens
// around the call ("nccl:all_reduce", with "Input Dims": [[394241]] and
// "Input type": ["float"]). The decoder keeps the two arrays' text
// (KinetoOpInputs.cpp); this parses it, for these ops alone, into the bytes
// they add up to.
//
//===----------------------------------------------------------------------===//

#include "KinetoEvent.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"

using namespace dd::import;
using namespace dd::import::kineto;
using llvm::StringRef;

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

/// Skips spaces in \p S.
void skipSpace(StringRef &S) { S = S.ltrim(" \t\r\n"); }

/// Reads a JSON array as written off the front of \p S, calling \p Item on
/// \p S at each element, which reads the element off it and says whether
/// it was one. False if \p S does not start with such an array.
template <typename ItemFn> bool readList(StringRef &S, ItemFn Item) {
  skipSpace(S);
  if (!S.consume_front("["))
    return false;
  skipSpace(S);
  if (S.consume_front("]"))
    return true;
  for (;;) {
    skipSpace(S);
    if (!Item(S))
      return false;
    skipSpace(S);
    if (S.consume_front("]"))
      return true;
    if (!S.consume_front(","))
      return false;
  }
}

/// Elements of each input of "Input Dims" as written ([[394241], []]): the
/// product of its dimensions, UINT64_MAX for a non-tensor ([]). False if
/// the text is not an array of arrays of non-negative integers, or a tensor
/// is too large to be real.
bool elementCounts(StringRef S, llvm::SmallVectorImpl<uint64_t> &Out) {
  auto Input = [&Out](StringRef &S) {
    uint64_t N = 1;
    bool Any = false;
    auto Dim = [&](StringRef &S) {
      // Digits only, as shapes are written: no sign, fraction or exponent.
      size_t Len = S.find_first_not_of("0123456789");
      uint64_t D = 0;
      if (Len == 0 || S.substr(0, Len).getAsInteger(10, D) ||
          (D != 0 && N > UINT64_MAX / D / 16)) // not a real tensor
        return false;
      S = S.substr(Len);
      Any = true;
      N *= D;
      return true;
    };
    if (!readList(S, Dim))
      return false;
    Out.push_back(Any ? N : UINT64_MAX);
    return true;
  };
  return readList(S, Input) && S.trim().empty();
}

/// The names of "Input type" as written (["float", "Scalar"]); false if the
/// text is not an array of strings without escapes.
bool typeNames(StringRef S, llvm::SmallVectorImpl<StringRef> &Out) {
  auto Name = [&Out](StringRef &S) {
    if (!S.consume_front("\""))
      return false;
    size_t End = S.find_first_of("\"\\");
    if (End == StringRef::npos || S[End] != '"')
      return false;
    Out.push_back(S.substr(0, End));
    S = S.substr(End + 1);
    return true;
  };
  return readList(S, Name) && S.trim().empty();
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

uint64_t kineto::inputBytesOfText(StringRef Dims, StringRef Types) {
  llvm::SmallVector<uint64_t, 4> Elems;
  llvm::SmallVector<StringRef, 4> Names;
  if (!elementCounts(Dims, Elems) || !typeNames(Types, Names))
    return 0;
  return inputBytes(Elems, Names);
}
