//===- Precision.cpp - The element type a kernel computes in --------------===//
//
// A kernel name may spell several types: a mixed-precision GEMM
// "f16f16_f16f32_f32" takes FP16 inputs and accumulates in FP32, an ATen
// reduction "ReduceOp<c10::Half, ..., float>" reads halves and sums in
// floats. What bounds the kernel is the narrowest type it moves and
// multiplies, so the narrowest spelled type wins: FP8 over BF16 over FP16
// over TF32 over INT8 over FP64 over FP32.
//
//===----------------------------------------------------------------------===//

#include "daydream/Transforms/Precision.h"

#include "llvm/ADT/StringExtras.h"

using namespace dd;
using llvm::StringRef;

namespace {

struct Spelling {
  StringRef Text; ///< lower case; matched as a substring
  DType Type;
};

/// In the order of the rule above. Sources: cuBLAS and cuDNN kernel names
/// in Nsight and Kineto traces (volta_h884gemm_*, ampere_fp16_s16816gemm_*,
/// sm90_xmma_gemm_bf16bf16_bf16f32_*), CUTLASS's numeric types
/// (cutlass/numeric_types.h: half_t, bfloat16_t, tfloat32_t, float_e4m3_t,
/// float_e5m2_t), c10's ScalarType names and CUDA's __half/__nv_bfloat16.
const Spelling Explicit[] = {
    {"e4m3", DType::FP8},       {"e5m2", DType::FP8},
    {"fp8", DType::FP8},        {"float8", DType::FP8},
    {"bf16", DType::BF16},      {"bfloat16", DType::BF16},
    {"fp16", DType::FP16},      {"f16", DType::FP16},
    {"c10::half", DType::FP16}, {"__half", DType::FP16},
    {"half_t", DType::FP16},    {"hgemm", DType::FP16},
    {"tf32", DType::TF32},      {"tfloat32", DType::TF32},
    {"int8", DType::INT8},      {"i8i8", DType::INT8},
    {"imma", DType::INT8},      {"dgemm", DType::FP64},
    {"double", DType::FP64},
};

/// cuBLAS/CUTLASS tensor-core instruction shapes: the letter is the
/// accumulator ("h" half, "s" single, "i" integer), the digits the MMA
/// shape. "h" shapes take FP16 inputs. An "s" shape without a type token:
/// Volta's m8n8k4 (884) and Turing's m16n8k8 (1688) take FP16, Ampere and
/// later run FP32 data through m16n8k8 as TF32; m16n8k16 (16816) is
/// FP16 unless "bf16" says otherwise (matched above).
DType fromMmaShape(StringRef L) {
  if (L.contains("h884") || L.contains("h1688") || L.contains("h16816"))
    return DType::FP16;
  if (L.contains("i8816") || L.contains("i16832"))
    return DType::INT8;
  if (L.contains("s884") || L.contains("s16816"))
    return DType::FP16;
  if (L.contains("s1688")) {
    bool Turing = L.contains("turing") || L.contains("sm75");
    return Turing ? DType::FP16 : DType::TF32;
  }
  return DType::Unknown;
}

/// Tensile (rocBLAS, hipBLASLt) names its kernels
/// "Cijk_<A index>_<B index>_<types>_...": the types field starts with the
/// data type, one letter (S single, D double, H half, B bfloat16, X
/// xfloat32) or "F8"/"B8"/"I8" (Tensile's DataType.py). "SB" is single with
/// beta, "HHS" half in, half out, single compute.
DType fromTensile(StringRef L) {
  if (!L.startswith("cijk_"))
    return DType::Unknown;
  llvm::SmallVector<StringRef, 4> Fields;
  L.split(Fields, '_', /*MaxSplit=*/4);
  if (Fields.size() < 4)
    return DType::Unknown;
  StringRef T = Fields[3];
  if (T.startswith("f8") || T.startswith("b8"))
    return DType::FP8;
  if (T.startswith("i8") || T.startswith("4xi8"))
    return DType::INT8;
  switch (T.empty() ? 0 : T[0]) {
  case 's':
    return DType::FP32;
  case 'd':
    return DType::FP64;
  case 'h':
    return DType::FP16;
  case 'b':
    return DType::BF16;
  case 'x':
    return DType::TF32;
  default:
    return DType::Unknown;
  }
}

/// Plain FP32 spellings, checked last: "float" is also the accumulator of
/// half kernels. cuBLAS's and cuDNN's "s" prefixes (volta_sgemm,
/// volta_scudnn, implicit_convolve_sgemm) mean single precision.
bool spellsFp32(StringRef L) {
  return L.contains("sgemm") || L.contains("scudnn") || L.contains("sgemv") ||
         L.contains("float") || L.contains("fp32") || L.contains("f32");
}

} // namespace

DType dd::dtypeOfKernelName(StringRef Name) {
  std::string Lower = Name.lower();
  StringRef L(Lower);
  if (DType T = fromTensile(L); T != DType::Unknown)
    return T;
  for (const Spelling &S : Explicit)
    if (L.contains(S.Text))
      return S.Type;
  if (DType T = fromMmaShape(L); T != DType::Unknown)
    return T;
  return spellsFp32(L) ? DType::FP32 : DType::Unknown;
}

DType dd::dtypeOfTypeName(StringRef Type) {
  StringRef T = Type.trim();
  if (T == "float")
    return DType::FP32;
  if (T == "double")
    return DType::FP64;
  if (T == "c10::Half")
    return DType::FP16;
  if (T == "c10::BFloat16")
    return DType::BF16;
  if (T.startswith("c10::Float8"))
    return DType::FP8;
  return DType::Unknown;
}

void dd::readInputTypes(StringRef Json, llvm::SmallVectorImpl<DType> &Out) {
  // A flat list of quoted names; no escapes occur in type names.
  for (size_t Pos = Json.find('"'); Pos != StringRef::npos;) {
    size_t End = Json.find('"', Pos + 1);
    if (End == StringRef::npos)
      break;
    Out.push_back(dtypeOfTypeName(Json.slice(Pos + 1, End)));
    Pos = Json.find('"', End + 1);
  }
}

DType dd::dtypeOfInputTypes(StringRef Json) {
  llvm::SmallVector<DType, 8> Types;
  readInputTypes(Json, Types);
  for (DType T : Types)
    if (T != DType::Unknown)
      return T;
  return DType::Unknown;
}

unsigned dd::bytesPerElement(DType D) {
  switch (D) {
  case DType::FP64:
    return 8;
  case DType::FP16:
  case DType::BF16:
    return 2;
  case DType::FP8:
  case DType::INT8:
    return 1;
  default:
    return 4;
  }
}
