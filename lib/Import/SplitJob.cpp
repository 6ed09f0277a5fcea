//===- SplitJob.cpp - A job kept as one .ddir per rank --------------------===//
//
// See SplitJob.h. A collective table is the rank's graph cut down to what
// the matcher reads (MatchCollectives.cpp: collect() and assignGroups()),
// so the link step runs the very matcher on it and cannot disagree with a
// single import; the barriers it adds to the tables are then only counted.
//
//===----------------------------------------------------------------------===//

#include "daydream/Import/SplitJob.h"

#include "CollectiveReach.h"
#include "FoldRanks.h"
#include "JobAssembler.h"
#include "SplitJobFiles.h"

#include "daydream/IR/BinaryFormat.h"
#include "daydream/IR/FileKind.h"
#include "daydream/IR/IRReader.h"
#include "daydream/Support/MachineMemory.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <functional>

using namespace dd;
using namespace dd::import;
using llvm::StringRef;

llvm::Error dd::import::jobError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 Msg.str().c_str());
}

namespace {

bool isMatchedKernel(const Graph &G, TaskId T) {
  return G.task(T).Kind == TaskKind::Collective &&
         G.lane(G.task(T).Lane).Kind == LaneKind::GpuStream;
}

bool isGroupNote(StringRef Key) {
  return Key == "group" || Key == "group-ranks" || Key == "group-size";
}

} // namespace

Graph dd::import::collectiveTable(const Graph &G) {
  // The kernels, and the calls that launched them (their issue order).
  std::vector<uint8_t> Keep(G.numTaskSlots(), 0);
  std::vector<Edge> Launches;
  std::vector<TaskId> Kernels;
  for (TaskId T = 0; T != G.numTaskSlots(); ++T)
    if (G.isLive(T) && isMatchedKernel(G, T)) {
      Keep[T] = 1;
      Kernels.push_back(T);
    }
  for (const Edge &E : G.edgeSlots())
    if (G.isLive(E) && E.Kind == EdgeKind::Launch && Keep[E.Dst] == 1) {
      Launches.push_back(E);
      Keep[E.Src] |= 2;
    }

  Graph Table;
  Table.metadata() = G.metadata();
  for (const Lane &L : G.lanes()) {
    Lane NL = L;
    NL.Name = Table.intern(G.str(L.Name));
    Table.addLane(NL);
  }
  // The layers around the kernels (a send/recv kernel's kind is its op's).
  llvm::DenseMap<LayerId, LayerId> LayerOf;
  std::function<LayerId(LayerId)> CopyLayer = [&](LayerId L) -> LayerId {
    if (L == NoId)
      return NoId;
    auto It = LayerOf.find(L);
    if (It != LayerOf.end())
      return It->second;
    LayerId Parent = CopyLayer(G.layer(L).Parent);
    LayerId New =
        Table.addLayer(Layer{Table.intern(G.str(G.layer(L).Name)), Parent});
    LayerOf[L] = New;
    return New;
  };
  // In lane order, as the job's graph will number them (MergeRanks.h): the
  // matcher breaks ties in issue order by task number.
  std::vector<TaskId> NewId(G.numTaskSlots(), NoId);
  for (LaneId L = 0; L != G.numLanes(); ++L)
    for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T)) {
      if (!Keep[T])
        continue;
      Task NT = G.task(T);
      NT.Name = Table.intern(G.str(NT.Name));
      NT.Layer = Keep[T] & 1 ? CopyLayer(NT.Layer) : NoId;
      NT.Attrs = NoId;
      NewId[T] = Table.addTask(NT);
      if (const TaskAttrs *A = G.attrs(T); A && (Keep[T] & 1)) {
        TaskAttrs Bytes;
        Bytes.Bytes = A->Bytes;
        Table.setAttrs(NewId[T], Bytes);
      }
    }
  for (const Edge &E : Launches)
    Table.addEdge(NewId[E.Src], NewId[E.Dst], E.Kind);
  // What the kernels between them said of the collectives' order across
  // streams (CollectiveReach.h): matching copies these edges, as every
  // edge into a kernel, to its arrival.
  for (const Edge &E : crossStreamReach(G, Kernels))
    Table.addEdge(NewId[E.Src], NewId[E.Dst], E.Kind);
  for (const TaskNote &N : G.notes())
    if (N.Task < Keep.size() && (Keep[N.Task] & 1) && isGroupNote(G.str(N.Key)))
      Table.addNote(NewId[N.Task], G.str(N.Key), G.str(N.Value));
  // Its steps too, which matching does not read: a process that simulates
  // other ranks of the job has the table stand in for this one
  // (JobShare.h), and reports every rank's iterations.
  for (const Iteration &I : G.iterations()) {
    Iteration NI = I;
    NI.Name = Table.intern(G.str(I.Name));
    Table.iterationsMut().push_back(NI);
  }
  return Table;
}

