//===- JobAssembler.cpp - A job's graph, one rank at a time ---------------===//

#include "JobAssembler.h"

#include "FoldRanks.h"
#include "MatchCollectives.h"

#include "llvm/Support/FormatVariadic.h"

using namespace dd;
using namespace dd::import;

bool JobAssembler::addRank(RankGraph &&R, llvm::StringRef Name, uint64_t Hash) {
  Names[R.Rank] = Name.str();
  if (!Reserved) {
    // Room for every rank (pages of ranks that turn out to be copies are
    // never touched, so they cost no memory).
    Job.reserve(R.G.numTasks() * ToStore * 9 / 8,
                R.G.edgeSlots().size() * ToStore * 9 / 8,
                R.G.attrSlots().size() * ToStore);
    Reserved = true;
  }
  const RankSpan *Same = nullptr;
  if (Fold)
    for (auto [It, End] = ByHash.equal_range(Hash); It != End && !Same; ++It)
      if (sameAsAppended(Job, Whole.at(It->second), R.G))
        Same = &Whole.at(It->second);
  if (Same) {
    appendRankCopy(Job, std::move(R), *Same, Devices);
    ++Copies;
    return true;
  }
  const int32_t Rank = R.Rank;
  Whole[Rank] = appendRankGraph(Job, std::move(R), Devices);
  ByHash.emplace(Hash, Rank);
  return false;
}

llvm::Error JobAssembler::addPromisedCopy(RankGraph &&R, llvm::StringRef Name,
                                          int32_t SameAs,
                                          const CopyLaneFn &CopyLane) {
  auto Of = Whole.find(SameAs);
  if (Of == Whole.end())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("{0}: said to be the same as rank {1}, which is not a "
                      "rank stored before it",
                      Name, SameAs)
            .str());
  Names[R.Rank] = Name.str();
  appendRankCopy(Job, std::move(R), Of->second, Devices, CopyLane);
  ++Copies;
  return llvm::Error::success();
}

llvm::Error JobAssembler::finish(CollectiveStats &Stats,
                                 std::vector<std::string> &Warnings) {
  return matchCollectives(Job, Names, Stats, Warnings);
}
