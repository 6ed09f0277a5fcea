//===- ImportJob.cpp - Several ranks' traces to one graph -----------------===//
//
// Every trace is read before any is lowered, because lowering needs the job's
// time origin: the gap before each lane's first task counts from it, so that
// ranks that started their steps at different moments replay that way. The
// ranks' traces share a clock when they come from one host, or from hosts
// whose clocks were synchronized, as the profiler records wall-clock time;
// nothing else in the job's graph depends on it, since ranks meet only at
// collectives.
//
//===----------------------------------------------------------------------===//

#include "daydream/Import/ImportJob.h"

#include "FoldRanks.h"
#include "JobAssembler.h"
#include "RankThreads.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <numeric>

using namespace dd;
using namespace dd::import;

namespace {

llvm::Error jobError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 Msg.str().c_str());
}

/// The earliest recorded start of anything in \p M that may become a task.
int64_t earliestStart(const TraceModel &M) {
  int64_t T = INT64_MAX;
  for (const CpuRange &R : M.Ranges)
    T = std::min(T, R.StartNs);
  for (const ApiCall &C : M.Calls)
    T = std::min(T, C.StartNs);
  for (const GpuActivity &A : M.Activities)
    T = std::min(T, A.StartNs);
  return T;
}

/// A rank's trace with the rank it was given.
struct ReadRank {
  ImportResult R;
  TraceModel Model;
  int32_t SameAs = -1;
  CopyLaneFn CopyLane;
  int32_t Rank = -1;     ///< -1 until known
  int32_t WorldSize = 0; ///< 0 if not recorded
  int32_t OrderRank = -1, OrderWorld = 0;
};

/// Gives every trace its rank and checks that they make one whole job, or
/// with \p Part, ranks of one job (which then must record their ranks).
llvm::Error assignRanks(std::vector<ReadRank> &Traces, bool Part) {
  size_t WithRank = 0;
  for (ReadRank &T : Traces)
    if (!T.Model.Meta.Ranks.empty()) {
      T.Rank = T.Model.Meta.Ranks.front().Rank;
      T.WorldSize = T.Model.Meta.Ranks.front().WorldSize;
      ++WithRank;
    }
  if (WithRank == 0 && Part &&
      std::all_of(Traces.begin(), Traces.end(),
                  [](const ReadRank &T) { return T.OrderRank >= 0; })) {
    for (ReadRank &T : Traces) {
      T.Rank = T.OrderRank;
      T.WorldSize = T.OrderWorld;
    }
    return llvm::Error::success();
  }
  if (WithRank == 0 && Part)
    return jobError(Traces.front().R.Name +
                    ": no rank recorded (distributedInfo): the ranks of a "
                    "job imported apart must each say which they are");
  if (WithRank == 0) {
    for (size_t I = 0; I != Traces.size(); ++I) {
      Traces[I].Rank = int32_t(I);
      Traces[I].WorldSize = int32_t(Traces.size());
    }
    return llvm::Error::success();
  }
  for (const ReadRank &T : Traces)
    if (T.Rank < 0)
      return jobError(T.R.Name + ": no rank recorded (distributedInfo), "
                                 "while other inputs have one; give either "
                                 "all ranks' traces or traces without ranks");
  std::sort(
      Traces.begin(), Traces.end(),
      [](const ReadRank &A, const ReadRank &B) { return A.Rank < B.Rank; });
  std::vector<RankOfJob> Ranks;
  Ranks.reserve(Traces.size());
  for (const ReadRank &T : Traces)
    Ranks.push_back(RankOfJob{T.Rank, T.WorldSize, T.R.Name});
  if (llvm::Error E = checkRanksOfJob(Ranks, /*Whole=*/!Part, "trace"))
    return E;
  if (Part && Traces.front().WorldSize <= 0)
    return jobError(Traces.front().R.Name +
                    ": no world size recorded (distributedInfo): the ranks "
                    "of a job imported apart must say how many there are");
  return llvm::Error::success();
}

} // namespace

llvm::Error dd::import::checkRanksOfJob(llvm::ArrayRef<RankOfJob> Ranks,
                                        bool Whole, llvm::StringRef Of) {
  if (Ranks.empty())
    return llvm::Error::success();
  const RankOfJob &First = Ranks.front();
  for (size_t I = 1; I < Ranks.size(); ++I)
    if (Ranks[I].Rank == Ranks[I - 1].Rank)
      return jobError(llvm::formatv("{0} and {1} are both rank {2}",
                                    Ranks[I - 1].Name, Ranks[I].Name,
                                    Ranks[I].Rank));
  for (const RankOfJob &R : Ranks)
    if (R.World != First.World)
      return jobError(llvm::formatv(
          "ranks of different jobs: {0} is rank {1} of {2}, but {3} is rank "
          "{4} of {5}",
          First.Name, First.Rank, First.World, R.Name, R.Rank, R.World));
  const int32_t World = First.World;
  if (World <= 0)
    return llvm::Error::success();
  for (const RankOfJob &R : Ranks)
    if (R.Rank >= World)
      return jobError(llvm::formatv("{0}: rank {1} is outside its world of {2}",
                                    R.Name, R.Rank, World));
  if (!Whole || Ranks.size() == size_t(World))
    return llvm::Error::success();
  std::vector<std::string> Missing;
  size_t Next = 0;
  for (int32_t R = 0; R < World; ++R) {
    if (Next < Ranks.size() && Ranks[Next].Rank == R)
      ++Next;
    else
      Missing.push_back(std::to_string(R));
  }
  return jobError(
      llvm::formatv("rank(s) {0} of the job's {1} are missing (give every "
                    "rank's {2}; the others wait for them at every "
                    "collective)",
                    llvm::join(Missing, ", "), World, Of));
}

