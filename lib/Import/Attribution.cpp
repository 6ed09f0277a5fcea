//===- Attribution.cpp - Layers and phases of ranges and calls ------------===//
//
// Every CPU range (op, annotation, module) gets a layer: the chain of
// ranges enclosing it on its thread, itself innermost, one Layer per
// distinct (parent, name) path, so repeated iterations share their layers.
// A range that starts inside another but ends after it (they overlap
// without nesting: only inconsistent traces do that) is clipped to its
// parent's end, and counted. Every call is attributed to the innermost
// range on its thread that contains it in time (the trace's "External id"
// is not reliable: in some real traces it equals the correlation id); a
// cpu-op task takes the layer of the range whose self time it is.
//
// Phases come from well-known range names:
//   autograd::engine::evaluate_function...  -> backward
//   autograd nodes (ConvolutionBackward0, CudnnBatchNormBackward,
//   torch::autograd::AccumulateGrad) -> backward unless inside the
//   optimizer: 2021 traces have no evaluate_function ranges, only the nodes
//   Optimizer.step#..., Optimizer.zero_grad#..., "## optimizer" -> optimizer
//   "## forward ##" / "## backward ##" annotations -> forward / backward
// and elsewhere from where the thread is in its step (ThreadPhases below):
// an autograd engine thread's work is backward; on any other thread, a
// step is forward until the thread's first backward range in it, backward
// from there until its first optimizer step, and optimizer after; outside
// every step, other. The order, not the thread, is what tells a CPU-only
// trace's forward from its backward, which run on the same thread.
//
//===----------------------------------------------------------------------===//

#include "LoweringContext.h"

#include "llvm/Support/FormatVariadic.h"

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
  Optimizer,        ///< zero_grad and the like: does not start a phase
  OptimizerStep,    ///< Optimizer.step#..., "## optimizer"
  Forward,
};

NameKind classifyName(llvm::StringRef Name) {
  if (Name.startswith("autograd::engine::evaluate_function"))
    return NameKind::EvaluateFunction;
  if (Name.startswith("## backward"))
    return NameKind::Backward;
  if (isAutogradNode(Name))
    return NameKind::AutogradNode;
  if (Name.startswith("Optimizer.step") || Name.startswith("## optimizer"))
    return NameKind::OptimizerStep;
  if (Name.startswith("Optimizer."))
    return NameKind::Optimizer;
  if (Name.startswith("## forward"))
    return NameKind::Forward;
  return NameKind::Plain;
}

bool isBackwardKind(NameKind K) {
  return K == NameKind::EvaluateFunction || K == NameKind::Backward ||
         K == NameKind::AutogradNode;
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
  case NameKind::OptimizerStep:
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

/// The phase of work that no named range classifies, from where its thread
/// is in its step.
class ThreadPhases {
public:
  ThreadPhases(const TraceModel &M, NameKinds &KindOf) {
    for (const CpuRange &R : M.Ranges)
      if (R.Kind == RangeKind::Step)
        Windows.push_back({R.StartNs, R.EndNs});
    std::sort(Windows.begin(), Windows.end());
    // The ranges are sorted by thread, then start.
    Threads.resize(M.Threads.size());
    for (size_t B = 0, E = 0; B != M.Ranges.size(); B = E) {
      uint32_t T = M.Ranges[B].Thread;
      bool HasStep = false, FirstSeen = false;
      ThreadState &S = Threads[T];
      for (E = B; E != M.Ranges.size() && M.Ranges[E].Thread == T; ++E) {
        const CpuRange &R = M.Ranges[E];
        if (R.Kind == RangeKind::Step) {
          HasStep = true;
          continue;
        }
        NameKind K = KindOf(R.Name);
        // An engine thread's life begins with a backward node; a main
        // thread's with the forward.
        if (!FirstSeen) {
          FirstSeen = true;
          S.Autograd = isBackwardKind(K);
        }
        if (!isBackwardKind(K) && K != NameKind::OptimizerStep)
          continue;
        size_t W = window(R.StartNs);
        if (W == NoWindow)
          continue;
        if (S.Switches.empty())
          S.Switches.assign(Windows.size(), {INT64_MAX, INT64_MAX});
        int64_t &At =
            isBackwardKind(K) ? S.Switches[W].first : S.Switches[W].second;
        At = std::min(At, R.StartNs);
      }
      S.Autograd = S.Autograd && !HasStep;
    }
  }

  bool isAutograd(uint32_t Thread) const { return Threads[Thread].Autograd; }

  Phase operator()(uint32_t Thread, int64_t T) const {
    const ThreadState &S = Threads[Thread];
    if (S.Autograd)
      return Phase::Backward;
    size_t W = window(T);
    if (W == NoWindow)
      return Phase::Other;
    if (S.Switches.empty())
      return Phase::Forward;
    auto [Backward, Optimizer] = S.Switches[W];
    return T >= Optimizer  ? Phase::Optimizer
           : T >= Backward ? Phase::Backward
                           : Phase::Forward;
  }

private:
  static constexpr size_t NoWindow = ~size_t(0);
  /// The step window holding \p T, or NoWindow.
  size_t window(int64_t T) const {
    auto It = std::upper_bound(Windows.begin(), Windows.end(),
                               std::make_pair(T, INT64_MAX));
    if (It == Windows.begin() || T >= std::prev(It)->second)
      return NoWindow;
    return size_t(std::prev(It) - Windows.begin());
  }

  struct ThreadState {
    bool Autograd = false;
    /// Per step window: where the thread's first backward range and first
    /// optimizer step start, INT64_MAX where none; empty if none at all.
    std::vector<std::pair<int64_t, int64_t>> Switches;
  };
  std::vector<std::pair<int64_t, int64_t>> Windows;
  std::vector<ThreadState> Threads;
};

struct OpenRange {
  int64_t EndNs;
  uint32_t Range;
};

} // namespace

