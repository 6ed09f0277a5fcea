//===- PluginLoader.h - Loading plugins into a tool -------------*- C++ -*-===//
//
// What dd-opt and dd-sim do with -load-pass-plugin=PATH: open the library,
// find and check its ddGetPluginInfo() (PassPlugin.h), run its registration
// and add what it registered to the tool's registries. Every failure is an
// error naming the plugin: a file that is not a shared library, a library
// without the entry point, a plugin built for another API version, a pass or
// policy name already taken.
//
// Plugins are loaded before the command line is parsed, because their passes
// become per-pass flags (dd-opt -my-pass): pluginPathsInArgs() finds them.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_PLUGIN_PLUGINLOADER_H
#define DAYDREAM_PLUGIN_PLUGINLOADER_H

#include "daydream/Plugin/PassPlugin.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace dd {

/// The option's name, shared by the tools that load plugins.
inline constexpr const char *LoadPluginOption = "load-pass-plugin";

struct LoadedPlugin {
  std::string Path, Name, Version;
};

/// Where a plugin's registrations go. Policies may be null for a tool that
/// runs no simulation; a plugin's policies are then ignored.
struct PluginTargets {
  PassRegistry *Passes = nullptr;
  std::vector<PolicyInfo> *Policies = nullptr;
};

/// Loads the plugin at \p Path and registers what it provides.
llvm::Expected<LoadedPlugin> loadPlugin(llvm::StringRef Path,
                                        PluginTargets Targets);

/// The PATHs of -load-pass-plugin=PATH and -load-pass-plugin PATH (one or
/// two dashes) in \p Args, in order, up to a "--".
std::vector<std::string> pluginPathsInArgs(llvm::ArrayRef<const char *> Args);

/// The scheduling policy called \p Name: a plugin's, else a built-in one.
llvm::Expected<std::unique_ptr<SchedulingPolicy>>
createPolicy(llvm::StringRef Name, llvm::ArrayRef<PolicyInfo> PluginPolicies);

} // namespace dd

#endif // DAYDREAM_PLUGIN_PLUGINLOADER_H
