//===- AnalysisManager.h - Cached analyses and their invalidation -*- C++ -*-//
//
// In the mould of LLVM's new pass manager: an analysis is a small type with a
// static key, a name() and a run(Graph&, AnalysisManager&) returning its
// Result. The manager computes a result on first request and keeps it until a
// pass reports (through PreservedAnalyses) that it may be stale. Analyses that
// depend only on the graph's structure (which tasks, edges and lane orders
// exist, not their durations) belong to StructureAnalyses, so a pass that only
// rescales durations can keep them all with one call.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_PASS_ANALYSISMANAGER_H
#define DAYDREAM_PASS_ANALYSISMANAGER_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dd {

class Graph;

/// The address of a static AnalysisKey identifies an analysis.
struct AnalysisKey {};
/// The address of a static AnalysisSetKey identifies a set of analyses.
struct AnalysisSetKey {};

/// Analyses that depend only on which tasks and edges exist and on lane
/// order, not on durations, gaps or attributes.
struct StructureAnalyses {
  static AnalysisSetKey *ID();
};

class PreservedAnalyses {
public:
  static PreservedAnalyses all() {
    PreservedAnalyses PA;
    PA.All = true;
    return PA;
  }
  static PreservedAnalyses none() { return PreservedAnalyses(); }

  template <typename AnalysisT> PreservedAnalyses &preserve() {
    Keys.insert(&AnalysisT::Key);
    return *this;
  }
  template <typename SetT> PreservedAnalyses &preserveSet() {
    Sets.insert(SetT::ID());
    return *this;
  }

  bool areAllPreserved() const { return All; }
  /// Whether an analysis with key \p K, member of set \p Set (may be null),
  /// survives.
  bool isPreserved(AnalysisKey *K, AnalysisSetKey *Set) const {
    return All || Keys.count(K) || (Set && Sets.count(Set));
  }

private:
  bool All = false;
  llvm::SmallPtrSet<AnalysisKey *, 4> Keys;
  llvm::SmallPtrSet<AnalysisSetKey *, 2> Sets;
};

/// Analyses that belong to no set say so with this default.
template <typename AnalysisT> struct AnalysisSetOf {
  static AnalysisSetKey *get() { return nullptr; }
};

class AnalysisManager {
public:
  /// \p DebugLog, when set, receives "Running analysis" and "Invalidating
  /// analysis" lines (dd-opt -debug-pass-manager).
  explicit AnalysisManager(llvm::raw_ostream *DebugLog = nullptr)
      : DebugLog(DebugLog) {}

  /// Returns the cached result of \p AnalysisT, computing it if needed.
  template <typename AnalysisT>
  typename AnalysisT::Result &getResult(Graph &G) {
    auto It = Results.find(&AnalysisT::Key);
    if (It == Results.end()) {
      if (DebugLog)
        *DebugLog << "Running analysis: " << AnalysisT::name() << "\n";
      auto Model = std::make_unique<ResultModel<typename AnalysisT::Result>>(
          AnalysisT().run(G, *this));
      It = Results
               .try_emplace(&AnalysisT::Key,
                            Entry{AnalysisT::name(),
                                  AnalysisSetOf<AnalysisT>::get(),
                                  std::move(Model)})
               .first;
    }
    return static_cast<ResultModel<typename AnalysisT::Result> &>(
               *It->second.Result)
        .Value;
  }

  /// Returns the cached result, or null if there is none.
  template <typename AnalysisT>
  typename AnalysisT::Result *getCachedResult() const {
    auto It = Results.find(&AnalysisT::Key);
    if (It == Results.end())
      return nullptr;
    return &static_cast<ResultModel<typename AnalysisT::Result> &>(
                *It->second.Result)
                .Value;
  }

  /// Drops every result that \p PA does not preserve.
  void invalidate(const PreservedAnalyses &PA);
  void clear() { Results.clear(); }

  /// Where printer passes write (stderr unless the tool says otherwise).
  llvm::raw_ostream &reportStream() const { return *Report; }
  void setReportStream(llvm::raw_ostream &OS) { Report = &OS; }

  /// A pass's warning: the graph did not let it do what it was asked (a
  /// selection that matched no task), so its answer may not be the one
  /// meant. The message goes to the handler the tool set (dd-opt prints
  /// "dd-opt: warning: ..."), prefixed with the running pass's name;
  /// without a handler it is dropped. Counted either way.
  using WarningHandler = std::function<void(llvm::StringRef Message)>;
  void setWarningHandler(WarningHandler H) { OnWarning = std::move(H); }
  void warning(const llvm::Twine &Message);
  unsigned numWarnings() const { return Warnings; }
  /// The pass that warnings name; the PassManager sets it before each pass.
  void setCurrentPass(llvm::StringRef Name) { CurrentPass = Name.str(); }

  /// LLVM-style statistics (dd-opt -stats): a pass adds \p N to its counter
  /// \p Name ("tasks selected"); the PassManager adds the graph's own
  /// changes ("tasks inserted", ...). Counters are kept per pass name, in
  /// the order first counted; zero adds nothing.
  struct Statistic {
    std::string Pass;
    std::string Name;
    uint64_t Value = 0;
  };
  void count(llvm::StringRef Name, uint64_t N = 1);
  const std::vector<Statistic> &statistics() const { return Stats; }

private:
  struct ResultConcept {
    virtual ~ResultConcept() = default;
  };
  template <typename ResultT> struct ResultModel : ResultConcept {
    explicit ResultModel(ResultT &&V) : Value(std::move(V)) {}
    ResultT Value;
  };
  struct Entry {
    llvm::StringRef Name;
    AnalysisSetKey *Set;
    std::unique_ptr<ResultConcept> Result;
  };

  llvm::DenseMap<AnalysisKey *, Entry> Results;
  llvm::raw_ostream *DebugLog;
  llvm::raw_ostream *Report = &llvm::errs();
  WarningHandler OnWarning;
  std::string CurrentPass;
  unsigned Warnings = 0;
  std::vector<Statistic> Stats;
  /// Index into Stats by "pass\0name".
  llvm::StringMap<size_t> StatIndex;
};

/// Prints \p Stats as LLVM's -stats does: a banner, then a line a counter,
/// "VALUE PASS - NAME", the columns aligned. Nothing if there are none.
void printStatistics(llvm::raw_ostream &OS,
                     const std::vector<AnalysisManager::Statistic> &Stats);

} // namespace dd

#endif // DAYDREAM_PASS_ANALYSISMANAGER_H
