//===- PassOptions.h - Options that live with each pass ---------*- C++ -*-===//
//
// A pass declares its options once, binding each key to a field of its own
// options struct; the same declaration then parses "key=value key=value" text
// (from -passes='name{...}' or a per-pass flag -name='...'), prints the
// canonical text that -print-pipeline-passes shows, and lists the options in
// -print-passes. Values may be quoted with double quotes to hold spaces,
// commas or braces.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_PASS_PASSOPTIONS_H
#define DAYDREAM_PASS_PASSOPTIONS_H

#include "daydream/Pass/PassManager.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <string>
#include <vector>

namespace dd {

/// One option of a pass, as -print-passes and -print-pass-docs show it.
struct PassOptionDoc {
  std::string Key;
  /// The default, printed as the option would be written ("" for empty).
  std::string Default;
  std::string Description;
};

class PassOptionParser {
public:
  /// Parses one value into its field; the message of a failure says what
  /// was expected ("a number", ...).
  using ParseFn = std::function<llvm::Error(llvm::StringRef Value)>;
  /// Prints the field's current value in a form ParseFn accepts.
  using PrintFn = std::function<void(llvm::raw_ostream &OS)>;

  explicit PassOptionParser(llvm::StringRef PassName) : PassName(PassName) {}

  void add(llvm::StringRef Key, llvm::StringRef Desc, ParseFn Parse,
           PrintFn Print);
  void add(llvm::StringRef Key, double &V, llvm::StringRef Desc);
  void add(llvm::StringRef Key, int64_t &V, llvm::StringRef Desc);
  void add(llvm::StringRef Key, bool &V, llvm::StringRef Desc);
  void add(llvm::StringRef Key, std::string &V, llvm::StringRef Desc);

  /// Parses whitespace-separated key=value pairs. Errors name the pass.
  llvm::Error parse(llvm::StringRef Text);
  /// Every option with its current value, in declaration order.
  std::string print() const;
  /// Every option with its current value and description.
  std::vector<PassOptionDoc> docs() const;

private:
  struct Option {
    std::string Key, Desc;
    ParseFn Parse;
    PrintFn Print;
  };
  std::string PassName;
  std::vector<Option> Options;
};

/// Prints \p V quoted if it would not parse back as a bare value.
void printOptionValue(llvm::raw_ostream &OS, llvm::StringRef V);

/// An error in a pass's options; buildPass() prefixes it with the pass's
/// name. For validate() functions and option parsers.
llvm::Error optionError(const llvm::Twine &Msg);

/// The most a pass option may multiply durations by, and the least positive
/// amount it may divide them by (its inverse): a millionfold change is past
/// any what-if of the recorded run, and a factor beyond it would wrap or
/// saturate the nanosecond arithmetic (a duration is at most 2^60 ns).
constexpr double MaxDurationFactor = 1e6;

/// An error naming \p Key unless \p V is a factor a pass may multiply
/// durations by: in [0, MaxDurationFactor], or (0, MaxDurationFactor] if
/// \p Positive (a divisor; then it must also be at least its inverse).
llvm::Error checkDurationFactor(llvm::StringRef Key, double V,
                                bool Positive = false);

/// Builds a type-erased pass from a pass value type constructible from its
/// options struct: declares the options with \p Declare, parses \p Text into
/// them, and remembers the canonical text for -print-pipeline-passes.
/// \p Validate may reject parsed values.
template <typename PassT, typename OptionsT, typename DeclareFn>
llvm::Expected<std::unique_ptr<PassConcept>> buildPass(
    llvm::StringRef Name, llvm::StringRef Text, DeclareFn Declare,
    llvm::function_ref<llvm::Error(const OptionsT &)> Validate =
        [](const OptionsT &) { return llvm::Error::success(); }) {
  OptionsT O;
  PassOptionParser P(Name);
  Declare(P, O);
  if (llvm::Error E = P.parse(Text))
    return std::move(E);
  if (llvm::Error E = Validate(O))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "pass '" + Name.str() +
                                       "': " + llvm::toString(std::move(E)));
  return std::make_unique<PassModel<PassT>>(Name, P.print(), PassT(O));
}

/// The options that \p Declare declares, with their defaults.
template <typename OptionsT, typename DeclareFn>
std::vector<PassOptionDoc> optionDocs(llvm::StringRef Name, DeclareFn Declare) {
  OptionsT O;
  PassOptionParser P(Name);
  Declare(P, O);
  return P.docs();
}

/// The synopsis of a pass with every option at its default:
/// "scale-tasks{factor=1 kind=all ...}" (the name alone if it has none).
std::string passSynopsis(llvm::StringRef Name,
                         llvm::ArrayRef<PassOptionDoc> Options);

} // namespace dd

#endif // DAYDREAM_PASS_PASSOPTIONS_H
