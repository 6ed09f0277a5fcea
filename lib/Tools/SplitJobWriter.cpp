//===- SplitJobWriter.cpp - dd-import -split: a job as a file per rank ----===//

#include "SplitJobWriter.h"

#include "daydream/IR/BinaryFormat.h"
#include "daydream/IR/TextFormat.h"
#include "daydream/Import/JobFile.h"
#include "daydream/Import/SplitJob.h"
#include "daydream/Support/OutputFile.h"
#include "daydream/Support/Version.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <memory>

using namespace dd;
using namespace dd::import;

llvm::Error dd::splitJobError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 Msg.str().c_str());
}

namespace {

/// The bytes written so far to \p Out's temporary file, hashed as the job
/// file records them.
llvm::Expected<uint64_t> hashWritten(OutputFile &Out, uint64_t Bytes) {
  Out.os().flush();
  if (std::error_code EC = Out.os().error())
    return splitJobError(Out.path() + ": " + EC.message());
  auto Written = llvm::MemoryBuffer::getFile(Out.temporaryPath(),
                                             /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
  if (!Written)
    return splitJobError(Out.path() + ": " + Written.getError().message());
  if ((*Written)->getBufferSize() != Bytes)
    return splitJobError(Out.path() + ": " + llvm::Twine(Bytes) +
                         " bytes written, " +
                         llvm::Twine((*Written)->getBufferSize()) + " found");
  return rankFileHash((*Written)->getBuffer());
}

} // namespace

llvm::Error dd::checkJobPath(llvm::StringRef JobPath, llvm::StringRef Why) {
  if (JobPath == "-")
    return splitJobError(Why +
                         ": give the job file's name with -o (job.ddjob)");
  if (JobPath.find_first_of("\r\n") != llvm::StringRef::npos)
    return splitJobError("a job file's name cannot hold a line break: its "
                         "rank files are named on lines of their own");
  return llvm::Error::success();
}

llvm::Expected<RankFiles>
dd::writeRankFiles(const Graph &G, llvm::StringRef JobPath, int32_t Rank,
                   int32_t World, int64_t OriginNs, bool Text,
                   std::vector<std::unique_ptr<OutputFile>> &Outputs) {
  const std::string Path = rankFilePath(JobPath, Rank);
  auto Out = OutputFile::create(Path);
  if (!Out)
    return Out.takeError();
  llvm::raw_fd_ostream &OS = (*Out)->os();
  if (llvm::Error E = Text ? printTextGraph(G, OS) : writeBinaryGraph(G, OS))
    return std::move(E);
  const uint64_t Bytes = OS.tell();
  auto Hash = hashWritten(**Out, Bytes);
  if (!Hash)
    return Hash.takeError();
  RankFiles F;
  F.Entry = JobFile::Rank{Rank, Bytes, *Hash, OriginNs,
                          llvm::sys::path::filename(Path).str()};
  Outputs.push_back(std::move(*Out));
  // The table is written in either case: the link step reads it, and a
  // process simulating other ranks of the job has it stand in for this
  // one (JobShare.h).
  F.Table = collectiveTable(G);
  auto TableOut = OutputFile::create(rankTablePath(JobPath, Rank));
  if (!TableOut)
    return TableOut.takeError();
  if (llvm::Error E =
          writeRankTableFile(World, F.Entry, F.Table, Text, (*TableOut)->os()))
    return std::move(E);
  Outputs.push_back(std::move(*TableOut));
  return std::move(F);
}

namespace {

/// A rank once written: what the job file and the summary say of it.
struct WrittenRank {
  int32_t World = 0;
  bool ByOrder = false; ///< its trace recorded no rank
  JobFile::Rank Entry;
  RankTable Table;
  ImportResult R; ///< without its graph
  uint64_t Tasks = 0;
  std::string Path;
};

/// What no one batch can check: that the ranks make one job (or, with
/// \p Part, ranks of one), with a single import's messages (ImportJob.h).
llvm::Error checkJob(const std::vector<WrittenRank> &Ranks, bool Part) {
  const WrittenRank *Recorded = nullptr, *Unrecorded = nullptr;
  for (const WrittenRank &W : Ranks) {
    const WrittenRank *&First = W.ByOrder ? Unrecorded : Recorded;
    if (!First)
      First = &W;
  }
  if (Recorded && Unrecorded)
    return splitJobError(
        Unrecorded->R.Name +
        ": no rank recorded (distributedInfo), while other inputs "
        "have one; give either all ranks' traces or traces without "
        "ranks");
  std::vector<RankOfJob> Of;
  Of.reserve(Ranks.size());
  for (const WrittenRank &W : Ranks)
    Of.push_back(RankOfJob{W.Entry.Rank, W.World, W.R.Name});
  return checkRanksOfJob(Of, /*Whole=*/!Part, "trace");
}

} // namespace

llvm::Expected<SplitJobSummary>
dd::writeSplitJob(llvm::ArrayRef<std::string> Paths, const ImportOptions &Opts,
                  llvm::StringRef JobPath, bool Text, bool NoLink,
                  ProgressFn Progress) {
  if (llvm::Error E = checkJobPath(JobPath, "-split writes a file per rank "
                                            "beside the job file"))
    return std::move(E);
  std::vector<WrittenRank> Ranks;
  std::vector<std::unique_ptr<OutputFile>> Outputs;
  auto Each = [&](LoweredRank &L) -> llvm::Error {
    if (L.SameAs >= 0)
      return splitJobError(L.R.Name +
                           ": a rank promised to be a copy cannot be split");
    Graph &G = L.R.G;
    WrittenRank W;
    W.World = L.WorldSize;
    W.ByOrder = G.metadata().Ranks.empty();
    G.metadata().Producer = toolVersion("dd-import");
    std::string Host =
        G.metadata().Ranks.empty() ? "" : G.metadata().Ranks.front().Host;
    G.metadata().Ranks = {RankInfo{L.Rank, L.WorldSize, Host, -1}};
    W.Path = rankFilePath(JobPath, L.Rank);
    auto Files =
        writeRankFiles(G, JobPath, L.Rank, W.World, L.OriginNs, Text, Outputs);
    if (!Files)
      return Files.takeError();
    W.Entry = std::move(Files->Entry);
    W.Table = RankTable{L.Rank, L.WorldSize, L.R.Name, std::move(Files->Table)};
    if (NoLink)
      W.Table.Table = Graph();
    W.Tasks = G.numTasks();
    G = Graph();
    W.R = std::move(L.R);
    Ranks.push_back(std::move(W));
    return llvm::Error::success();
  };
  if (llvm::Error E = importRanksInBatches(
          Paths, Opts, /*RanksByOrder=*/!NoLink, Each, Progress))
    return std::move(E);
  std::stable_sort(Ranks.begin(), Ranks.end(),
                   [](const WrittenRank &A, const WrittenRank &B) {
                     return A.Entry.Rank < B.Entry.Rank;
                   });
  if (llvm::Error E = checkJob(Ranks, NoLink))
    return std::move(E);

  SplitJobSummary S;
  JobFile J;
  J.World = Ranks.front().World;
  std::vector<RankTable> Tables;
  for (WrittenRank &W : Ranks) {
    J.Ranks.push_back(W.Entry);
    Tables.push_back(std::move(W.Table));
    S.Tasks += W.Tasks;
    S.Bytes += W.Entry.Bytes;
    S.Files.push_back(W.Path);
    S.RankIds.push_back(W.Entry.Rank);
    S.Ranks.push_back(std::move(W.R));
  }
  std::unique_ptr<OutputFile> JobOut;
  if (!NoLink) {
    auto Groups = linkCollectives(std::move(Tables), S.Collectives, S.Warnings);
    if (!Groups)
      return Groups.takeError();
    J.Groups = std::move(*Groups);
    S.Groups = J.Groups.size();
    auto Out = OutputFile::create(JobPath);
    if (!Out)
      return Out.takeError();
    JobOut = std::move(*Out);
    printJobFile(J, JobOut->os());
  }
  // The ranks first: a job file never names a rank file not yet in place.
  for (std::unique_ptr<OutputFile> &Out : Outputs)
    if (llvm::Error E = Out->commit())
      return std::move(E);
  if (JobOut)
    if (llvm::Error E = JobOut->commit())
      return std::move(E);
  return std::move(S);
}

llvm::Expected<SplitJobSummary>
dd::linkSplitJob(llvm::ArrayRef<std::string> Tables, llvm::StringRef JobPath) {
  if (llvm::Error E = checkJobPath(JobPath, "-link names the rank files "
                                            "relative to the job file"))
    return std::move(E);
  SplitJobSummary S;
  auto J = linkRankTables(Tables, JobPath, S.Collectives, S.Warnings);
  if (!J)
    return J.takeError();
  for (const JobFile::Rank &R : J->Ranks) {
    S.RankIds.push_back(R.Rank);
    S.Files.push_back(R.File);
    S.Bytes += R.Bytes;
  }
  S.Groups = J->Groups.size();
  auto Out = OutputFile::create(JobPath);
  if (!Out)
    return Out.takeError();
  printJobFile(*J, (*Out)->os());
  if (llvm::Error E = (*Out)->commit())
    return std::move(E);
  return std::move(S);
}
