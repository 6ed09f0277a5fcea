//===- SplitJobOpt.cpp - dd-opt of a split job, rank by rank --------------===//

#include "SplitJobOpt.h"

#include "SplitJobWriter.h"
#include "ToolSupport.h"

#include "daydream/IR/Verifier.h"
#include "daydream/Import/JobFile.h"
#include "daydream/Import/JobShare.h"
#include "daydream/Import/SplitJob.h"
#include "daydream/Support/OutputFile.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <memory>

using namespace dd;
using namespace dd::import;

namespace {

/// Each warning, in the order first given, with the ranks that gave it.
class WarningsByRank {
public:
  void add(llvm::StringRef Message, int32_t Rank) {
    auto [It, New] = Index.try_emplace(Message, Seen.size());
    if (New)
      Seen.push_back({Message.str(), {}});
    Seen[It->second].second.push_back(Rank);
  }
  /// Prints each once: as given where every one of \p Ranks ranks gave it,
  /// else with the ranks that did.
  void print(size_t Ranks, llvm::function_ref<void(llvm::StringRef)> Warn) {
    for (const auto &[Message, Gave] : Seen) {
      if (Gave.size() == Ranks) {
        Warn(Message);
        continue;
      }
      std::string Which;
      for (size_t I = 0; I != Gave.size() && I != 8; ++I)
        Which += (I ? ", " : "") + std::to_string(Gave[I]);
      if (Gave.size() > 8)
        Which += ", ...";
      Warn(llvm::formatv("{0} (rank{1} {2}: {3} of {4})", Message,
                         Gave.size() == 1 ? "" : "s", Which, Gave.size(), Ranks)
               .str());
    }
  }

private:
  llvm::StringMap<size_t> Index;
  std::vector<std::pair<std::string, std::vector<int32_t>>> Seen;
};

/// Adds \p From's counters to \p Into's, by pass and name, in the order
/// first counted.
void addStatistics(SplitJobStats &Into, const SplitJobStats &From) {
  for (const AnalysisManager::Statistic &S : From) {
    auto It = llvm::find_if(Into, [&](const AnalysisManager::Statistic &T) {
      return T.Pass == S.Pass && T.Name == S.Name;
    });
    if (It == Into.end())
      Into.push_back(S);
    else
      It->Value += S.Value;
  }
}

/// A task of the job's collectives, as the pipeline found it.
struct CollectiveTask {
  TaskId Id;
  Task Fields;
  uint64_t Bytes; ///< what the network model reads of it
};

uint64_t bytesOf(const Graph &G, TaskId T) {
  const TaskAttrs *A = G.attrs(T);
  return A ? A->Bytes : 0;
}

/// The barriers (tasks on lanes of no rank), the arrivals (with a Comm
/// edge into one) and the members' kernels (with a Sync edge from one) of
/// \p G, and the number of edges into and out of barriers.
std::pair<std::vector<CollectiveTask>, size_t> collectivesOf(const Graph &G) {
  auto IsBarrier = [&](TaskId T) { return G.lane(G.task(T).Lane).Rank < 0; };
  std::vector<uint8_t> Is(G.numTaskSlots(), 0);
  size_t Edges = 0;
  for (const Edge &E : G.edgeSlots()) {
    if (!G.isLive(E))
      continue;
    if (IsBarrier(E.Src) && E.Kind == EdgeKind::Sync)
      Is[E.Dst] = 1;
    if (IsBarrier(E.Dst) && E.Kind == EdgeKind::Comm)
      Is[E.Src] = 1;
    Edges += IsBarrier(E.Src) || IsBarrier(E.Dst);
  }
  std::vector<CollectiveTask> Tasks;
  for (TaskId T = 0; T != G.numTaskSlots(); ++T)
    if (G.isLive(T) && (Is[T] || IsBarrier(T)))
      Tasks.push_back({T, G.task(T), bytesOf(G, T)});
  return {std::move(Tasks), Edges};
}

/// Whether \p PM leaves the job's collectives as they are: run over the
/// first rank's share of the job \p J (SplitJobOpt.h).
llvm::Error checkLeavesCollectives(llvm::StringRef InPath, const JobFile &J,
                                   const PassManager &PM) {
  if (J.Ranks.size() < 2)
    return llvm::Error::success();
  auto Share =
      readJobShare(InPath, J, {J.Ranks.front().Rank}, GraphUse::Change);
  if (!Share)
    return Share.takeError();
  const auto [Before, EdgesBefore] = collectivesOf(*Share);
  AnalysisManager AM(nullptr);
  AM.setWarningHandler([](llvm::StringRef) {});
  if (llvm::Error E = PM.run(*Share, AM))
    return splitJobError(
        InPath + ": rank " + llvm::Twine(J.Ranks.front().Rank) +
        "'s share of the job: " + llvm::toString(std::move(E)));
  auto Same = [&](const CollectiveTask &C) {
    if (!Share->isLive(C.Id))
      return false;
    const Task &T = Share->task(C.Id);
    return T.StartNs == C.Fields.StartNs &&
           T.DurationNs == C.Fields.DurationNs && T.GapNs == C.Fields.GapNs &&
           T.Name == C.Fields.Name && T.Lane == C.Fields.Lane &&
           T.Kind == C.Fields.Kind && bytesOf(*Share, C.Id) == C.Bytes;
  };
  if (llvm::all_of(Before, Same) && collectivesOf(*Share).second == EdgesBefore)
    return llvm::Error::success();
  return splitJobError(InPath +
                       ": the pipeline changes the job's collectives (a "
                       "barrier, an arrival or a member's kernel, which only "
                       "the job read whole has), so its ranks cannot go "
                       "through it one at a time: write one file (-o "
                       "FILE.ddir) instead");
}

} // namespace

