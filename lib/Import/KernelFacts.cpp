//===- KernelFacts.cpp - What the trace says of each kernel ---------------===//
//
// A kernel's precision is read from its name first (Precision.h): the
// library that wrote the kernel knows. Where the name says nothing (Triton,
// hand-written kernels), the op that launched it says what it was given:
// its "Input type", or its enclosing ops' where it recorded none.
//
// Its work comes from the shapes of the op that launched it (OpWork.h):
// a GEMM or convolution kernel takes the work of the nearest enclosing op
// with a formula (aten::mm inside aten::linear, cudnn_convolution inside
// conv2d); a memory-bound kernel the memory rule of the innermost op with
// shapes. An op's work is shared among its kernels of that kind in
// proportion to their recorded time, which keeps each kernel's FLOPs per
// byte, all the roofline needs. Kept as the kernel's dtype, flops and
// bytes attributes; unknown (0) otherwise.
//
//===----------------------------------------------------------------------===//

#include "LoweringContext.h"

#include "daydream/Transforms/KernelClass.h"
#include "daydream/Transforms/OpWork.h"
#include "daydream/Transforms/Precision.h"

#include <map>
#include <tuple>

using namespace dd;
using namespace dd::import;
using namespace dd::import::lowering;

namespace {

/// Per-string memo: 0xff until first computed.
uint8_t &memo(std::vector<uint8_t> &Table, StrId Id, size_t Size) {
  if (Id >= Table.size())
    Table.resize(Size, 0xff);
  return Table[Id];
}

class FactFinder {
public:
  explicit FactFinder(Context &C) : C(C), M(C.M) {}

  void run() {
    size_t N = M.Activities.size();
    C.ActivityDType.assign(N, DType::Unknown);
    C.ActivityFlops.assign(N, 0);
    C.ActivityBytes.assign(N, 0);
    // Each kernel's owner op and work; then the owners' shares.
    std::vector<uint32_t> Owner(N, NoId);
    std::vector<char> Compute(N, 0);
    std::map<std::pair<uint32_t, bool>, double> OwnerTime;
    for (uint32_t I = 0; I != N; ++I) {
      const GpuActivity &A = M.Activities[I];
      if (A.Kind != TaskKind::Kernel)
        continue;
      uint32_t Call = C.ActivityCall[I];
      uint32_t Range = Call == NoId ? NoId : C.CallRange[Call];
      C.ActivityDType[I] = dtypeOf(A, Range);
      if (Range == NoId || A.Name == NoId)
        continue;
      KernelClass K = classOf(A.Name);
      bool IsCompute = isComputeBound(K);
      if (!IsCompute && !isMemoryBound(K))
        continue;
      uint32_t R = IsCompute ? formulaOwner(Range) : memoryOwner(Range);
      if (R == NoId)
        continue;
      Owner[I] = R;
      Compute[I] = IsCompute;
      OwnerTime[{R, IsCompute}] +=
          double(std::max<int64_t>(1, A.EndNs - A.StartNs));
    }
    for (uint32_t I = 0; I != N; ++I) {
      if (Owner[I] == NoId)
        continue;
      const GpuActivity &A = M.Activities[I];
      OpWork W = Compute[I] ? *formula(Owner[I]) : *memory(Owner[I]);
      double Share = double(std::max<int64_t>(1, A.EndNs - A.StartNs)) /
                     OwnerTime[{Owner[I], bool(Compute[I])}];
      C.ActivityFlops[I] = W.Flops * Share;
      C.ActivityBytes[I] = W.Bytes * Share;
    }
  }

private:
  DType dtypeOf(const GpuActivity &A, uint32_t Range) {
    if (A.Name != NoId) {
      uint8_t &D = memo(ByName, A.Name, M.Strings.size());
      if (D == 0xff)
        D = uint8_t(dtypeOfKernelName(M.Strings.get(A.Name)));
      if (D != uint8_t(DType::Unknown))
        return DType(D);
    }
    for (uint32_t R = Range; R != NoId; R = C.RangeParent[R]) {
      StrId Types = M.Ranges[R].InputTypes;
      if (Types == NoId)
        continue;
      uint8_t &D = memo(ByTypes, Types, M.Strings.size());
      if (D == 0xff)
        D = uint8_t(dtypeOfInputTypes(M.Strings.get(Types)));
      if (D != uint8_t(DType::Unknown))
        return DType(D);
    }
    return DType::Unknown;
  }

  KernelClass classOf(StrId Name) {
    uint8_t &K = memo(ClassByName, Name, M.Strings.size());
    if (K == 0xff)
      K = uint8_t(classifyKernelName(M.Strings.get(Name)));
    return KernelClass(K);
  }

  using Key = std::tuple<StrId, StrId, StrId, bool>;

  const llvm::Optional<OpWork> &work(uint32_t R, bool Formula) {
    const CpuRange &Rg = M.Ranges[R];
    Key K{Formula ? Rg.Name : NoId, Rg.InputDims, Rg.InputTypes, Formula};
    auto [It, New] = Works.try_emplace(K);
    if (New) {
      llvm::StringRef Dims = M.Strings.get(Rg.InputDims);
      llvm::StringRef Types =
          Rg.InputTypes == NoId ? "" : M.Strings.get(Rg.InputTypes);
      It->second = Formula ? formulaWork(M.Strings.get(Rg.Name), Dims, Types)
                           : memoryWork(Dims, Types);
    }
    return It->second;
  }
  const llvm::Optional<OpWork> &formula(uint32_t R) { return work(R, true); }
  const llvm::Optional<OpWork> &memory(uint32_t R) { return work(R, false); }

  uint32_t formulaOwner(uint32_t R) {
    for (; R != NoId; R = C.RangeParent[R])
      if (M.Ranges[R].InputDims != NoId && formula(R))
        return R;
    return NoId;
  }

  uint32_t memoryOwner(uint32_t R) {
    for (; R != NoId; R = C.RangeParent[R])
      if (M.Ranges[R].InputDims != NoId)
        return memory(R) ? R : NoId;
    return NoId;
  }

  Context &C;
  TraceModel &M;
  std::vector<uint8_t> ByName, ByTypes, ClassByName;
  std::map<Key, llvm::Optional<OpWork>> Works;
};

} // namespace

void lowering::findKernelFacts(Context &C) { FactFinder(C).run(); }
