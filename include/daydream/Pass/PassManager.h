//===- PassManager.h - Passes and the pipeline that runs them ---*- C++ -*-===//
//
// A pass is a small value type with
//   llvm::Expected<PreservedAnalyses> run(Graph &, AnalysisManager &);
// that says which analyses survive it; it may fail (returning an Error) when
// the graph lacks what it models. PassConcept erases the type so pipelines
// can hold any pass, built-in or from a plugin. The PassManager runs them in
// order with the instrumentation dd-opt exposes: -verify-each,
// -print-after-all, -time-passes and -debug-pass-manager.
//
// What else a pass is, it says in its type, once, as traits the pass
// manager and the tools read (PassTraits below):
//   static constexpr bool IsPrinter = true;  // reports, changes nothing
//   static constexpr bool AddsTasks = true;  // adds tasks
//   static constexpr bool HandlesRankCopies = true;  // sees rank copies
//   static constexpr bool NeedsCollectives = true;  // models collectives
//   static constexpr bool IsRankLocal = true;  // rank by rank, see below
// A graph may store ranks as copies of another (IR/RankCopies.h): before a
// pass that does not handle them, the PassManager expands every copy. A
// pass that adds tasks makes dd-opt copy the tasks of its input at load
// instead of using them in place (IRReader.h), since the first task added
// would copy them anyway (a hint for speed). A printer's pipeline reads its
// input in place. A pass that needs collectives is skipped, with a warning,
// on a graph that has no collective task.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_PASS_PASSMANAGER_H
#define DAYDREAM_PASS_PASSMANAGER_H

#include "daydream/Pass/AnalysisManager.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace dd {

class Graph;

/// One trait of a pass (see the file comment).
enum class PassTrait : uint32_t {
  Printer = 1u << 0,
  AddsTasks = 1u << 1,
  HandlesRankCopies = 1u << 2,
  NeedsCollectives = 1u << 3,
  /// Changes each rank's tasks from what that rank's own tasks say, and no
  /// collective: a split job's ranks can each go through it alone (dd-opt
  /// on a split job) and give what the whole job would.
  RankLocal = 1u << 4,
};

/// A pass's traits, as bits: a new trait takes a new bit and changes no
/// layout or virtual table a plugin was built against.
struct PassTraits {
  uint32_t Bits = 0;
  bool has(PassTrait T) const { return Bits & uint32_t(T); }
  PassTraits &add(PassTrait T, bool If = true) {
    if (If)
      Bits |= uint32_t(T);
    return *this;
  }
  /// The traits, for people: "printer, adds tasks", or "" for none.
  std::string describe() const;
};

class PassConcept {
public:
  virtual ~PassConcept();
  /// The registered name, e.g. "scale-tasks".
  virtual llvm::StringRef name() const = 0;
  /// Prints the pass as it would be written in -passes=, with every option:
  /// "scale-tasks{factor=0.5 kind=kernel}". The output parses back.
  virtual void printPipeline(llvm::raw_ostream &OS) const = 0;
  virtual llvm::Expected<PreservedAnalyses> run(Graph &G,
                                                AnalysisManager &AM) = 0;
  /// What the pass's type declares about it (see the file comment).
  virtual PassTraits traits() const = 0;

  bool handlesRankCopies() const {
    return traits().has(PassTrait::HandlesRankCopies);
  }
  bool addsTasks() const { return traits().has(PassTrait::AddsTasks); }
  bool isPrinter() const { return traits().has(PassTrait::Printer); }
  bool needsCollectives() const {
    return traits().has(PassTrait::NeedsCollectives);
  }
  bool isRankLocal() const { return traits().has(PassTrait::RankLocal); }
};

