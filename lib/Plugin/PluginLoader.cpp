//===- PluginLoader.cpp - Loading plugins into a tool ---------------------===//
//
// The library stays loaded for the life of the process (its passes' code
// and their PassInfo callbacks live in it). Registrations go through a
// PluginRegistrar first, so that a clash is reported with the plugin's name
// rather than left to the plugin to handle.
//
//===----------------------------------------------------------------------===//

#include "daydream/Plugin/PluginLoader.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"

using namespace dd;
using llvm::StringRef;

static llvm::Error pluginError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// Checks and adds a plugin's policies, whose names must be new.
static llvm::Error addPolicies(std::vector<PolicyInfo> &From,
                               std::vector<PolicyInfo> &To) {
  for (PolicyInfo &P : From) {
    bool Taken =
        llvm::is_contained(builtinPolicyNames(), StringRef(P.Name)) ||
        llvm::any_of(To, [&](const PolicyInfo &Q) { return Q.Name == P.Name; });
    if (Taken)
      return pluginError("scheduling policy '" + P.Name +
                         "' is already defined");
    if (!P.Create)
      return pluginError("scheduling policy '" + P.Name +
                         "' has no constructor");
    To.push_back(std::move(P));
  }
  return llvm::Error::success();
}

llvm::Expected<LoadedPlugin> dd::loadPlugin(StringRef Path,
                                            PluginTargets Targets) {
  // A bare file name is a file here, not a name for the loader to look for
  // in the library path.
  std::string Open = Path.str();
  if (!Path.contains('/') && llvm::sys::fs::exists(Path))
    Open = "./" + Open;
  std::string Err;
  auto Lib = llvm::sys::DynamicLibrary::getPermanentLibrary(Open.c_str(), &Err);
  if (!Lib.isValid())
    return pluginError("could not load plugin '" + Path + "': " + Err);
  using InfoFn = DdPluginInfo (*)();
  auto GetInfo =
      reinterpret_cast<InfoFn>(Lib.getAddressOfSymbol("ddGetPluginInfo"));
  if (!GetInfo)
    return pluginError("'" + Path +
                       "' is not a Daydream plugin: it has no "
                       "ddGetPluginInfo() entry point");
  DdPluginInfo Info = GetInfo();
  if (Info.APIVersion != DD_PLUGIN_API_VERSION)
    return pluginError("plugin '" + Path +
                       "' was built for plugin API "
                       "version " +
                       llvm::Twine(Info.APIVersion) +
                       "; this tool loads version " +
                       llvm::Twine(DD_PLUGIN_API_VERSION) +
                       " (rebuild it against this Daydream)");
  LoadedPlugin Loaded{Path.str(), Info.PluginName ? Info.PluginName : "",
                      Info.PluginVersion ? Info.PluginVersion : ""};
  auto Named = [&](llvm::Error E) {
    return pluginError("plugin '" + Loaded.Name + "' (" + Path +
                       "): " + llvm::toString(std::move(E)));
  };
  if (!Info.Register)
    return Named(pluginError("no registration callback"));

  PluginRegistrar R;
  Info.Register(R);
  for (PassInfo &P : R.Passes) {
    if (!P.Create || !P.Options)
      return Named(pluginError("pass '" + P.Name +
                               "' lacks its constructor or option list"));
    if (llvm::Error E = Targets.Passes->registerPass(std::move(P)))
      return Named(std::move(E));
  }
  if (Targets.Policies)
    if (llvm::Error E = addPolicies(R.Policies, *Targets.Policies))
      return Named(std::move(E));
  return Loaded;
}

std::vector<std::string>
dd::pluginPathsInArgs(llvm::ArrayRef<const char *> Args) {
  std::vector<std::string> Paths;
  for (size_t I = 1; I < Args.size(); ++I) {
    StringRef A = Args[I];
    if (A == "--")
      break;
    if (!A.consume_front("--"))
      A.consume_front("-");
    if (!A.consume_front(LoadPluginOption))
      continue;
    if (A.consume_front("="))
      Paths.push_back(A.str());
    else if (A.empty() && I + 1 < Args.size())
      Paths.push_back(Args[++I]);
  }
  return Paths;
}

llvm::Expected<std::unique_ptr<SchedulingPolicy>>
dd::createPolicy(StringRef Name, llvm::ArrayRef<PolicyInfo> PluginPolicies) {
  for (const PolicyInfo &P : PluginPolicies)
    if (P.Name == Name)
      return P.Create();
  return createSchedulingPolicy(Name);
}
