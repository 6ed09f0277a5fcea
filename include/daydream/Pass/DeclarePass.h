//===- DeclarePass.h - A pass declares itself once --------------*- C++ -*-===//
//
// A pass is a value type that says, in its own class, everything the
// registry, the pipeline parser, dd-opt's flags, --help and the docs need:
//
// clang-format off
//   class ScaleTasks {
//   public:
//     static constexpr const char *Name = "scale-tasks";
//     static constexpr const char *Description = "Scale ... by a factor";
//     using OptionsT = ScaleTasksOptions;        // a struct of plain values
//     static constexpr auto Declare = &declare;  // (PassOptionParser &, OptionsT &)
//     static constexpr auto Validate = &validate; // optional: (const OptionsT &) -> Error
//     static constexpr const char *Flag = "amp"; // optional: a short dd-opt flag
//     static constexpr bool IsPrinter = true;    // optional traits (PassManager.h):
//                                                // IsPrinter, AddsTasks,
//                                                // HandlesRankCopies, NeedsCollectives
//     explicit ScaleTasks(OptionsT O);
//     llvm::Expected<PreservedAnalyses> run(Graph &, AnalysisManager &);
//   };
// clang-format on
//
// passInfo<ScaleTasks>() is then its registry entry, for a built-in pass
// (Passes.def) and a plugin's (PluginRegistrar::addPass()) alike, and
// makePass<ScaleTasks>(Options) builds it from typed options, as
// PassRegistry::createPass() does from text.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_PASS_DECLAREPASS_H
#define DAYDREAM_PASS_DECLAREPASS_H

#include "daydream/Pass/PassOptions.h"
#include "daydream/Pass/PassRegistry.h"

#include <type_traits>

namespace dd {

namespace detail {
template <typename PassT, typename = void> struct PassFlag {
  static constexpr const char *get() { return ""; }
};
template <typename PassT>
struct PassFlag<PassT, std::void_t<decltype(PassT::Flag)>> {
  static constexpr const char *get() { return PassT::Flag; }
};
template <typename PassT, typename = void> struct PassValidate {
  static llvm::Error run(const typename PassT::OptionsT &) {
    return llvm::Error::success();
  }
};
template <typename PassT>
struct PassValidate<PassT, std::void_t<decltype(PassT::Validate)>> {
  static llvm::Error run(const typename PassT::OptionsT &O) {
    return PassT::Validate(O);
  }
};
} // namespace detail

/// The registry entry of the pass type \p PassT (see the file comment).
template <typename PassT> PassInfo passInfo() {
  using OptionsT = typename PassT::OptionsT;
  return PassInfo{
      PassT::Name,
      detail::PassFlag<PassT>::get(),
      PassT::Description,
      traitsOf<PassT>(),
      [](llvm::StringRef Text) {
        return buildPass<PassT, OptionsT>(PassT::Name, Text, PassT::Declare,
                                          detail::PassValidate<PassT>::run);
      },
      [] { return optionDocs<OptionsT>(PassT::Name, PassT::Declare); }};
}

/// \p PassT built from typed options, validated as from text; it prints
/// back as the pipeline text that would build it.
template <typename PassT>
llvm::Expected<std::unique_ptr<PassConcept>>
makePass(typename PassT::OptionsT O) {
  if (llvm::Error E = detail::PassValidate<PassT>::run(O))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "pass '" + std::string(PassT::Name) +
                                       "': " + llvm::toString(std::move(E)));
  PassOptionParser P(PassT::Name);
  typename PassT::OptionsT Printed = O;
  PassT::Declare(P, Printed);
  return std::make_unique<PassModel<PassT>>(PassT::Name, P.print(),
                                            PassT(std::move(O)));
}

} // namespace dd

#endif // DAYDREAM_PASS_DECLAREPASS_H