llvm::Expected<std::vector<JobFile::Group>>
dd::import::linkCollectives(std::vector<RankTable> &&Tables,
                            CollectiveStats &Stats,
                            std::vector<std::string> &Warnings) {
  Graph Link;
  std::vector<int32_t> World;
  {
    JobAssembler A(Link, Tables.size(), /*Fold=*/false);
    for (RankTable &T : Tables) {
      World.push_back(T.Rank);
      A.addRank(RankGraph{T.Rank, T.WorldSize, std::move(T.Table)}, T.Name, 0);
    }
    if (llvm::Error E = A.finish(Stats, Warnings))
      return std::move(E);
  }
  std::sort(World.begin(), World.end());
  // Each barrier lane is a group; its barriers say which.
  llvm::DenseMap<TaskId, std::pair<StrId, StrId>> GroupNotes;
  for (const TaskNote &N : Link.notes()) {
    StringRef Key = Link.str(N.Key);
    if (Key == "group")
      GroupNotes[N.Task].first = N.Value;
    else if (Key == "group-ranks")
      GroupNotes[N.Task].second = N.Value;
  }
  std::vector<JobFile::Group> Groups;
  for (LaneId L = 0; L != Link.numLanes(); ++L) {
    const Lane &Ln = Link.lane(L);
    TaskId First = Link.laneHead(L);
    if (Ln.Kind != LaneKind::CommChannel || Ln.Rank != -1 || First == NoId)
      continue;
    JobFile::Group Gr;
    for (TaskId T = First; T != NoId; T = Link.nextOnLane(T))
      ++Gr.Collectives;
    auto It = GroupNotes.find(First);
    if (It == GroupNotes.end()) {
      Gr.Members = World;
    } else {
      Gr.Name = Link.str(It->second.first).str();
      // A job file gives each group a line.
      if (StringRef(Gr.Name).find_first_of("\r\n") != StringRef::npos) {
        std::string Shown;
        llvm::raw_string_ostream OS(Shown);
        OS.write_escaped(Gr.Name);
        return jobError("process group '" + OS.str() +
                        "': its name holds a line break, which a job file "
                        "cannot record");
      }
      auto Members =
          parseGroupRanks(("[" + Link.str(It->second.second) + "]").str());
      if (!Members)
        return Members.takeError();
      Gr.Members = std::move(*Members);
    }
    Groups.push_back(std::move(Gr));
  }
  return std::move(Groups);
}

uint64_t dd::import::rankFileHash(StringRef Bytes) {
  return llvm::xxHash64(Bytes);
}

/// "job.rank3" + \p Extension beside the job file \p JobPath ("job.ddjob").
static std::string besideJobFile(StringRef JobPath, int32_t Rank,
                                 StringRef Extension) {
  StringRef Stem = JobPath;
  Stem.consume_back(".ddjob");
  return (Stem + ".rank" + llvm::Twine(Rank) + Extension).str();
}

std::string dd::import::rankFilePath(StringRef JobPath, int32_t Rank) {
  return besideJobFile(JobPath, Rank, ".ddir");
}

std::string dd::import::rankTablePath(StringRef JobPath, int32_t Rank) {
  return besideJobFile(JobPath, Rank, ".ddcoll");
}

