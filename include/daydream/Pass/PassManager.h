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
// A graph may store ranks as copies of another (IR/RankCopies.h). A pass
// sees them only if its type says it is written for them
//   static constexpr bool HandlesRankCopies = true;
// (it changes a representative's tasks as it would each of its copies');
// before any other pass, the PassManager expands every copy.
//
// A pass that adds tasks says so
//   static constexpr bool AddsTasks = true;
// so that dd-opt copies the tasks of its input at load instead of using
// them in place (IRReader.h): the first task added would copy them anyway.
// It is a hint for speed; a pass that adds tasks without it works as well.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_PASS_PASSMANAGER_H
#define DAYDREAM_PASS_PASSMANAGER_H

#include "daydream/Pass/AnalysisManager.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace dd {

class Graph;

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
  /// Whether the pass may see ranks stored as copies (see above).
  virtual bool handlesRankCopies() const { return false; }
  /// Whether the pass adds tasks (see above).
  virtual bool addsTasks() const { return false; }
  /// Whether the pass only reports on the graph (print<...>), changing
  /// nothing: a pipeline of printers reads its input in place.
  virtual bool isPrinter() const { return false; }
};

namespace detail {
template <typename PassT, typename = void>
struct HandlesRankCopies : std::false_type {};
template <typename PassT>
struct HandlesRankCopies<PassT, std::void_t<decltype(PassT::HandlesRankCopies)>>
    : std::bool_constant<PassT::HandlesRankCopies> {};
template <typename PassT, typename = void>
struct AddsTasks : std::false_type {};
template <typename PassT>
struct AddsTasks<PassT, std::void_t<decltype(PassT::AddsTasks)>>
    : std::bool_constant<PassT::AddsTasks> {};
template <typename PassT, typename = void>
struct IsPrinter : std::false_type {};
template <typename PassT>
struct IsPrinter<PassT, std::void_t<decltype(PassT::IsPrinter)>>
    : std::bool_constant<PassT::IsPrinter> {};
} // namespace detail

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
  bool handlesRankCopies() const override {
    return detail::HandlesRankCopies<PassT>::value;
  }
  bool addsTasks() const override { return detail::AddsTasks<PassT>::value; }
  bool isPrinter() const override { return detail::IsPrinter<PassT>::value; }

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

  /// Runs every pass in order. An error names the pass that failed.
  llvm::Error run(Graph &G, AnalysisManager &AM,
                  const PassInstrumentation &PI = {}) const;

  /// Prints the pipeline as comma-separated passes; it parses back.
  void printPipeline(llvm::raw_ostream &OS) const;

private:
  std::vector<std::unique_ptr<PassConcept>> Passes;
};

} // namespace dd

#endif // DAYDREAM_PASS_PASSMANAGER_H
