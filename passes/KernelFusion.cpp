//===- KernelFusion.cpp - Fuse chains of kernels into one kernel ----------===//
//
// kernel-fusion{class=elementwise pattern=RE max-chain=N keep=auto
//               drop-gaps=false}
//
// "What if these elementwise kernels were one kernel?" (the kernel-fusion
// what-if of Daydream, Zhu et al., USENIX ATC 2020). Each maximal run of
// eligible kernels that follow one another on a GPU stream, in one phase,
// becomes one kernel: the first one, renamed "fused(...)", with a modelled
// duration; the launch calls of the others disappear from the CPU thread.
//
// The duration model (docs/passes/kernel-fusion.md): memory-bound kernels
// take time in proportion to the bytes they move. A chain of k kernels that
// each read one tensor and write one moves 2k tensors; fused, it reads its
// first input and writes its last output once and still reads the side
// input (bias, residual, mask) of each of the other k-1 members: k+1
// tensors. So keep = (k+1)/(2k) of the summed time, and never less than the
// longest member, whose bytes the fused kernel still moves.
//
//===----------------------------------------------------------------------===//

#include "Fusion.h"

#include "daydream/IR/Graph.h"
#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Support/ShortestDouble.h"
#include "daydream/Transforms/KernelClass.h"
#include "daydream/Transforms/NameMatcher.h"
#include "daydream/Transforms/Primitives.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"

#include <algorithm>
#include <cmath>

using namespace dd;
using llvm::ArrayRef;
using llvm::Error;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// The kernel-fusion pass.
//===----------------------------------------------------------------------===//

namespace {

/// keep=auto, held apart from every value the option may be given.
constexpr double AutoKeep = -1;

struct KernelFusionOptions {
  std::vector<KernelClass> Classes = {KernelClass::Elementwise};
  std::string Pattern;
  int64_t MaxChain = 0;
  /// AutoKeep means "auto": (k+1)/(2k) for a chain of k kernels.
  double Keep = AutoKeep;
  bool DropGaps = false;
};

void declare(PassOptionParser &P, KernelFusionOptions &O) {
  P.add(
      "class",
      "kernel classes eligible for fusion, comma-separated (gemm, conv, "
      "elementwise, norm, reduction, optimizer, communication, other)",
      [&O](StringRef S) {
        return fusion::parseClassList(S, O.Classes, /*AllowAll=*/false);
      },
      [&O](llvm::raw_ostream &OS) { fusion::printClassList(OS, O.Classes); });
  P.add("pattern", O.Pattern,
        "fuse kernels whose name contains a match of this regex instead of "
        "by class");
  P.add("max-chain", O.MaxChain,
        "most kernels fused into one (0: no limit, else at least 2)");
  P.add(
      "keep",
      "fused duration as a fraction of the members' summed duration, in "
      "(0, 1], or auto: (k+1)/(2k) for k kernels",
      [&O](StringRef S) -> Error {
        if (S == "auto") {
          O.Keep = AutoKeep;
          return Error::success();
        }
        if (S.getAsDouble(O.Keep) || !std::isfinite(O.Keep))
          return optionError("expected 'auto' or a number, found '" + S + "'");
        return Error::success();
      },
      [&O](llvm::raw_ostream &OS) {
        if (O.Keep == AutoKeep)
          OS << "auto";
        else
          printShortestDouble(OS, O.Keep);
      });
  P.add("drop-gaps", O.DropGaps,
        "also drop the untraced CPU time before each removed launch");
}

Error validate(const KernelFusionOptions &O) {
  if (O.MaxChain < 0 || O.MaxChain == 1)
    return optionError("max-chain must be 0 (no limit) or at least 2, not " +
                       llvm::Twine(O.MaxChain));
  if (O.Keep != AutoKeep && !(O.Keep > 0 && O.Keep <= 1))
    return optionError("keep must be auto or in (0, 1], not " +
                       llvm::formatv("{0}", O.Keep).str());
  std::string Msg;
  if (!O.Pattern.empty() && !llvm::Regex(O.Pattern).isValid(Msg))
    return optionError("invalid regex '" + O.Pattern + "': " + Msg);
  return Error::success();
}

class KernelFusion {
public:
  static constexpr const char *Name = "kernel-fusion";
  static constexpr const char *Flag = "fuse";
  static constexpr const char *Description =
      "Fuse chains of elementwise kernels on a stream into one kernel";
  using OptionsT = KernelFusionOptions;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;
  static constexpr bool IsRankLocal = true;

  explicit KernelFusion(KernelFusionOptions O) : O(std::move(O)) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &AM) {
    std::vector<char> Barriers = fusion::findChainBarriers(G);
    auto Eligible = eligibility(G);
    fusion::KernelFuser Fuser(G);
    fusion::forEachKernelRun(
        G, Barriers, Eligible, /*MinLength=*/2, size_t(O.MaxChain),
        [&](ArrayRef<TaskId> Run) {
          double Keep = O.Keep != AutoKeep ? O.Keep : autoKeep(Run.size());
          Fuser.add(Run, fusion::fusedDuration(G, Run, Keep));
        });
    if (Fuser.empty()) {
      std::string Eligible;
      llvm::raw_string_ostream OS(Eligible);
      if (O.Pattern.empty()) {
        OS << "class=";
        fusion::printClassList(OS, O.Classes);
      } else {
        OS << "pattern=" << O.Pattern;
      }
      AM.warning("no two eligible kernels (" + OS.str() +
                 ") run back to back on a stream; nothing was changed");
      return PreservedAnalyses::all();
    }
    Fuser.fuse(O.DropGaps);
    Fuser.countStatistics(AM);
    return PreservedAnalyses::none();
  }

private:
  /// (k+1)/(2k): 2k tensor passes unfused, k+1 fused (see the file header).
  static double autoKeep(size_t K) { return double(K + 1) / double(2 * K); }

  /// Kernels of the eligible classes, or whose name matches pattern=;
  /// decided once per distinct name.
  std::function<bool(TaskId)> eligibility(const Graph &G) const {
    auto Classifier = std::make_shared<KernelClassifier>(G);
    auto Names = std::make_shared<NameMatcher>(G, O.Pattern);
    bool ByPattern = !O.Pattern.empty();
    std::vector<KernelClass> Classes = O.Classes;
    return [&G, Classifier, Names, ByPattern, Classes](TaskId T) {
      const Task &Tk = G.task(T);
      if (Tk.Kind != TaskKind::Kernel || Tk.Name == NoId)
        return false;
      if (!ByPattern)
        return llvm::is_contained(Classes, Classifier->classOf(T));
      return Names->matches(Tk.Name);
    };
  }

  KernelFusionOptions O;
};

} // namespace

PassInfo dd::passInfoOfKernelFusion() { return passInfo<KernelFusion>(); }