llvm::Expected<SplitJobStats>
dd::optimizeSplitJob(llvm::StringRef InPath, llvm::StringRef OutPath,
                     const PassManager &PM, const PassInstrumentation &PI,
                     const SplitJobOptOptions &Opts) {
  if (const PassConcept *P = PM.firstNotRankLocal())
    return splitJobError(
        InPath + ": '" + P->name() +
        "' needs the whole job in one graph, so a split job cannot "
        "go through it rank by rank: write one file (-o FILE.ddir) "
        "instead");
  if (llvm::Error E = checkJobPath(OutPath, "dd-opt of a split job writes "
                                            "a file per rank beside the job "
                                            "file"))
    return std::move(E);
  auto J = readJobFile(InPath);
  if (!J)
    return J.takeError();
  if (llvm::Error E = checkLeavesCollectives(InPath, *J, PM))
    return std::move(E);

  SplitJobStats Stats;
  WarningsByRank Warnings;
  JobFile Out;
  Out.World = J->World;
  std::vector<RankTable> Tables;
  std::vector<std::unique_ptr<OutputFile>> Outputs;
  const GraphUse Use =
      PM.onlyPrinters() ? GraphUse::ReadInPlace : GraphUse::Change;
  for (const JobFile::Rank &R : J->Ranks) {
    auto G = readRankFile(InPath, *J, R, Use);
    if (!G)
      return G.takeError();
    AnalysisManager AM(Opts.DebugPM ? &llvm::errs() : nullptr);
    AM.setWarningHandler(
        [&](llvm::StringRef Message) { Warnings.add(Message, R.Rank); });
    bool Changed = false;
    if (llvm::Error E = PM.run(*G, AM, PI, &Changed))
      return splitJobError(InPath + ": rank " + llvm::Twine(R.Rank) + ": " +
                           llvm::toString(std::move(E)));
    addStatistics(Stats, AM.statistics());
    if (Changed)
      recordPipelineRun(*G, PM, Opts.Tool, InPath);
    if (!PI.VerifyEach && !PM.onlyPrinters())
      if (llvm::Error E = verifyGraph(*G))
        return splitJobError(
            InPath + ": rank " + llvm::Twine(R.Rank) +
            ": the pipeline made an invalid graph, not written: " +
            llvm::toString(std::move(E)));

    auto Files = writeRankFiles(*G, OutPath, R.Rank, J->World, R.OriginNs,
                                Opts.Text, Outputs);
    if (!Files)
      return Files.takeError();
    Out.Ranks.push_back(std::move(Files->Entry));
    Tables.push_back(
        RankTable{R.Rank, J->World, R.File, std::move(Files->Table)});
  }
  Warnings.print(J->Ranks.size(), Opts.Warn);

  CollectiveStats Matched;
  std::vector<std::string> LinkWarnings;
  auto Groups = linkCollectives(std::move(Tables), Matched, LinkWarnings);
  if (!Groups)
    return splitJobError(InPath + ": after the pipeline, " +
                         llvm::toString(Groups.takeError()));
  for (const std::string &W : LinkWarnings)
    Opts.Warn(W);
  Out.Groups = std::move(*Groups);
  auto JobOut = OutputFile::create(OutPath);
  if (!JobOut)
    return JobOut.takeError();
  printJobFile(Out, (*JobOut)->os());
  // The ranks first: a job file never names a rank file not yet in place.
  for (std::unique_ptr<OutputFile> &File : Outputs)
    if (llvm::Error E = File->commit())
      return std::move(E);
  if (llvm::Error E = (*JobOut)->commit())
    return std::move(E);
  return std::move(Stats);
}