namespace detail {
#define DD_PASS_TRAIT_MEMBER(Member)                                           \
  template <typename PassT, typename = void>                                   \
  struct Member : std::false_type {};                                          \
  template <typename PassT>                                                    \
  struct Member<PassT, std::void_t<decltype(PassT::Member)>>                   \
      : std::bool_constant<PassT::Member> {};
DD_PASS_TRAIT_MEMBER(IsPrinter)
DD_PASS_TRAIT_MEMBER(AddsTasks)
DD_PASS_TRAIT_MEMBER(HandlesRankCopies)
DD_PASS_TRAIT_MEMBER(NeedsCollectives)
DD_PASS_TRAIT_MEMBER(IsRankLocal)
#undef DD_PASS_TRAIT_MEMBER
} // namespace detail

/// The traits the pass type \p PassT declares.
template <typename PassT> PassTraits traitsOf() {
  return PassTraits()
      .add(PassTrait::Printer, detail::IsPrinter<PassT>::value)
      .add(PassTrait::AddsTasks, detail::AddsTasks<PassT>::value)
      .add(PassTrait::HandlesRankCopies,
           detail::HandlesRankCopies<PassT>::value)
      .add(PassTrait::NeedsCollectives, detail::NeedsCollectives<PassT>::value)
      .add(PassTrait::RankLocal, detail::IsRankLocal<PassT>::value);
}

/// Wraps a pass value type. \p Options is its canonical option text.
template <typename PassT> class PassModel final : public PassConcept {
public:
  PassModel(llvm::StringRef Name, std::string Options, PassT P)
      : Name(Name.str()), Options(std::move(Options)), Pass(std::move(P)) {}

  llvm::StringRef name() const override { return Name; }
  void printPipeline(llvm::raw_ostream &OS) const override {
    OS << Name;
    if (!Options.empty())
      OS << '{' << Options << '}';
  }
  llvm::Expected<PreservedAnalyses> run(Graph &G,
                                        AnalysisManager &AM) override {
    return Pass.run(G, AM);
  }
  PassTraits traits() const override { return traitsOf<PassT>(); }

private:
  std::string Name;
  std::string Options;
  PassT Pass;
};

struct PassInstrumentation {
  /// Run the verifier after every pass; a failure stops the pipeline.
  bool VerifyEach = false;
  /// Print the graph (text form) to Log after every pass.
  bool PrintAfterAll = false;
  /// Collect per-pass wall time and print a report to Log at the end.
  bool TimePasses = false;
  /// Log every pass and analysis run and every invalidation.
  bool DebugPassManager = false;
  /// Count what each pass changed in the graph (tasks inserted, removed,
  /// re-timed) into the AnalysisManager's statistics (-stats).
  bool Stats = false;
  llvm::raw_ostream *Log = &llvm::errs();
};

class PassManager {
public:
  void addPass(std::unique_ptr<PassConcept> P) {
    Passes.push_back(std::move(P));
  }
  size_t size() const { return Passes.size(); }
  bool empty() const { return Passes.empty(); }
  /// Whether any pass of the pipeline adds tasks.
  bool addsTasks() const {
    for (const auto &P : Passes)
      if (P->addsTasks())
        return true;
    return false;
  }
  /// Whether no pass changes the graph: every one is a printer (or there
  /// is none).
  bool onlyPrinters() const {
    for (const auto &P : Passes)
      if (!P->isPrinter())
        return false;
    return true;
  }
  /// The first pass that cannot run rank by rank (PassTrait::RankLocal),
  /// or null where every one can.
  const PassConcept *firstNotRankLocal() const {
    for (const auto &P : Passes)
      if (!P->isRankLocal())
        return P.get();
    return nullptr;
  }

  /// Runs every pass in order. An error names the pass that failed.
  /// \p Changed, if given, is set to whether a pass changed the graph (did
  /// not preserve every analysis): dd-opt records the pipeline in the
  /// graph's provenance only then, so a pass with nothing to act on leaves
  /// a replay a replay.
  llvm::Error run(Graph &G, AnalysisManager &AM,
                  const PassInstrumentation &PI = {},
                  bool *Changed = nullptr) const;

  /// Prints the pipeline as comma-separated passes; it parses back.
  void printPipeline(llvm::raw_ostream &OS) const;

private:
  std::vector<std::unique_ptr<PassConcept>> Passes;
};

} // namespace dd

#endif // DAYDREAM_PASS_PASSMANAGER_H
