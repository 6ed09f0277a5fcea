//===- TestPlugin.cpp - Plugins for the plugin loader's tests -------------===//
//
// One source, built four ways (test/CMakeLists.txt): a working plugin with
// a pass (double-kernels: every kernel twice as long, through the
// primitives library the tools export) and a scheduling policy
// (longest-first); one built for another API version; one whose pass name
// is a built-in's; one without the entry point.
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/Graph.h"
#include "daydream/Pass/DeclarePass.h"
#include "daydream/Plugin/PassPlugin.h"
#include "daydream/Transforms/Primitives.h"
#include "daydream/Transforms/TaskSelector.h"

using namespace dd;

namespace {

struct DoubleKernelsOptions {
  double Factor = 2.0;
};

void declare(PassOptionParser &P, DoubleKernelsOptions &O) {
  P.add("factor", O.Factor, "multiply kernel durations by this");
}

llvm::Error validate(const DoubleKernelsOptions &) {
  return llvm::Error::success();
}

#ifdef DD_TEST_CLASH
constexpr const char *PassName = "amp-scale";
#else
constexpr const char *PassName = "double-kernels";
#endif

class DoubleKernels {
public:
  static constexpr const char *Name = PassName;
  static constexpr const char *Description =
      "every kernel takes factor times as long";
  using OptionsT = DoubleKernelsOptions;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;

  explicit DoubleKernels(DoubleKernelsOptions O) : O(O) {}
  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &) {
    TaskSelector Kernels;
    Kernels.Kinds = {TaskKind::Kernel};
    scaleDurations(G, Kernels.select(G), O.Factor);
    return PreservedAnalyses::none().preserveSet<StructureAnalyses>();
  }

private:
  DoubleKernelsOptions O;
};

/// Longest ready task first.
class LongestFirst : public SchedulingPolicy {
public:
  llvm::StringRef name() const override { return "longest-first"; }
  int64_t priority(const Graph &G, TaskId T) const override {
    return -G.task(T).DurationNs;
  }
};

void registerAll(PluginRegistrar &R) {
  R.addPass(passInfo<DoubleKernels>());
  R.addPolicy({"longest-first", "the longest ready task first",
               [] { return std::make_unique<LongestFirst>(); }});
}

} // namespace

#ifndef DD_TEST_API_VERSION
#define DD_TEST_API_VERSION DD_PLUGIN_API_VERSION
#endif

#ifndef DD_TEST_NO_ENTRY
extern "C" DD_PLUGIN_EXPORT DdPluginInfo ddGetPluginInfo() {
  return {DD_TEST_API_VERSION, "test-plugin", "0.1", registerAll};
}
#else
extern "C" DD_PLUGIN_EXPORT int notAPlugin() { return 0; }
#endif
