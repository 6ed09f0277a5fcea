//===- OpWork.cpp - FLOPs and bytes of an op from its shapes --------------===//
//
// FLOPs count a multiply-add as two. Formulas, with element size e from
// each input's type (4 where unknown):
//   mm [M,K] x [K,N], addmm (bias, [M,K], [K,N])    2MKN
//   bmm [B,M,K] x [B,K,N], baddbmm                  2BMKN
//   matmul: the broadcast batch of both operands   2 batch M K N
//   linear ([..., K], [N, K], bias)                2 M K N, M = input / K
//   convolution ([N, C, S...], [K, C/g, R...])      2 N K (C/g) R S_out
//     The profiler does not write stride and padding as shapes, so the
//     output's spatial size is taken as the input's (stride 1, "same"
//     padding): strided convolutions are overcounted by the stride's
//     square. Backward ops (grad_output, input and weight, the first two
//     in either order) know the output and count input and weight
//     gradients: twice the forward FLOPs.
//   scaled dot-product attention (q [B,H,L,D], k [B,H,S,D], v)  4 B H L S D
// Bytes: the inputs read plus the output written (formula ops), or the
// inputs plus one output the size of the largest input (the memory rule).
//
//===----------------------------------------------------------------------===//

#include "daydream/Transforms/OpWork.h"
#include "daydream/Transforms/Precision.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>

using namespace dd;
using llvm::StringRef;

