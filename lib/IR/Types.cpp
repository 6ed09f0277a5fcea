//===- Types.cpp - Spellings of the IR enums ------------------------------===//
//
// One table per enum gives the spelling used by the text form, the tools and
// the reports, so that printing and parsing can never disagree.
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/Types.h"

#include <cstring>

using namespace dd;
using llvm::StringRef;

namespace {
constexpr const char *LaneKindNames[] = {"cpu-thread", "gpu-stream",
                                         "comm-channel"};
constexpr const char *LaneOrderNames[] = {"in-order", "by-priority"};
constexpr const char *TaskKindNames[] = {"cpu-op",     "runtime", "kernel",
                                         "memcpy",     "memset",  "sync",
                                         "collective", "marker"};
constexpr const char *PhaseNames[] = {"other", "forward", "backward",
                                      "optimizer"};
constexpr const char *DTypeNames[] = {"unknown", "fp64", "fp32", "tf32",
                                      "fp16",    "bf16", "fp8",  "int8"};
constexpr const char *EdgeKindNames[] = {
    "program", "stream", "launch", "sync", "cross-stream", "data", "comm"};
constexpr const char *MemoryCategoryNames[] = {
    "weights",     "weight-gradients", "optimizer-state",
    "activations", "workspace",        "other"};

static_assert(sizeof(LaneKindNames) / sizeof(char *) == NumLaneKinds, "");
static_assert(sizeof(LaneOrderNames) / sizeof(char *) == NumLaneOrders, "");
static_assert(sizeof(TaskKindNames) / sizeof(char *) == NumTaskKinds, "");
static_assert(sizeof(PhaseNames) / sizeof(char *) == NumPhases, "");
static_assert(sizeof(DTypeNames) / sizeof(char *) == NumDTypes, "");
static_assert(sizeof(EdgeKindNames) / sizeof(char *) == NumEdgeKinds, "");
static_assert(sizeof(MemoryCategoryNames) / sizeof(char *) ==
                  NumMemoryCategories,
              "");

template <typename EnumT, size_t N>
llvm::Optional<EnumT> lookup(const char *const (&Names)[N], StringRef S) {
  for (size_t I = 0; I != N; ++I)
    if (S == Names[I])
      return static_cast<EnumT>(I);
  return llvm::None;
}

template <size_t N> StringRef spell(const char *const (&Names)[N], unsigned V) {
  return V < N ? StringRef(Names[V]) : StringRef("<invalid>");
}
} // namespace

StringRef dd::toString(LaneKind K) { return spell(LaneKindNames, unsigned(K)); }
StringRef dd::toString(LaneOrder O) {
  return spell(LaneOrderNames, unsigned(O));
}
StringRef dd::toString(TaskKind K) { return spell(TaskKindNames, unsigned(K)); }
StringRef dd::toString(Phase P) { return spell(PhaseNames, unsigned(P)); }
StringRef dd::toString(DType D) { return spell(DTypeNames, unsigned(D)); }
StringRef dd::toString(EdgeKind K) { return spell(EdgeKindNames, unsigned(K)); }
StringRef dd::toString(MemoryCategory C) {
  return spell(MemoryCategoryNames, unsigned(C));
}

llvm::Optional<LaneKind> dd::parseLaneKind(StringRef S) {
  return lookup<LaneKind>(LaneKindNames, S);
}
llvm::Optional<LaneOrder> dd::parseLaneOrder(StringRef S) {
  return lookup<LaneOrder>(LaneOrderNames, S);
}
llvm::Optional<TaskKind> dd::parseTaskKind(StringRef S) {
  return lookup<TaskKind>(TaskKindNames, S);
}
llvm::Optional<Phase> dd::parsePhase(StringRef S) {
  return lookup<Phase>(PhaseNames, S);
}
llvm::Optional<DType> dd::parseDType(StringRef S) {
  return lookup<DType>(DTypeNames, S);
}
llvm::Optional<EdgeKind> dd::parseEdgeKind(StringRef S) {
  return lookup<EdgeKind>(EdgeKindNames, S);
}
llvm::Optional<MemoryCategory> dd::parseMemoryCategory(StringRef S) {
  return lookup<MemoryCategory>(MemoryCategoryNames, S);
}

bool dd::isGpuWork(TaskKind K) {
  return K == TaskKind::Kernel || K == TaskKind::Memcpy ||
         K == TaskKind::Memset || K == TaskKind::Collective;
}

bool TaskAttrs::operator==(const TaskAttrs &O) const {
  return Bytes == O.Bytes && Flops == O.Flops &&
         std::memcmp(Grid, O.Grid, sizeof(Grid)) == 0 &&
         std::memcmp(Block, O.Block, sizeof(Block)) == 0 &&
         SharedMemBytes == O.SharedMemBytes &&
         RegistersPerThread == O.RegistersPerThread && CopyKind == O.CopyKind &&
         DType == O.DType;
}

bool MemoryEvent::operator==(const MemoryEvent &O) const {
  return TimeNs == O.TimeNs && Bytes == O.Bytes &&
         TotalAllocated == O.TotalAllocated &&
         TotalReserved == O.TotalReserved && Address == O.Address &&
         Lane == O.Lane && Device == O.Device && Task == O.Task &&
         Category == O.Category && Flags == O.Flags;
}
