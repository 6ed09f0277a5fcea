//===- JobShare.cpp - The ranks of a split job one process simulates ------===//

#include "daydream/Import/JobShare.h"

#include "JobAssembler.h"
#include "SplitJobFiles.h"

#include "daydream/Import/SplitJob.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"

#include <algorithm>

using namespace dd;
using namespace dd::import;
using llvm::StringRef;

std::vector<uint32_t> dd::import::processOfRanks(const JobFile &J,
                                                 unsigned Processes) {
  int32_t Ranks = 0;
  uint64_t Total = 0;
  for (const JobFile::Rank &R : J.Ranks) {
    Ranks = std::max(Ranks, R.Rank + 1);
    Total += R.Bytes;
  }
  std::vector<uint32_t> Of(Ranks, 0);
  if (Processes <= 1 || Total == 0)
    return Of;
  // The job file lists its ranks in rank order.
  uint64_t Before = 0;
  for (const JobFile::Rank &R : J.Ranks) {
    const uint64_t P = (2 * Before + R.Bytes) * Processes / (2 * Total);
    Of[R.Rank] = static_cast<uint32_t>(std::min<uint64_t>(P, Processes - 1));
    Before += R.Bytes;
  }
  return Of;
}

namespace {

/// Rank \p R as its collective table: the one beside the job file, or
/// else beside the rank's file (a job linked from tables gathered
/// elsewhere names its rank files where they are), if it was made from the
/// rank's file as the job file lists it; else cut from that file.
llvm::Expected<Graph> standIn(StringRef JobPath, const JobFile &J,
                              const JobFile::Rank &R) {
  std::string BesideRank = rankPathOf(JobPath, R);
  if (StringRef(BesideRank).endswith(".ddir"))
    BesideRank.replace(BesideRank.size() - 5, 5, ".ddcoll");
  for (const std::string &Path : {rankTablePath(JobPath, R.Rank), BesideRank}) {
    if (!llvm::sys::fs::exists(Path))
      continue;
    auto T = readRankTableFile(Path);
    if (T && T->World == J.World && T->Entry.Rank == R.Rank &&
        T->Entry.Bytes == R.Bytes && T->Entry.Hash == R.Hash)
      return std::move(T->Table);
    // Another job's or an older import's: the rank's file says.
    if (!T)
      llvm::consumeError(T.takeError());
  }
  auto G = readRankFile(JobPath, J, R);
  if (!G)
    return G.takeError();
  return collectiveTable(*G);
}

} // namespace

llvm::Expected<Graph> dd::import::readJobShare(StringRef Path, const JobFile &J,
                                               llvm::ArrayRef<int32_t> Whole,
                                               GraphUse Use) {
  auto Entry = [&](int32_t Rank) {
    return llvm::find_if(
        J.Ranks, [&](const JobFile::Rank &R) { return R.Rank == Rank; });
  };
  // Room for our ranks, reserved at once as a job's import does
  // (JobAssembler.h), from the first of them rather than from whichever
  // rank comes first (a table, a few percent of a rank): its size times
  // their number, with an eighth more, which holds the tables too.
  Graph Job;
  llvm::Optional<Graph> First;
  if (!Whole.empty() && Entry(Whole.front()) != J.Ranks.end()) {
    auto G = readRankFile(Path, J, *Entry(Whole.front()));
    if (!G)
      return G.takeError();
    First = std::move(*G);
    const size_t N = Whole.size();
    Job.reserve(First->numTasks() * N * 9 / 8,
                First->edgeSlots().size() * N * 9 / 8,
                First->attrSlots().size() * N * 9 / 8);
  }
  JobAssembler A(Job, /*ToStore=*/0, /*Fold=*/false);
  const int64_t JobNs = jobOriginNs(J);
  for (const JobFile::Rank &R : J.Ranks) {
    const bool Ours = std::binary_search(Whole.begin(), Whole.end(), R.Rank);
    auto G = First && R.Rank == Whole.front()
                 ? llvm::Expected<Graph>(std::move(*First))
             : Ours ? readRankFile(Path, J, R)
                    : standIn(Path, J, R);
    if (!G)
      return G.takeError();
    if (Ours)
      countFromJobOrigin(*G, R.OriginNs, JobNs);
    A.addRank(RankGraph{R.Rank, J.World, std::move(*G)}, R.File, 0);
  }
  // Once matched, a stand-in's launching calls (its CPU threads' tasks)
  // have done their part, the collectives' order of issue: they are never
  // walked and cross no process, so they are not kept.
  auto DropLaunches = [&](Graph &Matched) {
    for (LaneId L = 0; L != Matched.numLanes(); ++L) {
      const Lane &Ln = Matched.lane(L);
      if (Ln.Kind == LaneKind::CpuThread && Ln.Rank >= 0 &&
          !std::binary_search(Whole.begin(), Whole.end(), Ln.Rank))
        Matched.removeLaneTasks(L);
    }
  };
  return finishJob(Path, J, A, std::move(Job), Use, DropLaunches);
}