namespace {

/// One argument: a tensor's dims, or (a TensorList) the total of its
/// tensors' elements with no dims.
struct Arg {
  llvm::SmallVector<double, 4> Dims;
  double Numel = 0;
  bool IsTensor = false;
  unsigned ElementBytes = 4;
};

/// Reads "[[3, 224], [], [[2, 2], [2]]]": the outer list's elements.
bool parseDims(StringRef S, llvm::SmallVectorImpl<Arg> &Out) {
  S = S.trim();
  if (!S.consume_front("[") || !S.consume_back("]"))
    return false;
  size_t I = 0;
  auto Skip = [&] {
    while (I < S.size() && (S[I] == ' ' || S[I] == ','))
      ++I;
  };
  while (true) {
    Skip();
    if (I >= S.size())
      return true;
    if (S[I] != '[')
      return false;
    // One argument: count depth; numbers at depth 1 are dims, deeper ones
    // are a list of tensors.
    Arg A;
    unsigned Depth = 0, MaxDepth = 0;
    double Inner = 1;
    bool InnerHasDims = false;
    do {
      char C = S[I];
      if (C == '[') {
        ++Depth;
        MaxDepth = std::max(MaxDepth, Depth);
        if (Depth == 2) {
          Inner = 1;
          InnerHasDims = false;
        }
        ++I;
      } else if (C == ']') {
        if (Depth == 2 && InnerHasDims)
          A.Numel += Inner;
        --Depth;
        ++I;
      } else if (C >= '0' && C <= '9') {
        size_t J = I;
        while (J < S.size() && S[J] >= '0' && S[J] <= '9')
          ++J;
        double V = 0;
        for (size_t K = I; K != J; ++K)
          V = V * 10 + (S[K] - '0');
        if (Depth == 1)
          A.Dims.push_back(V);
        else {
          Inner *= V;
          InnerHasDims = true;
        }
        I = J;
      } else if (C == ' ' || C == ',' || C == '-') {
        ++I;
      } else {
        return false;
      }
    } while (Depth != 0 && I < S.size());
    if (Depth != 0)
      return false;
    if (MaxDepth == 1 && !A.Dims.empty()) {
      A.IsTensor = true;
      A.Numel = 1;
      for (double D : A.Dims)
        A.Numel *= D;
    } else if (MaxDepth > 1 && A.Numel > 0) {
      A.IsTensor = true;
    }
    Out.push_back(A);
  }
}

/// The element size of each argument, from "Input type" (4 where unknown).
void parseTypes(StringRef S, llvm::SmallVectorImpl<Arg> &Args) {
  llvm::SmallVector<DType, 8> Types;
  readInputTypes(S, Types);
  for (size_t I = 0; I != std::min(Types.size(), Args.size()); ++I)
    Args[I].ElementBytes = bytesPerElement(Types[I]);
}

double bytesOf(const Arg &A) { return A.Numel * A.ElementBytes; }

double prod(llvm::ArrayRef<double> D) {
  double P = 1;
  for (double V : D)
    P *= V;
  return P;
}

enum class Formula {
  None,
  Mm,
  Addmm,
  Bmm,
  Baddbmm,
  Matmul,
  Linear,
  Conv,
  ConvBackward,
  Attention
};

Formula formulaOf(StringRef Name) {
  return llvm::StringSwitch<Formula>(Name)
      .Case("aten::mm", Formula::Mm)
      .Case("aten::addmm", Formula::Addmm)
      .Case("aten::bmm", Formula::Bmm)
      .Case("aten::baddbmm", Formula::Baddbmm)
      .Case("aten::matmul", Formula::Matmul)
      .Case("aten::linear", Formula::Linear)
      .Cases("aten::conv1d", "aten::conv2d", "aten::conv3d", Formula::Conv)
      .Cases("aten::convolution", "aten::_convolution", Formula::Conv)
      .Cases("aten::cudnn_convolution", "aten::miopen_convolution",
             Formula::Conv)
      .Cases("aten::convolution_backward", "aten::cudnn_convolution_backward",
             Formula::ConvBackward)
      .Cases("aten::scaled_dot_product_attention",
             "aten::_scaled_dot_product_flash_attention",
             "aten::_scaled_dot_product_efficient_attention",
             "aten::_scaled_dot_product_cudnn_attention", Formula::Attention)
      .Default(Formula::None);
}

bool tensor(const llvm::SmallVectorImpl<Arg> &A, size_t I, size_t MinRank) {
  return I < A.size() && A[I].IsTensor && A[I].Dims.size() >= MinRank;
}

/// 2 M K N (times Batch) with bytes of the inputs and the M x N output.
OpWork gemm(double Batch, double M, double K, double N, double InBytes,
            unsigned E) {
  OpWork W;
  W.Flops = 2 * Batch * M * K * N;
  W.Bytes = InBytes + Batch * M * N * E;
  W.FromFormula = true;
  return W;
}

llvm::Optional<OpWork> workOf(Formula F, const llvm::SmallVectorImpl<Arg> &A) {
  double In = 0;
  for (const Arg &X : A)
    if (X.IsTensor)
      In += bytesOf(X);
  switch (F) {
  case Formula::Mm:
    if (tensor(A, 0, 2) && tensor(A, 1, 2))
      return gemm(1, A[0].Dims[0], A[0].Dims[1], A[1].Dims[1], In,
                  A[0].ElementBytes);
    break;
  case Formula::Addmm:
    if (tensor(A, 1, 2) && tensor(A, 2, 2))
      return gemm(1, A[1].Dims[0], A[1].Dims[1], A[2].Dims[1], In,
                  A[1].ElementBytes);
    break;
  case Formula::Bmm:
    if (tensor(A, 0, 3) && tensor(A, 1, 3))
      return gemm(A[0].Dims[0], A[0].Dims[1], A[0].Dims[2], A[1].Dims[2], In,
                  A[0].ElementBytes);
    break;
  case Formula::Baddbmm:
    if (tensor(A, 1, 3) && tensor(A, 2, 3))
      return gemm(A[1].Dims[0], A[1].Dims[1], A[1].Dims[2], A[2].Dims[2], In,
                  A[1].ElementBytes);
    break;
  case Formula::Matmul:
    if (tensor(A, 0, 1) && tensor(A, 1, 1)) {
      llvm::ArrayRef<double> X = A[0].Dims, Y = A[1].Dims;
      double M = X.size() >= 2 ? X[X.size() - 2] : 1, K = X.back();
      double N = Y.size() >= 2 ? Y.back() : 1;
      double BX = X.size() > 2 ? prod(X.drop_back(2)) : 1;
      double BY = Y.size() > 2 ? prod(Y.drop_back(2)) : 1;
      return gemm(std::max(BX, BY), M, K, N, In, A[0].ElementBytes);
    }
    break;
  case Formula::Linear:
    if (tensor(A, 0, 1) && tensor(A, 1, 2)) {
      double K = A[0].Dims.back();
      double M = K > 0 ? A[0].Numel / K : 0;
      return gemm(1, M, K, A[1].Dims[0], In, A[0].ElementBytes);
    }
    break;
  case Formula::Conv:
    if (tensor(A, 0, 3) && tensor(A, 1, 3) &&
        A[0].Dims.size() == A[1].Dims.size()) {
      llvm::ArrayRef<double> X = A[0].Dims, Wt = A[1].Dims;
      double Spatial = prod(X.drop_front(2)); // stride 1 assumed
      double Out = X[0] * Wt[0] * Spatial;
      OpWork W;
      W.Flops = 2 * Out * prod(Wt.drop_front(1));
      W.Bytes = In + Out * A[0].ElementBytes;
      W.FromFormula = true;
      return W;
    }
    break;
  case Formula::ConvBackward:
    // Weight [K, C/g, R...] third; grad_output [N, K, So...] and input
    // [N, C, S...] first and second, in either order (aten::
    // convolution_backward puts grad_output first, the older
    // cudnn_convolution_backward the input): grad_output is the one with K
    // channels, the smaller where both have (a stride shrinks it).
    if (tensor(A, 0, 3) && tensor(A, 1, 3) && tensor(A, 2, 3) &&
        A[0].Dims.size() == A[2].Dims.size() &&
        A[1].Dims.size() == A[2].Dims.size()) {
      llvm::ArrayRef<double> Wt = A[2].Dims;
      bool First = A[0].Dims[1] == Wt[0], Second = A[1].Dims[1] == Wt[0];
      const Arg &Grad = First && Second
                            ? (A[0].Numel <= A[1].Numel ? A[0] : A[1])
                        : Second ? A[1]
                                 : A[0];
      OpWork W;
      W.Flops = 2 * 2 * Grad.Numel * prod(Wt.drop_front(1));
      // Reads all three, writes the input's and weight's gradients.
      W.Bytes = In + bytesOf(A[1]) + bytesOf(A[2]);
      W.FromFormula = true;
      return W;
    }
    break;
  case Formula::Attention:
    if (tensor(A, 0, 4) && tensor(A, 1, 4)) {
      llvm::ArrayRef<double> Q = A[0].Dims, K = A[1].Dims;
      OpWork W;
      W.Flops = 4 * Q[0] * Q[1] * Q[2] * K[2] * Q[3];
      W.Bytes = In + bytesOf(A[0]);
      W.FromFormula = true;
      return W;
    }
    break;
  case Formula::None:
    break;
  }
  return llvm::None;
}

} // namespace

