//===- FusedOptimizer.cpp - One fused kernel per optimizer step -----------===//
//
// fused-optimizer{keep=0.625 class=all drop-gaps=true}
//
// Daydream's FusedAdam what-if (Zhu et al., USENIX ATC 2020, section 5):
// an unfused optimizer step issues several elementwise kernels per
// parameter (or per tensor list, with foreach), each from its own framework
// op; a fused optimizer (apex FusedAdam, torch.optim fused=True) updates
// every parameter in one multi-tensor kernel. So on each GPU stream, each
// contiguous run of optimizer-phase kernels becomes one kernel; the launch
// calls of the others go, and with them (drop-gaps) the untraced CPU time
// the framework spent issuing each per-parameter op.
//
// The fused kernel's duration is a model (docs/passes/fused-optimizer.md):
// keep x the run's summed duration, at least its longest kernel. keep is the
// ratio of tensor passes: momentum SGD, the optimizer of the CNN traces,
// makes 8 passes over the parameters unfused (buf.mul_: 2, buf.add_(grad):
// 3, param.add_(buf): 3) and 5 fused (read param, grad, buf; write param,
// buf): 5/8. Adam makes about 18 and 7: use keep=0.4.
//
// Chain boundaries, naming and launch removal come from the fusion kit in
// KernelFusion.cpp, declared below.
//
//===----------------------------------------------------------------------===//

#include "Fusion.h"

#include "daydream/IR/Graph.h"
#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Transforms/KernelClass.h"
#include "daydream/Transforms/Primitives.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace dd;
using llvm::Error;
using llvm::StringRef;

namespace {

struct FusedOptimizerOptions {
  double Keep = 0.625;
  /// Empty: every class.
  std::vector<KernelClass> Classes;
  bool DropGaps = true;
};

void declare(PassOptionParser &P, FusedOptimizerOptions &O) {
  P.add("keep", O.Keep,
        "fused duration as a fraction of the run's summed duration, in "
        "(0, 1]");
  P.add(
      "class",
      "kernel classes of the optimizer phase to fuse, comma-separated, or "
      "all",
      [&O](StringRef S) {
        return fusion::parseClassList(S, O.Classes, /*AllowAll=*/true);
      },
      [&O](llvm::raw_ostream &OS) { fusion::printClassList(OS, O.Classes); });
  P.add("drop-gaps", O.DropGaps,
        "also drop the untraced CPU time before each removed launch");
}

Error validate(const FusedOptimizerOptions &O) {
  if (!(O.Keep > 0 && O.Keep <= 1))
    return optionError("keep must be in (0, 1], not " +
                       llvm::formatv("{0}", O.Keep).str());
  return Error::success();
}

class FusedOptimizer {
public:
  static constexpr const char *Name = "fused-optimizer";
  static constexpr const char *Description =
      "Fused optimizer (FusedAdam): the optimizer's per-parameter kernels "
      "become one";
  using OptionsT = FusedOptimizerOptions;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;
  static constexpr bool IsRankLocal = true;

  explicit FusedOptimizer(FusedOptimizerOptions O) : O(std::move(O)) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &AM) {
    KernelClassifier Classifier(G);
    auto IsOptimizerKernel = [&](TaskId T) {
      const Task &Tk = G.task(T);
      return Tk.Kind == TaskKind::Kernel && Tk.Phase == Phase::Optimizer &&
             (O.Classes.empty() ||
              llvm::is_contained(O.Classes, Classifier.classOf(T)));
    };
    fusion::KernelFuser Fuser(G);
    fusion::forEachKernelRun(
        G, fusion::findChainBarriers(G), IsOptimizerKernel,
        /*MinLength=*/2, /*MaxLength=*/0, [&](llvm::ArrayRef<TaskId> Run) {
          Fuser.add(Run, fusion::fusedDuration(G, Run, O.Keep));
        });
    if (Fuser.empty()) {
      warnNothingToFuse(G, IsOptimizerKernel, AM);
      return PreservedAnalyses::all();
    }
    Fuser.fuse(O.DropGaps);
    Fuser.countStatistics(AM);
    return PreservedAnalyses::none();
  }

private:
  /// Why no run was found: no optimizer kernels at all (a trace without
  /// the optimizer step, or one whose phases were not recognized), or none
  /// two in a row on a stream.
  template <typename Pred>
  void warnNothingToFuse(const Graph &G, Pred IsOptimizerKernel,
                         AnalysisManager &AM) const {
    size_t Kernels = 0;
    for (TaskId T : G.liveTasks())
      Kernels += IsOptimizerKernel(T);
    if (Kernels == 0)
      AM.warning(llvm::Twine("the graph has no kernels in the optimizer "
                             "phase") +
                 (O.Classes.empty() ? "" : " of the classes given") +
                 "; nothing was changed");
    else
      AM.warning(llvm::formatv("no two of the {0} optimizer kernels run "
                               "back to back on a stream; nothing was changed",
                               Kernels));
  }

  FusedOptimizerOptions O;
};

} // namespace

PassInfo dd::passInfoOfFusedOptimizer() { return passInfo<FusedOptimizer>(); }
