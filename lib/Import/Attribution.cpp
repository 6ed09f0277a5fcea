//===- Attribution.cpp - Layers and phases of API calls -------------------===//
//
// Every call is attributed to the innermost CPU op or annotation on its
// thread that contains it in time (the trace's "External id" is not
// reliable: in some real traces it equals the correlation id). The chain of
// enclosing ranges becomes the call's layer: one Layer per distinct
// (parent, name) path, so repeated iterations share their layers. Phases
// come from well-known range names and from the autograd thread:
//   autograd::engine::evaluate_function...  -> backward (and its thread)
//   autograd nodes (ConvolutionBackward0, CudnnBatchNormBackward,
//   torch::autograd::AccumulateGrad) -> backward: 2021 traces have no
//   evaluate_function ranges, only the nodes
//   Optimizer.step#..., Optimizer.zero_grad#... -> optimizer
//   "## forward ##" / "## backward ##" annotations -> forward / backward
//   anything else inside a ProfilerStep -> forward, outside -> other.
//
//===----------------------------------------------------------------------===//

#include "LoweringContext.h"

#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <cstring>

using namespace dd;
using namespace dd::import;
using namespace dd::import::lowering;

namespace {

/// Whether \p Name is an autograd graph node's: "<Op>Backward", with a
/// version number since PyTorch 1.10 ("AddmmBackward0"), or the leaf
/// gradient accumulation.
bool isAutogradNode(llvm::StringRef Name) {
  if (Name == "torch::autograd::AccumulateGrad")
    return true;
  llvm::StringRef Stem = Name.rtrim("0123456789");
  return Stem.endswith("Backward") && Stem.size() > strlen("Backward") &&
         !Stem.contains(' ');
}

/// What a range's name says about the phase.
enum class NameKind : uint8_t {
  Unknown, ///< not classified yet
  Plain,
  EvaluateFunction, ///< the autograd engine running a node: backward
  Backward,         ///< a "## backward" annotation
  AutogradNode,     ///< backward unless inside the optimizer
  Optimizer,
  Forward,
};

NameKind classifyName(llvm::StringRef Name) {
  if (Name.startswith("autograd::engine::evaluate_function"))
    return NameKind::EvaluateFunction;
  if (Name.startswith("## backward"))
    return NameKind::Backward;
  if (isAutogradNode(Name))
    return NameKind::AutogradNode;
  if (Name.startswith("Optimizer."))
    return NameKind::Optimizer;
  if (Name.startswith("## forward"))
    return NameKind::Forward;
  return NameKind::Plain;
}

/// The phase a range's name implies, or \p Inherited.
Phase phaseOfRange(NameKind Kind, Phase Inherited) {
  switch (Kind) {
  case NameKind::EvaluateFunction:
  case NameKind::Backward:
    return Phase::Backward;
  case NameKind::AutogradNode:
    return Inherited != Phase::Optimizer ? Phase::Backward : Inherited;
  case NameKind::Optimizer:
    return Phase::Optimizer;
  case NameKind::Forward:
    return Phase::Forward;
  default:
    return Inherited;
  }
}

/// Names' kinds, classified once per name: a trace repeats a few hundred
/// names all along.
class NameKinds {
public:
  explicit NameKinds(const StringTable &Strings)
      : Strings(Strings), Kinds(Strings.size(), NameKind::Unknown) {}

  NameKind operator()(StrId Name) {
    if (Kinds[Name] == NameKind::Unknown)
      Kinds[Name] = classifyName(Strings.get(Name));
    return Kinds[Name];
  }

private:
  const StringTable &Strings;
  std::vector<NameKind> Kinds;
};

/// Step windows, sorted, for "is this time inside an iteration?".
class StepWindows {
public:
  explicit StepWindows(const std::vector<CpuRange> &Ranges) {
    for (const CpuRange &R : Ranges)
      if (R.Kind == RangeKind::Step)
        Windows.push_back({R.StartNs, R.EndNs});
    std::sort(Windows.begin(), Windows.end());
  }
  bool contains(int64_t T) const {
    auto It = std::upper_bound(Windows.begin(), Windows.end(),
                               std::make_pair(T, INT64_MAX));
    return It != Windows.begin() && T < std::prev(It)->second;
  }

private:
  std::vector<std::pair<int64_t, int64_t>> Windows;
};

struct OpenRange {
  int64_t EndNs;
  LayerId Layer;
  Phase Ph;
};

} // namespace

void lowering::attributeCalls(Context &C) {
  TraceModel &M = C.M;
  StepWindows Steps(M.Ranges);
  NameKinds KindOf(M.Strings);
  llvm::DenseSet<uint32_t> AutogradThreads;
  for (const CpuRange &R : M.Ranges)
    if (KindOf(R.Name) == NameKind::EvaluateFunction)
      AutogradThreads.insert(R.Thread);
  auto BasePhase = [&](uint32_t Thread, int64_t T) {
    if (AutogradThreads.count(Thread))
      return Phase::Backward;
    return Steps.contains(T) ? Phase::Forward : Phase::Other;
  };

  llvm::DenseMap<std::pair<LayerId, StrId>, LayerId> LayerIds;
  auto LayerFor = [&](LayerId Parent, StrId Name) {
    auto [It, New] = LayerIds.try_emplace({Parent, Name}, C.G.numLayers());
    if (New)
      C.G.addLayer(Layer{Name, Parent});
    return It->second;
  };

  C.CallLayer.assign(M.Calls.size(), NoId);
  C.CallPhase.assign(M.Calls.size(), Phase::Other);
  std::vector<OpenRange> Stack;
  size_t R = 0;
  uint32_t Thread = NoId;
  for (uint32_t I = 0; I != M.Calls.size(); ++I) {
    if (C.CallRoot[I] != I)
      continue;
    const ApiCall &Call = M.Calls[I];
    if (Call.Thread != Thread) {
      Thread = Call.Thread;
      Stack.clear();
      while (R < M.Ranges.size() && M.Ranges[R].Thread < Thread)
        ++R;
    }
    // Open every range of this thread that starts before the call.
    for (; R < M.Ranges.size() && M.Ranges[R].Thread == Thread &&
           M.Ranges[R].StartNs <= Call.StartNs;
         ++R) {
      const CpuRange &Rg = M.Ranges[R];
      while (!Stack.empty() && Stack.back().EndNs <= Rg.StartNs)
        Stack.pop_back();
      if (Rg.Kind == RangeKind::Step)
        continue; // an iteration, not a layer
      LayerId Parent = Stack.empty() ? NoId : Stack.back().Layer;
      Phase Inherited =
          Stack.empty() ? BasePhase(Thread, Rg.StartNs) : Stack.back().Ph;
      Stack.push_back(OpenRange{Rg.EndNs, LayerFor(Parent, Rg.Name),
                                phaseOfRange(KindOf(Rg.Name), Inherited)});
    }
    while (!Stack.empty() && Stack.back().EndNs < Call.EndNs)
      Stack.pop_back();
    if (Stack.empty()) {
      C.CallPhase[I] = BasePhase(Thread, Call.StartNs);
    } else {
      C.CallLayer[I] = Stack.back().Layer;
      C.CallPhase[I] = Stack.back().Ph;
    }
  }
}
