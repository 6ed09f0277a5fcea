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

namespace {

llvm::Error fail(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 Msg.str().c_str());
}

/// The bytes written so far to \p Out's temporary file, hashed as the job
/// file records them.
llvm::Expected<uint64_t> hashWritten(OutputFile &Out, uint64_t Bytes) {
  Out.os().flush();
  if (std::error_code EC = Out.os().error())
    return fail(Out.path() + ": " + EC.message());
  auto Written = llvm::MemoryBuffer::getFile(Out.temporaryPath(),
                                             /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
  if (!Written)
    return fail(Out.path() + ": " + Written.getError().message());
  if ((*Written)->getBufferSize() != Bytes)
    return fail(Out.path() + ": " + llvm::Twine(Bytes) + " bytes written, " +
                llvm::Twine((*Written)->getBufferSize()) + " found");
  return rankFileHash((*Written)->getBuffer());
}

} // namespace

llvm::Expected<SplitJobSummary>
dd::writeSplitJob(std::vector<RankTrace> &&Traces, const ImportOptions &Opts,
                  llvm::StringRef JobPath, bool Text, bool NoLink) {
  if (JobPath == "-")
    return fail("-split writes a file per rank beside the job file: give "
                "the job file's name with -o (job.ddjob)");
  SplitJobSummary S;
  JobFile J;
  std::vector<std::unique_ptr<OutputFile>> Outputs;
  std::vector<RankTable> Tables;
  auto Each = [&](LoweredRank &L) -> llvm::Error {
    if (L.SameAs >= 0)
      return fail(L.R.Name + ": a rank promised to be a copy cannot be split");
    Graph &G = L.R.G;
    G.metadata().Producer = toolVersion("dd-import");
    std::string Host =
        G.metadata().Ranks.empty() ? "" : G.metadata().Ranks.front().Host;
    G.metadata().Ranks = {RankInfo{L.Rank, L.WorldSize, Host, -1}};
    J.World = L.WorldSize > 0 ? L.WorldSize : int32_t(L.ToLower);
    const std::string Path = rankFilePath(JobPath, L.Rank);
    auto Out = OutputFile::create(Path);
    if (!Out)
      return Out.takeError();
    llvm::raw_fd_ostream &OS = (*Out)->os();
    if (llvm::Error E = Text ? printTextGraph(G, OS) : writeBinaryGraph(G, OS))
      return E;
    const uint64_t Bytes = OS.tell();
    auto Hash = hashWritten(**Out, Bytes);
    if (!Hash)
      return Hash.takeError();
    J.Ranks.push_back(JobFile::Rank{L.Rank, Bytes, *Hash, L.OriginNs,
                                    llvm::sys::path::filename(Path).str()});
    Outputs.push_back(std::move(*Out));
    if (NoLink) {
      auto TableOut = OutputFile::create(rankTablePath(JobPath, L.Rank));
      if (!TableOut)
        return TableOut.takeError();
      if (llvm::Error E = printRankTableFile(
              J.World, J.Ranks.back(), collectiveTable(G), (*TableOut)->os()))
        return E;
      Outputs.push_back(std::move(*TableOut));
    } else {
      Tables.push_back(
          RankTable{L.Rank, L.WorldSize, L.R.Name, collectiveTable(G)});
    }
    S.Tasks += G.numTasks();
    S.Bytes += Bytes;
    S.Files.push_back(Path);
    S.RankIds.push_back(L.Rank);
    G = Graph();
    S.Ranks.push_back(std::move(L.R));
    return llvm::Error::success();
  };
  if (llvm::Error E = lowerJobRanks(std::move(Traces), Opts.Lowering,
                                    Opts.ReadThreads, false, Each, NoLink))
    return std::move(E);
  if (NoLink) {
    for (std::unique_ptr<OutputFile> &Out : Outputs)
      if (llvm::Error E = Out->commit())
        return std::move(E);
    return std::move(S);
  }
  auto Groups = linkCollectives(std::move(Tables), S.Collectives, S.Warnings);
  if (!Groups)
    return Groups.takeError();
  J.Groups = std::move(*Groups);
  S.Groups = J.Groups.size();

  auto JobOut = OutputFile::create(JobPath);
  if (!JobOut)
    return JobOut.takeError();
  printJobFile(J, (*JobOut)->os());
  // The ranks first: a job file never names a rank file not yet in place.
  for (std::unique_ptr<OutputFile> &Out : Outputs)
    if (llvm::Error E = Out->commit())
      return std::move(E);
  if (llvm::Error E = (*JobOut)->commit())
    return std::move(E);
  return std::move(S);
}

llvm::Expected<SplitJobSummary>
dd::linkSplitJob(llvm::ArrayRef<std::string> Tables, llvm::StringRef JobPath) {
  if (JobPath == "-")
    return fail("-link names the rank files relative to the job file: give "
                "its name with -o (job.ddjob)");
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
