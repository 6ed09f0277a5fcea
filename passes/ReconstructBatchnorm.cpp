//===- ReconstructBatchnorm.cpp - Fuse batch norm with its ReLU -----------===//
//
// reconstruct-batchnorm{keep=0.5 bn=RE partner=RE drop-gaps=false}
//
// The batch-norm restructuring of Jung et al. ("Restructuring Batch
// Normalization to Accelerate CNN Training", SysML 2019), as Daydream
// (Zhu et al., USENIX ATC 2020) models it: batch norm's statistics pass
// moves into the preceding convolution and its normalization pass fuses
// with the ReLU, so the BN and ReLU kernels stop making their own passes
// over the activations. On each GPU stream, each batch-norm kernel (or run
// of them, as ATen's two-kernel BN) is merged with the elementwise kernel
// next to it: the one after it in the forward pass (ReLU, or a residual
// add), the one before it in the backward pass (ReLU's backward, which
// autograd runs first). The merged kernel takes keep x their summed
// duration; the launches of the others go.
//
// Default keep=0.5 (docs/passes/reconstruct-batchnorm.md): forward, BN
// training makes 3 passes over the activation (2 in cuDNN's "singleread"
// kernels) and ReLU 2; restructured, normalize+ReLU reads once and writes
// once: 2 of 5 or 4 passes (0.4 - 0.5). Backward, ReLU's backward makes 3
// and BN's 3 - 5; restructured about 4: 0.5 - 0.67.
//
// Chain boundaries, naming and launch removal come from the fusion kit in
// KernelFusion.cpp, declared below.
//
//===----------------------------------------------------------------------===//

#include "Fusion.h"

#include "daydream/IR/Graph.h"
#include "daydream/IR/TaskFieldBounds.h"
#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Transforms/KernelClass.h"
#include "daydream/Transforms/NameMatcher.h"
#include "daydream/Transforms/Primitives.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"

#include <cmath>

using namespace dd;
using llvm::Error;
using llvm::StringRef;

namespace {

struct ReconstructBatchnormOptions {
  double Keep = 0.5;
  std::string BnRegex = "bn_|batch_?norm";
  /// Empty: partners are the elementwise kernels (KernelClass.h).
  std::string PartnerRegex;
  bool DropGaps = false;
};

void declare(PassOptionParser &P, ReconstructBatchnormOptions &O) {
  P.add("keep", O.Keep,
        "merged duration as a fraction of the members' summed duration, in "
        "(0, 1]");
  P.add("bn", O.BnRegex,
        "regex (case-insensitive) a batch-norm kernel's name contains a "
        "match of");
  P.add("partner", O.PartnerRegex,
        "regex a partner kernel's name contains a match of (default: any "
        "elementwise kernel)");
  P.add("drop-gaps", O.DropGaps,
        "also drop the untraced CPU time before each removed launch");
}

Error validate(const ReconstructBatchnormOptions &O) {
  if (!(O.Keep > 0 && O.Keep <= 1))
    return optionError("keep must be in (0, 1], not " +
                       llvm::formatv("{0}", O.Keep).str());
  if (O.BnRegex.empty())
    return optionError("bn must not be empty (it would match every kernel)");
  for (const std::string *R : {&O.BnRegex, &O.PartnerRegex}) {
    std::string Msg;
    if (!R->empty() && !llvm::Regex(*R).isValid(Msg))
      return optionError("invalid regex '" + *R + "': " + Msg);
  }
  return Error::success();
}

/// Whether \p T is a kernel whose name \p Names matches.
bool kernelNamed(const Graph &G, NameMatcher &Names, TaskId T) {
  const Task &Tk = G.task(T);
  return Tk.Kind == TaskKind::Kernel && Tk.Name != NoId &&
         Names.matches(Tk.Name);
}

class ReconstructBatchnorm {
public:
  static constexpr const char *Name = "reconstruct-batchnorm";
  static constexpr const char *Description =
      "Batch-norm restructuring: fold BN statistics passes into neighbours";
  using OptionsT = ReconstructBatchnormOptions;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;
  static constexpr bool IsRankLocal = true;