namespace {

/// Where a rank's file is, from its table file's folder.
std::string besideTable(StringRef TablePath, StringRef File) {
  if (llvm::sys::path::is_absolute(File))
    return File.str();
  llvm::SmallString<256> P = llvm::sys::path::parent_path(TablePath);
  llvm::sys::path::append(P, File);
  return P.str().str();
}

/// \p Path as the job file \p JobPath names it: relative to its folder
/// when beside it, else absolute.
std::string fromJobFile(StringRef JobPath, StringRef Path) {
  llvm::SmallString<256> Dir = llvm::sys::path::parent_path(JobPath);
  if (Dir.empty())
    Dir = ".";
  StringRef Parent = llvm::sys::path::parent_path(Path);
  if (llvm::sys::fs::equivalent(Dir, Parent.empty() ? "." : Parent))
    return llvm::sys::path::filename(Path).str();
  llvm::SmallString<256> Abs(Path);
  llvm::sys::fs::make_absolute(Abs);
  return Abs.str().str();
}

} // namespace

llvm::Expected<JobFile>
dd::import::linkRankTables(llvm::ArrayRef<std::string> Paths, StringRef JobPath,
                           CollectiveStats &Stats,
                           std::vector<std::string> &Warnings) {
  std::vector<ReadTable> Read;
  for (const std::string &P : Paths) {
    auto T = readRankTableFile(P);
    if (!T)
      return T.takeError();
    Read.push_back(std::move(*T));
  }
  std::stable_sort(Read.begin(), Read.end(),
                   [](const ReadTable &A, const ReadTable &B) {
                     return A.Entry.Rank < B.Entry.Rank;
                   });
  std::vector<RankOfJob> Ranks;
  Ranks.reserve(Read.size());
  for (const ReadTable &T : Read)
    Ranks.push_back(RankOfJob{T.Entry.Rank, T.World, T.Path});
  if (llvm::Error E =
          checkRanksOfJob(Ranks, /*Whole=*/true, "collective table"))
    return std::move(E);
  JobFile J;
  J.World = Read.empty() ? 0 : Read.front().World;
  std::vector<RankTable> Tables;
  for (ReadTable &T : Read) {
    // The rank's file is checked for its size only: its bytes are hashed
    // when the job is read, not here, where no task is loaded.
    std::string File = besideTable(T.Path, T.Entry.File);
    llvm::sys::fs::file_status St;
    if (std::error_code EC = llvm::sys::fs::status(File, St))
      return jobError(T.Path + ": its rank's file " + File + ": " +
                      EC.message());
    if (St.getSize() != T.Entry.Bytes)
      return jobError(llvm::formatv("{0}: its rank's file {1} has {2} bytes, "
                                    "not the {3} the table was made with: "
                                    "import that rank again",
                                    T.Path, File, St.getSize(), T.Entry.Bytes));
    JobFile::Rank Entry = T.Entry;
    Entry.File = fromJobFile(JobPath, File);
    J.Ranks.push_back(std::move(Entry));
    Tables.push_back(
        RankTable{T.Entry.Rank, T.World, T.Path, std::move(T.Table)});
  }
  auto Groups = linkCollectives(std::move(Tables), Stats, Warnings);
  if (!Groups)
    return Groups.takeError();
  J.Groups = std::move(*Groups);
  return std::move(J);
}

std::string dd::import::rankPathOf(StringRef JobPath, const JobFile::Rank &R) {
  if (llvm::sys::path::is_absolute(R.File))
    return R.File;
  llvm::SmallString<256> Path = llvm::sys::path::parent_path(JobPath);
  llvm::sys::path::append(Path, R.File);
  return Path.str().str();
}