static bool readArgs(StringRef DimsJson, StringRef TypesJson,
                     llvm::SmallVectorImpl<Arg> &Args) {
  if (!parseDims(DimsJson, Args))
    return false;
  parseTypes(TypesJson, Args);
  return true;
}

llvm::Optional<OpWork> dd::formulaWork(StringRef Name, StringRef DimsJson,
                                       StringRef TypesJson) {
  Formula F = formulaOf(Name);
  llvm::SmallVector<Arg, 8> Args;
  if (F == Formula::None || !readArgs(DimsJson, TypesJson, Args))
    return llvm::None;
  return workOf(F, Args);
}

llvm::Optional<OpWork> dd::memoryWork(StringRef DimsJson, StringRef TypesJson) {
  llvm::SmallVector<Arg, 8> Args;
  if (!readArgs(DimsJson, TypesJson, Args))
    return llvm::None;
  OpWork W;
  double Largest = 0;
  for (const Arg &A : Args)
    if (A.IsTensor) {
      W.Bytes += bytesOf(A);
      Largest = std::max(Largest, bytesOf(A));
    }
  if (!(W.Bytes > 0))
    return llvm::None;
  W.Bytes += Largest;
  return W;
}

bool dd::readInputElements(StringRef DimsJson,
                           llvm::SmallVectorImpl<double> &Out) {
  llvm::SmallVector<Arg, 8> Args;
  if (!parseDims(DimsJson, Args))
    return false;
  for (const Arg &A : Args)
    Out.push_back(A.IsTensor ? A.Numel : 0);
  return true;
}