  explicit ReconstructBatchnorm(ReconstructBatchnormOptions O)
      : O(std::move(O)) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &AM) {
    std::vector<char> Barriers = fusion::findChainBarriers(G);
    NameMatcher Bn(G, O.BnRegex, llvm::Regex::IgnoreCase);
    NameMatcher PartnerName(G, O.PartnerRegex, llvm::Regex::NoFlags);
    KernelClassifier Classifier(G);
    auto IsPartner = [&](TaskId T) {
      if (kernelNamed(G, Bn, T) || G.task(T).Kind != TaskKind::Kernel)
        return false;
      return O.PartnerRegex.empty()
                 ? Classifier.classOf(T) == KernelClass::Elementwise
                 : kernelNamed(G, PartnerName, T);
    };

    fusion::KernelFuser Fuser(G);
    llvm::SmallVector<TaskId, 8> Group;
    size_t BnKernels = 0;
    fusion::forEachKernelRun(
        G, Barriers, [&](TaskId T) { return kernelNamed(G, Bn, T); },
        /*MinLength=*/1, /*MaxLength=*/0,
        [&](llvm::ArrayRef<TaskId> Run) {
          BnKernels += Run.size();
          if (withPartner(G, Barriers, Run, IsPartner, Group))
            Fuser.add(Group, restructuredDuration(G, Group));
        });
    if (Fuser.empty()) {
      AM.warning(BnKernels == 0
                     ? "no kernel's name matches bn='" + O.BnRegex +
                           "'; nothing was changed"
                     : llvm::formatv("none of the {0} batch-norm kernels has "
                                     "a partner kernel (elementwise, or "
                                     "matching partner=) beside it on its "
                                     "stream; nothing was changed",
                                     BnKernels)
                           .str());
      return PreservedAnalyses::all();
    }
    Fuser.fuse(O.DropGaps);
    Fuser.countStatistics(AM);
    return PreservedAnalyses::none();
  }

private:
  /// keep x the members' summed duration. Unlike plain fusion there is no
  /// floor at the longest member: restructuring cuts the BN kernel's own
  /// passes too (its statistics pass moves into the convolution).
  int64_t restructuredDuration(const Graph &G,
                               llvm::ArrayRef<TaskId> Group) const {
    int64_t Sum = 0;
    for (TaskId T : Group)
      Sum += G.task(T).DurationNs;
    return roundNs(double(Sum) * O.Keep);
  }

  /// The run with its partner, into \p Group: the kernel before it in the
  /// backward pass (autograd runs ReLU's backward first), after it
  /// otherwise. False if that neighbour is no partner or cannot be fused
  /// with the run. A kernel is never claimed twice: it would need the phase
  /// of a forward run before it and of a backward run after it.
  bool withPartner(const Graph &G, const std::vector<char> &Barriers,
                   llvm::ArrayRef<TaskId> Run,
                   llvm::function_ref<bool(TaskId)> IsPartner,
                   llvm::SmallVectorImpl<TaskId> &Group) const {
    Group.clear();
    if (G.task(Run.front()).Phase == Phase::Backward) {
      TaskId P = G.prevOnLane(Run.front());
      if (P == NoId || !IsPartner(P) ||
          !fusion::canChain(G, Barriers, P, Run.front()))
        return false;
      Group.push_back(P);
      Group.append(Run.begin(), Run.end());
      return true;
    }
    TaskId N = G.nextOnLane(Run.back());
    if (N == NoId || !IsPartner(N) ||
        !fusion::canChain(G, Barriers, Run.back(), N))
      return false;
    Group.append(Run.begin(), Run.end());
    Group.push_back(N);
    return true;
  }

  ReconstructBatchnormOptions O;
};

} // namespace

PassInfo dd::passInfoOfReconstructBatchnorm() {
  return passInfo<ReconstructBatchnorm>();
}