llvm::Expected<Graph> dd::import::readRankFile(StringRef JobPath,
                                               const JobFile &J,
                                               const JobFile::Rank &R,
                                               GraphUse Use) {
  const std::string Path = rankPathOf(JobPath, R);
  const std::string Where =
      (JobPath + ": rank " + llvm::Twine(R.Rank) + "'s file " + Path).str();
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf)
    return jobError(Where + ": " + Buf.getError().message());
  StringRef Bytes = (*Buf)->getBuffer();
  const uint64_t Hash = rankFileHash(Bytes);
  if (Bytes.size() != R.Bytes || Hash != R.Hash)
    return jobError(llvm::formatv(
        "{0}: changed since the job was linked ({1} bytes, xxh64 {2:x-16}; "
        "the job file says {3} bytes, xxh64 {4:x-16}): import the job again",
        Where, Bytes.size(), Hash, R.Bytes, R.Hash));
  // Read where its records lie (a private mapping, TaskStore.h) rather
  // than copied out, unless asked: the job's graph copies them once anyway.
  Buf->reset();
  auto G = readGraphFile(Path, Use);
  if (!G)
    return jobError(JobPath + ": rank " + llvm::Twine(R.Rank) + ": " +
                    llvm::toString(G.takeError()));
  const std::vector<RankInfo> &Ranks = G->metadata().Ranks;
  if (Ranks.size() != 1 || Ranks.front().Rank != R.Rank ||
      Ranks.front().WorldSize != J.World) {
    std::string Is =
        Ranks.size() == 1
            ? llvm::formatv("rank {0} of {1}", Ranks.front().Rank,
                            Ranks.front().WorldSize)
                  .str()
            : llvm::formatv("a graph of {0} ranks", Ranks.size()).str();
    return jobError(llvm::formatv("{0}: is {1}, not rank {2} of {3} as the "
                                  "job file says (a rank of another job?)",
                                  Where, Is, R.Rank, J.World));
  }
  return G;
}

void dd::import::countFromJobOrigin(Graph &G, int64_t OriginNs, int64_t JobNs) {
  const int64_t Earlier = OriginNs - JobNs;
  if (Earlier <= 0)
    return;
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    TaskId T = G.laneHead(L);
    if (T == NoId || G.lane(L).Kind != LaneKind::CpuThread)
      continue;
    Task &Tk = G.task(T);
    if (Tk.GapNs == Tk.StartNs - OriginNs)
      Tk.GapNs += Earlier;
  }
}

namespace {

/// Refuses, before reading a rank, a job whose graph cannot be held: in
/// memory it takes at least its ranks' binary files' bytes (each record is
/// as large there as in the file, and the lane links come on top; a text
/// file says less, and counts nothing).
llvm::Error checkFitsInMemory(StringRef JobPath, const JobFile &J) {
  const uint64_t Memory = machineMemoryBytes();
  // The sum of the ranks' sizes that \p Counts, saturating; the files are
  // opened only where all of them together would not fit.
  auto Sum = [&](auto Counts) {
    uint64_t Bytes = 0;
    for (const JobFile::Rank &R : J.Ranks)
      if (Counts(R))
        Bytes = R.Bytes > UINT64_MAX - Bytes ? UINT64_MAX : Bytes + R.Bytes;
    return Bytes;
  };
  if (!Memory || Sum([](const JobFile::Rank &) { return true; }) <= Memory)
    return llvm::Error::success();
  const uint64_t Bytes = Sum([&](const JobFile::Rank &R) {
    return sniffFileKindOf(rankPathOf(JobPath, R)) == FileKind::DdirBinary;
  });
  if (Bytes <= Memory)
    return llvm::Error::success();
  return jobError(llvm::formatv(
      "{0}: its {1} ranks' files hold {2} GB, and reading the job whole "
      "needs at least as much memory, more than this machine's {3} GB (each "
      "rank's file reads on its own)",
      JobPath, J.Ranks.size(), Bytes >> 30, Memory >> 30));
}

/// The groups the job's graph matched collectives in, as the job file
/// records them: what linking found must still hold.
llvm::Error checkGroups(StringRef JobPath, const JobFile &J,
                        const CollectiveStats &Stats) {
  uint64_t Recorded = 0;
  for (const JobFile::Group &Gr : J.Groups)
    Recorded += Gr.Collectives;
  if (Recorded == Stats.Matched)
    return llvm::Error::success();
  return jobError(llvm::formatv(
      "{0}: its ranks' files match {1} collectives across ranks, but the job "
      "file records {2}: import the job again",
      JobPath, Stats.Matched, Recorded));
}

/// finishJob()'s hand-over: the graph written to a temporary file and
/// read back.
llvm::Expected<Graph> readAsFile(StringRef Path, Graph &&Job, GraphUse Use) {
  int FD = -1;
  llvm::SmallString<128> Temp;
  if (std::error_code EC =
          llvm::sys::fs::createTemporaryFile("ddjob", "ddir", FD, Temp))
    return jobError(Path +
                    ": cannot make a temporary file for the job's "
                    "graph (TMPDIR names where): " +
                    EC.message());
  // Unnamed from now on where the system allows: nothing is left behind
  // by a kill, and the descriptor still reaches it.
  std::string Reach = Temp.str().str();
#ifdef __linux__
  if (!llvm::sys::fs::remove(Temp))
    Reach = "/proc/self/fd/" + std::to_string(FD);
#endif
  llvm::Error Written = llvm::Error::success();
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/false);
    Written = writeBinaryGraph(Job, OS);
    OS.flush();
    // Cleared whatever happened: a stream destroyed with an error aborts.
    if (OS.has_error()) {
      const std::string Why = OS.error().message();
      OS.clear_error();
      if (!Written)
        Written = jobError("writing the job's graph to " + Temp + ": " + Why +
                           " (TMPDIR names where)");
    }
  }
  Job = Graph();
  llvm::Expected<Graph> G = Written ? llvm::Expected<Graph>(std::move(Written))
                                    : readGraphFile(Reach, Use);
  llvm::sys::fs::closeFile(FD);
  if (Reach == Temp.str())
    llvm::sys::fs::remove(Temp);
  if (!G)
    return jobError(Path + ": " + llvm::toString(G.takeError()));
  return G;
}

} // namespace