namespace {

/// Refuses a file given twice, under one name or through a link: without
/// recorded ranks it would become two ranks of one job, and with them, the
/// same rank twice.
llvm::Error checkDistinctFiles(llvm::ArrayRef<std::string> Paths) {
  std::map<llvm::sys::fs::UniqueID, size_t> Seen;
  for (size_t I = 0; I != Paths.size(); ++I) {
    llvm::sys::fs::UniqueID ID;
    if (llvm::sys::fs::getUniqueID(Paths[I], ID))
      continue; // reading it says why
    auto [It, New] = Seen.try_emplace(ID, I);
    if (!New)
      return jobError(llvm::formatv(
          "{0} and {1} are the same file (give each rank's trace once)",
          Paths[It->second], Paths[I]));
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<std::vector<RankTrace>>
dd::import::readJobTraces(llvm::ArrayRef<std::string> Paths,
                          const ImportOptions &Opts, ProgressFn Progress) {
  if (Paths.size() > 1)
    if (llvm::Error E = checkDistinctFiles(Paths))
      return std::move(E);
  // The ranks' traces are read at once, a thread each up to ReadThreads:
  // reading (inflating and parsing) needs nothing from the other ranks.
  std::vector<RankTrace> Traces(Paths.size());
  std::vector<llvm::Expected<ImportResult>> Read;
  for (size_t I = 0; I != Paths.size(); ++I)
    Read.emplace_back(ImportResult());
  // Whole files count as equal shares of the job; each reader reports its
  // own part, and the job's progress is their sum.
  std::mutex ProgressLock;
  std::vector<uint64_t> DoneOf(Paths.size(), 0);
  uint64_t Share = 0;
  auto ReadOne = [&](size_t I) {
    auto Each = [&, I](uint64_t Done, uint64_t Total) {
      std::lock_guard<std::mutex> Lock(ProgressLock);
      Share = std::max(Share, Total);
      DoneOf[I] = uint64_t(double(Done) / double(std::max<uint64_t>(Total, 1)) *
                           double(Share));
      Progress(std::accumulate(DoneOf.begin(), DoneOf.end(), uint64_t(0)),
               Paths.size() * Share);
    };
    Read[I] = readTrace(Paths[I], Opts, Traces[I].Model,
                        Progress ? ProgressFn(Each) : ProgressFn());
  };
  forEachRank(0, Paths.size(), rankThreads(Opts.ReadThreads, Paths.size()),
              ReadOne);
  // The first failure in the order of the inputs, whichever thread met it
  // first, so that the error does not depend on timing.
  llvm::Error First = llvm::Error::success();
  for (size_t I = 0; I != Paths.size(); ++I) {
    if (!Read[I]) {
      if (First)
        llvm::consumeError(Read[I].takeError());
      else
        First = Read[I].takeError();
      continue;
    }
    Traces[I].R = std::move(*Read[I]);
  }
  if (First)
    return std::move(First);
  return std::move(Traces);
}

llvm::Expected<JobImportResult>
dd::import::importJob(llvm::ArrayRef<std::string> Paths,
                      const ImportOptions &Opts, ProgressFn Progress) {
  auto Traces = readJobTraces(Paths, Opts, Progress);
  if (!Traces)
    return Traces.takeError();
  return lowerJob(std::move(*Traces), Opts.Lowering, Opts.FoldIdenticalRanks,
                  Opts.ReadThreads);
}

llvm::Error dd::import::lowerJobRanks(std::vector<RankTrace> &&Inputs,
                                      const LoweringOptions &Opts,
                                      unsigned Threads, bool HashForFolding,
                                      EachRankFn Each, bool Part) {
  std::vector<ReadRank> Traces(Inputs.size());
  for (size_t I = 0; I != Inputs.size(); ++I) {
    Traces[I].R = std::move(Inputs[I].R);
    Traces[I].Model = std::move(Inputs[I].Model);
    Traces[I].SameAs = Inputs[I].SameAs;
    Traces[I].CopyLane = std::move(Inputs[I].CopyLane);
    Traces[I].OrderRank = Inputs[I].OrderRank;
    Traces[I].OrderWorld = Inputs[I].OrderWorld;
  }
  if (llvm::Error E = assignRanks(Traces, Part))
    return E;

  LoweringOptions Lower = Opts;
  for (const ReadRank &T : Traces)
    Lower.OriginNs = std::min(Lower.OriginNs, earliestStart(T.Model));

  // The ranks are lowered a batch at a time, a thread each (RankThreads.h),
  // then handed on in rank order and freed, so that one batch of ranks'
  // graphs is all the lowering holds at once.
  const size_t ToLower =
      std::count_if(Traces.begin(), Traces.end(),
                    [](const ReadRank &R) { return R.SameAs < 0; });
  const unsigned Batch = rankThreads(Threads, ToLower);
  std::vector<llvm::Optional<std::string>> Failed(Traces.size());
  std::vector<uint64_t> Hashes(Traces.size(), 0);
  auto LowerOne = [&](size_t I) {
    ReadRank &T = Traces[I];
    if (T.SameAs >= 0)
      return;
    if (llvm::Error E = lowerInto(T.R, std::move(T.Model), Lower)) {
      Failed[I] = llvm::toString(std::move(E));
      return;
    }
    T.Model = TraceModel();
    if (HashForFolding)
      Hashes[I] = rankContentHash(T.R.G);
  };
  for (size_t From = 0; From < Traces.size(); From += Batch) {
    const size_t To = std::min(Traces.size(), From + Batch);
    forEachRank(From, To, Batch, LowerOne);
    for (size_t I = From; I != To; ++I) {
      if (Failed[I])
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       *Failed[I]);
      ReadRank &T = Traces[I];
      LoweredRank L{T.R,        T.Model.Meta, T.Rank,  T.WorldSize,   T.SameAs,
                    T.CopyLane, Hashes[I],    ToLower, Lower.OriginNs};
      if (llvm::Error E = Each(L))
        return E;
      T.R.G = Graph();
    }
  }
  return llvm::Error::success();
}

llvm::Error dd::import::importRanksInBatches(llvm::ArrayRef<std::string> Paths,
                                             const ImportOptions &Opts,
                                             bool RanksByOrder, EachRankFn Each,
                                             ProgressFn Progress) {
  if (Paths.size() > 1)
    if (llvm::Error E = checkDistinctFiles(Paths))
      return E;
  const unsigned Batch = rankThreads(Opts.ReadThreads, Paths.size());
  for (size_t From = 0; From < Paths.size(); From += Batch) {
    const size_t To = std::min(Paths.size(), From + Batch);
    // A batch reports its share of the inputs; the whole is that share
    // times the batches (files count as equal shares, as in one batch).
    auto BatchProgress = [&, From, To](uint64_t Done, uint64_t Total) {
      const uint64_t PerFile = Total / std::max<size_t>(To - From, 1);
      Progress(From * PerFile + Done, Paths.size() * PerFile);
    };
    auto Traces =
        readJobTraces(Paths.slice(From, To - From), Opts,
                      Progress ? ProgressFn(BatchProgress) : ProgressFn());
    if (!Traces)
      return Traces.takeError();
    if (RanksByOrder)
      for (size_t I = 0; I != Traces->size(); ++I) {
        (*Traces)[I].OrderRank = int32_t(From + I);
        (*Traces)[I].OrderWorld = int32_t(Paths.size());
      }
    if (llvm::Error E =
            lowerJobRanks(std::move(*Traces), Opts.Lowering, Opts.ReadThreads,
                          /*HashForFolding=*/false, Each, /*Part=*/true))
      return E;
  }
  return llvm::Error::success();
}

llvm::Expected<JobImportResult>
dd::import::lowerJob(std::vector<RankTrace> &&Traces,
                     const LoweringOptions &Opts, bool FoldIdenticalRanks,
                     unsigned Threads) {
  JobImportResult Job;
  llvm::Optional<JobAssembler> Assembler;
  auto Each = [&](LoweredRank &L) -> llvm::Error {
    if (!Assembler)
      Assembler.emplace(Job.G, L.ToLower, FoldIdenticalRanks);
    if (L.SameAs >= 0) {
      RankGraph Copy{L.Rank, L.WorldSize, Graph()};
      Copy.G.metadata() = L.Meta;
      if (llvm::Error E = Assembler->addPromisedCopy(std::move(Copy), L.R.Name,
                                                     L.SameAs, L.CopyLane))
        return E;
    } else {
      Assembler->addRank(RankGraph{L.Rank, L.WorldSize, std::move(L.R.G)},
                         L.R.Name, L.Hash);
    }
    Job.RankIds.push_back(L.Rank);
    Job.Ranks.push_back(std::move(L.R));
    return llvm::Error::success();
  };
  if (llvm::Error E = lowerJobRanks(std::move(Traces), Opts, Threads,
                                    FoldIdenticalRanks, Each))
    return std::move(E);
  if (!Assembler)
    return std::move(Job);
  Job.RankCopies = Assembler->copies();
  Job.DevicesRenumbered = Assembler->devices().renumbered();
  Job.FirstRenumbered = Assembler->devices().firstRenumbered();
  if (llvm::Error E = Assembler->finish(Job.Collectives, Job.Warnings))
    return std::move(E);
  return std::move(Job);
}