/// Layers, phases and clipped ends of the ranges.
static void attributeRanges(Context &C, NameKinds &KindOf,
                            const ThreadPhases &BasePhase) {
  TraceModel &M = C.M;

  llvm::DenseMap<std::pair<LayerId, StrId>, LayerId> LayerIds;
  auto LayerFor = [&](LayerId Parent, StrId Name) {
    auto [It, New] = LayerIds.try_emplace({Parent, Name}, C.G.numLayers());
    if (New)
      C.G.addLayer(Layer{Name, Parent});
    return It->second;
  };

  size_t N = M.Ranges.size();
  C.RangeLayer.assign(N, NoId);
  C.RangePhase.assign(N, Phase::Other);
  C.RangeEnd.resize(N);
  C.RangeParent.assign(N, NoId);
  std::vector<OpenRange> Stack;
  uint32_t Thread = NoId;
  for (uint32_t R = 0; R != N; ++R) {
    const CpuRange &Rg = M.Ranges[R];
    C.RangeEnd[R] = Rg.EndNs;
    if (Rg.Thread != Thread) {
      Thread = Rg.Thread;
      Stack.clear();
    }
    if (Rg.Kind == RangeKind::Step)
      continue; // an iteration, not a layer
    while (!Stack.empty() && Stack.back().EndNs <= Rg.StartNs)
      Stack.pop_back();
    if (!Stack.empty() && Rg.EndNs > Stack.back().EndNs) {
      C.RangeEnd[R] = Stack.back().EndNs;
      if (C.Stats.ClippedRanges++ == 0)
        C.Stats.ClippedNote = llvm::formatv(
            "'{0}' at {1} ns ends {2} ns after '{3}', which it starts in",
            M.Strings.get(Rg.Name), Rg.StartNs, Rg.EndNs - Stack.back().EndNs,
            M.Strings.get(M.Ranges[Stack.back().Range].Name));
    }
    if (!Stack.empty())
      C.RangeParent[R] = Stack.back().Range;
    LayerId Parent = Stack.empty() ? NoId : C.RangeLayer[Stack.back().Range];
    Phase Inherited = Stack.empty() ? BasePhase(Thread, Rg.StartNs)
                                    : C.RangePhase[Stack.back().Range];
    C.RangeLayer[R] = LayerFor(Parent, Rg.Name);
    C.RangePhase[R] = phaseOfRange(KindOf(Rg.Name), Inherited);
    Stack.push_back(OpenRange{C.RangeEnd[R], R});
  }
}

/// Layers and phases of the root calls: their innermost enclosing range's.
static void attributeCalls(Context &C, const ThreadPhases &BasePhase) {
  TraceModel &M = C.M;
  C.CallLayer.assign(M.Calls.size(), NoId);
  C.CallPhase.assign(M.Calls.size(), Phase::Other);
  C.CallRange.assign(M.Calls.size(), NoId);
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
      if (M.Ranges[R].Kind == RangeKind::Step)
        continue;
      while (!Stack.empty() && Stack.back().EndNs <= M.Ranges[R].StartNs)
        Stack.pop_back();
      Stack.push_back(OpenRange{C.RangeEnd[R], uint32_t(R)});
    }
    while (!Stack.empty() && Stack.back().EndNs < Call.EndNs)
      Stack.pop_back();
    if (Stack.empty()) {
      C.CallPhase[I] = BasePhase(Thread, Call.StartNs);
    } else {
      C.CallRange[I] = Stack.back().Range;
      C.CallLayer[I] = C.RangeLayer[Stack.back().Range];
      C.CallPhase[I] = C.RangePhase[Stack.back().Range];
    }
  }
}

void lowering::attribute(Context &C) {
  NameKinds KindOf(C.M.Strings);
  ThreadPhases BasePhase(C.M, KindOf);
  attributeRanges(C, KindOf, BasePhase);
  attributeCalls(C, BasePhase);
  C.AutogradThread.resize(C.M.Threads.size());
  for (uint32_t T = 0; T != C.M.Threads.size(); ++T)
    C.AutogradThread[T] = BasePhase.isAutograd(T);
}
