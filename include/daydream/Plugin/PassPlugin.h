//===- PassPlugin.h - Out-of-tree passes and scheduling policies -*- C++
//-*-===//
//
// A plugin is a shared library that exports one C function,
// ddGetPluginInfo(), returning a DdPluginInfo: the plugin API version it was
// built for, its name and version, and a callback that registers its passes
// (and, for dd-sim, its scheduling policies) with a PluginRegistrar. dd-opt
// and dd-sim load plugins with -load-pass-plugin=PATH; the passes then work
// in -passes= pipelines, as per-pass flags and in -print-passes, exactly as
// built-in ones. This is LLVM's llvmGetPassPluginInfo() scheme.
//
// A plugin links no Daydream library: it uses the symbols of the tool that
// loads it (the tools export theirs), so it shares the tool's registries and
// its graph. docs/WritingAPass.md walks through one from an empty folder;
// examples/activation-offload is a complete one.
//
//   extern "C" DD_PLUGIN_EXPORT DdPluginInfo ddGetPluginInfo() {
//     return {DD_PLUGIN_API_VERSION, "my-plugin", "1.0",
//             [](dd::PluginRegistrar &R) {
//               R.addPass({"my-pass", "", "what it models", createMyPass,
//                          printMyPassOptions});
//             }};
//   }
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_PLUGIN_PASSPLUGIN_H
#define DAYDREAM_PLUGIN_PASSPLUGIN_H

#include "daydream/Pass/PassRegistry.h"
#include "daydream/Sim/SchedulingPolicy.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

/// Bumped whenever DdPluginInfo, PluginRegistrar or the classes a plugin
/// builds on (PassInfo, PassConcept, AnalysisManager, Graph,
/// SchedulingPolicy) change in a way that breaks plugins built before.
/// 2: PassConcept::isPrinter(), a new virtual, and AnalysisManager's
/// statistics. 3: PassConcept's traits() replaces its three trait virtuals
/// (a new trait is a new bit, no new virtual); PassInfo holds the traits
/// and lists its options as data (Options) rather than printing them;
/// Graph's reader internals moved to GraphBuilder. 4: Metadata holds the
/// pipelines that made the graph (provenance), so Graph grew. 5: the task
/// and edge arrays keep the mapping they grow into (TaskStore.h), so Graph
/// grew again.
#define DD_PLUGIN_API_VERSION 5

#define DD_PLUGIN_EXPORT __attribute__((visibility("default")))

namespace dd {

/// A scheduling policy a plugin provides, for dd-sim -policy=NAME.
struct PolicyInfo {
  std::string Name;
  std::string Description;
  std::function<std::unique_ptr<SchedulingPolicy>()> Create;
};

/// What a plugin's registration callback adds to. Name clashes are not the
/// plugin's to handle: the loader reports them, naming the plugin.
class PluginRegistrar {
public:
  void addPass(PassInfo Info) { Passes.push_back(std::move(Info)); }
  void addPolicy(PolicyInfo Info) { Policies.push_back(std::move(Info)); }

  std::vector<PassInfo> Passes;
  std::vector<PolicyInfo> Policies;
};

} // namespace dd

extern "C" {
/// What ddGetPluginInfo() returns.
struct DdPluginInfo {
  /// DD_PLUGIN_API_VERSION as the plugin saw it when it was built.
  uint32_t APIVersion;
  const char *PluginName;
  const char *PluginVersion;
  /// Adds the plugin's passes and policies; called once, after loading.
  void (*Register)(dd::PluginRegistrar &);
};

/// The entry point every plugin defines.
DD_PLUGIN_EXPORT DdPluginInfo ddGetPluginInfo();
}

#endif // DAYDREAM_PLUGIN_PASSPLUGIN_H
