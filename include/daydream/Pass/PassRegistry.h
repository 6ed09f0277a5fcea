//===- PassRegistry.h - Named passes and pipeline parsing ------*- C++ -*-===//
//
// Every pass a tool can run is registered here under its kebab-case name and,
// optionally, a short flag alias (-amp for amp-scale). Built-in passes come
// from the one table include/daydream/Passes/Passes.def through
// registerBuiltinPasses() (Passes/BuiltinPasses.h), which each tool calls
// explicitly from main (a static initializer could be dropped by the
// linker); plugins add theirs through PluginRegistrar. Either way an entry
// is passInfo<PassType>() (Pass/DeclarePass.h).
//
// Pipelines are written "name{key=value ...},name,...": commas separate
// passes except inside braces or quotes.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_PASS_PASSREGISTRY_H
#define DAYDREAM_PASS_PASSREGISTRY_H

#include "daydream/Pass/PassManager.h"
#include "daydream/Pass/PassOptions.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <string>
#include <vector>

namespace dd {

struct PassInfo {
  std::string Name;
  /// A short command-line alias ("amp"), or empty.
  std::string Flag;
  std::string Description;
  /// What the pass's type declares of itself (PassManager.h).
  PassTraits Traits;
  /// Builds the pass from its option text (what is inside the braces).
  std::function<llvm::Expected<std::unique_ptr<PassConcept>>(llvm::StringRef)>
      Create;
  /// The pass's options, with their defaults.
  std::function<std::vector<PassOptionDoc>()> Options;
};

class PassRegistry {
public:
  /// Fails if the name or flag is taken by another pass.
  llvm::Error registerPass(PassInfo Info);

  /// Finds a pass by name or by flag alias.
  const PassInfo *lookup(llvm::StringRef NameOrFlag) const;
  /// Passes sorted by name.
  std::vector<const PassInfo *> passes() const;

  /// Builds one pass from "name" or "name{options}" text.
  llvm::Expected<std::unique_ptr<PassConcept>>
  createPass(llvm::StringRef NameOrFlag, llvm::StringRef Options) const;
  /// Parses a whole -passes= pipeline into \p PM.
  llvm::Error parsePipeline(llvm::StringRef Text, PassManager &PM) const;

  /// Prints every pass with its description and options (-print-passes).
  void printPasses(llvm::raw_ostream &OS) const;
  /// Prints one pass's reference in Markdown (-print-pass-docs=NAME): the
  /// block each docs/passes page holds, which a test compares with it.
  static void printPassDocs(const PassInfo &I, llvm::raw_ostream &OS);

private:
  std::vector<PassInfo> Infos;
  llvm::StringMap<size_t> ByName;
};

} // namespace dd

#endif // DAYDREAM_PASS_PASSREGISTRY_H