int64_t dd::import::jobOriginNs(const JobFile &J) {
  int64_t JobNs = INT64_MAX;
  for (const JobFile::Rank &R : J.Ranks)
    JobNs = std::min(JobNs, R.OriginNs);
  return JobNs;
}

llvm::Expected<Graph>
dd::import::finishJob(StringRef Path, const JobFile &J, JobAssembler &A,
                      Graph &&Job, GraphUse Use,
                      llvm::function_ref<void(Graph &)> Trim) {
  CollectiveStats Stats;
  std::vector<std::string> Warnings; // made when the job was imported
  if (llvm::Error E = A.finish(Stats, Warnings))
    return jobError(Path + ": " + llvm::toString(std::move(E)));
  if (llvm::Error E = checkGroups(Path, J, Stats))
    return std::move(E);
  if (Trim)
    Trim(Job);
  return readAsFile(Path, std::move(Job), Use);
}

llvm::Expected<JobFile> dd::import::readJobFile(StringRef Path) {
  auto Text = llvm::MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/true);
  if (!Text)
    return jobError(Path + ": " + Text.getError().message());
  return parseJobFile(Path, (*Text)->getBuffer());
}

llvm::Expected<Graph> dd::import::readSplitJob(StringRef Path, GraphUse Use) {
  auto J = readJobFile(Path);
  if (!J)
    return J.takeError();
  if (llvm::Error E = checkFitsInMemory(Path, *J))
    return std::move(E);
  Graph Job;
  JobAssembler A(Job, J->Ranks.size(), /*Fold=*/true);
  const int64_t JobNs = jobOriginNs(*J);
  for (const JobFile::Rank &R : J->Ranks) {
    auto G = readRankFile(Path, *J, R);
    if (!G)
      return G.takeError();
    countFromJobOrigin(*G, R.OriginNs, JobNs);
    // Only a filter before the full comparison (FoldRanks.h).
    uint64_t Hash = rankContentHash(*G, /*MaxPerLane=*/1024);
    A.addRank(RankGraph{R.Rank, J->World, std::move(*G)}, R.File, Hash);
  }
  return finishJob(Path, *J, A, std::move(Job), Use);
}
