//===- DistributedReplayTest.cpp - A replay split over processes ----------===//
//
// simulateDistributed() on threads that stand for processes (the protocol
// is the same on MPI, which dd-sim's lit tests run): on random DAGs whose
// lanes belong to random ranks, with edges between any of them (far more
// crossings than a job's collectives make), process 0 must get exactly
// what simulate() gives, for every process count, for a graph laid out as
// a file, one with dead tasks and a caller's order; and no process may be
// left waiting.
//
//===----------------------------------------------------------------------===//

#include "daydream/Sim/DistributedReplay.h"
#include "RandomDag.h"
#include "SimTestUtil.h"

#include "gtest/gtest.h"

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <tuple>

using namespace dd;
using namespace dd::test;

namespace {

/// Mailboxes shared by the threads of one run.
class Hub {
public:
  explicit Hub(unsigned Size) : Size(Size), Boxes(Size), Votes(Size) {}

  struct Message {
    unsigned From;
    ProcessGroup::Channel C;
    std::vector<int64_t> Values;
  };

  void post(unsigned To, Message M) {
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      Boxes[To].push_back(std::move(M));
    }
    Changed.notify_all();
  }

  /// The first message in \p To's box that matches, as MPI matches them.
  Message take(unsigned To, unsigned From, ProcessGroup::Channel C) {
    std::unique_lock<std::mutex> Lock(Mutex);
    for (;;) {
      auto &Box = Boxes[To];
      for (auto It = Box.begin(); It != Box.end(); ++It)
        if (It->C == C &&
            (From == ProcessGroup::AnyProcess || It->From == From)) {
          Message M = std::move(*It);
          Box.erase(It);
          return M;
        }
      Changed.wait(Lock);
    }
  }

  std::vector<uint8_t> vote(unsigned Me, bool Ok) {
    std::unique_lock<std::mutex> Lock(Mutex);
    const uint64_t Round = VoteRound;
    Votes[Me] = Ok;
    if (++Voted == Size) {
      Result = Votes;
      Voted = 0;
      ++VoteRound;
      Changed.notify_all();
    } else {
      Changed.wait(Lock, [&] { return VoteRound != Round; });
    }
    return Result;
  }

  /// Messages nobody took: there must be none after a run.
  size_t leftOver() const {
    size_t N = 0;
    for (const auto &Box : Boxes)
      N += Box.size();
    return N;
  }

private:
  const unsigned Size;
  std::mutex Mutex;
  std::condition_variable Changed;
  std::vector<std::deque<Message>> Boxes;
  std::vector<uint8_t> Votes, Result;
  unsigned Voted = 0;
  uint64_t VoteRound = 0;
};

class ThreadProcess final : public ProcessGroup {
public:
  ThreadProcess(Hub &H, unsigned Me, unsigned Size)
      : H(H), Me(Me), Size(Size) {}
  unsigned index() const override { return Me; }
  unsigned size() const override { return Size; }
  void send(unsigned To, Channel C, llvm::ArrayRef<int64_t> Values) override {
    H.post(To, {Me, C, std::vector<int64_t>(Values.begin(), Values.end())});
  }
  unsigned receive(unsigned From, Channel C,
                   std::vector<int64_t> &Values) override {
    Hub::Message M = H.take(Me, From, C);
    Values.insert(Values.end(), M.Values.begin(), M.Values.end());
    return M.From;
  }
  void finishSends() override {}
  std::vector<uint8_t> agree(bool Ok) override { return H.vote(Me, Ok); }

private:
  Hub &H;
  const unsigned Me, Size;
};

/// What a failed expectation of a run names: the seed and process count.
std::string seedAndProcesses(uint32_t Seed, unsigned Processes) {
  return "seed " + std::to_string(Seed) + ", " + std::to_string(Processes) +
         " processes";
}

/// Options of a run that keeps no task's times and adds up the critical
/// path: the windowed sweep's.
SimOptions windowedWithPath() {
  SimOptions Opts;
  Opts.TaskTimes = false;
  Opts.CriticalPath = true;
  return Opts;
}

/// The read time process \p P of runSplit() says its share took, made up:
/// each process's own.
ShareReadTime readTimeOf(unsigned P) { return {1000 + P, 2000 + 3 * P}; }

/// Runs simulateDistributed() on \p Processes threads; process 0's result,
/// or its error. Every other process must end with None or the same error.
/// The threads share \p G, which real processes do not: no walk builds lane
/// links (a graph built here has them, a file's is swept without them), so
/// they only read it. \p Observers, if given, has one observer a process.
llvm::Expected<SimResult>
runSplit(const Graph &G, unsigned Processes, const SimOptions &Opts = {},
         std::vector<ProcessShare> *Shares = nullptr,
         std::vector<TaskTimeObserver *> *Observers = nullptr,
         llvm::ArrayRef<uint32_t> ProcessOfRank = {},
         bool *Declined = nullptr) {
  Hub H(Processes);
  std::vector<llvm::Optional<std::string>> Errors(Processes);
  llvm::Optional<SimResult> Zero;
  std::vector<std::thread> Threads;
  for (unsigned P = 0; P != Processes; ++P)
    Threads.emplace_back([&, P] {
      ThreadProcess PG(H, P, Processes);
      SimOptions Mine = Opts;
      if (Observers)
        Mine.Observer = (*Observers)[P];
      // With ProcessOfRank, every process holds the same graph as its
      // share: what differs between real shares is their ids, which the
      // messages never carry then.
      bool No = false;
      auto R = ProcessOfRank.empty()
                   ? simulateDistributed(G, Mine, PG, P == 0 ? Shares : nullptr)
                   : simulateShares(G, Mine, PG, ProcessOfRank, readTimeOf(P),
                                    P == 0 ? Shares : nullptr, No);
      if (P == 0 && Declined)
        *Declined = No;
      if (!R) {
        Errors[P] = llvm::toString(R.takeError());
        return;
      }
      if (P == 0 && *R)
        Zero = std::move(**R);
      else
        EXPECT_FALSE(*R) << "process " << P << " got a result";
    });
  for (std::thread &T : Threads)
    T.join();
  EXPECT_EQ(H.leftOver(), 0u);
  for (unsigned P = 1; P != Processes; ++P)
    EXPECT_EQ(Errors[P], Errors[0]) << "process " << P;
  if (Errors[0])
    return llvm::createStringError(llvm::inconvertibleErrorCode(), *Errors[0]);
  if (!Zero) // declined
    return SimResult();
  return std::move(*Zero);
}

void expectSameResult(const SimResult &Want, const SimResult &Got,
                      const std::string &Where, SimEngine Engine) {
  EXPECT_EQ(Got.OriginNs, Want.OriginNs) << Where;
  EXPECT_EQ(Got.MakespanNs, Want.MakespanNs) << Where;
  EXPECT_EQ(Got.Start, Want.Start) << Where;
  EXPECT_EQ(Got.End, Want.End) << Where;
  ASSERT_EQ(Got.Lanes.size(), Want.Lanes.size()) << Where;
  for (size_t L = 0; L != Want.Lanes.size(); ++L) {
    EXPECT_EQ(Got.Lanes[L].BusyNs, Want.Lanes[L].BusyNs) << Where;
    EXPECT_EQ(Got.Lanes[L].KernelNs, Want.Lanes[L].KernelNs) << Where;
    EXPECT_EQ(Got.Lanes[L].NumTasks, Want.Lanes[L].NumTasks) << Where;
    EXPECT_EQ(Got.Lanes[L].TaskKinds, Want.Lanes[L].TaskKinds) << Where;
  }
  ASSERT_EQ(Got.Iterations.size(), Want.Iterations.size()) << Where;
  for (size_t I = 0; I != Want.Iterations.size(); ++I) {
    EXPECT_EQ(Got.Iterations[I].PredictedNs, Want.Iterations[I].PredictedNs)
        << Where;
    EXPECT_EQ(Got.Iterations[I].PredictedStartNs,
              Want.Iterations[I].PredictedStartNs)
        << Where;
  }
  EXPECT_EQ(Got.Engine, Engine) << Where;
}

/// Records every task's times it is shown, as they came, and merges what
/// other processes' observers saw.
class RecordingObserver final : public TaskTimeObserver {
public:
  void ran(TaskId First, llvm::ArrayRef<int64_t> Start,
           llvm::ArrayRef<int64_t> End) override {
    for (size_t I = 0; I != Start.size(); ++I)
      Seen.push_back({First + I, Start[I], End[I]});
  }
  void finish(int64_t OriginNs) override { Origin = OriginNs; }
  bool complete() const override { return true; }
  void pack(std::vector<int64_t> &Out) override {
    for (const auto &[T, S, E] : Seen)
      Out.insert(Out.end(), {int64_t(T), S, E});
  }
  bool merge(llvm::ArrayRef<int64_t> Packed) override {
    if (Packed.size() % 3)
      return false;
    for (size_t I = 0; I != Packed.size(); I += 3)
      Seen.push_back({TaskId(Packed[I]), Packed[I + 1], Packed[I + 2]});
    return true;
  }
  /// Every task seen, by id.
  std::vector<std::tuple<TaskId, int64_t, int64_t>> sorted() const {
    auto All = Seen;
    llvm::sort(All);
    return All;
  }
  int64_t Origin = -1;

private:
  std::vector<std::tuple<TaskId, int64_t, int64_t>> Seen;
};

/// A job as an import lowers it: \p Ranks ranks, each a CPU thread that
/// launches kernels on a GPU stream (and, on odd ranks, a second one), with
/// an iteration per step, and a world collective at the end of each step:
/// each rank's arrival -> the barrier on a lane of no rank -> its kernel,
/// held until the barrier ends (MatchCollectives.h). Durations and gaps
/// come from a few values, so that ends often tie. With \p LanesAgainstIds
/// the lanes are numbered against the order tasks are added in (the last
/// rank's first, a rank's streams before its thread, the barrier's last),
/// so that a tie's lower lane is as often the higher id as the lower.
Graph jobGraph(uint32_t Seed, int32_t Ranks, unsigned Steps,
               bool LanesAgainstIds = false) {
  std::mt19937 Rng(Seed);
  auto Pick = [&](uint32_t N) { return static_cast<int64_t>(Rng() % N); };
  Graph G;
  auto AddWorld = [&] {
    return addLane(G, "collectives world", LaneKind::CommChannel);
  };
  const LaneId World = LanesAgainstIds ? NoId : AddWorld();
  struct RankLanes {
    LaneId Cpu, Gpu, Gpu2;
    TaskId LastCpu = NoId;
  };
  std::vector<RankLanes> R(Ranks);
  for (int32_t I = 0; I != Ranks; ++I) {
    const int32_t Rank = LanesAgainstIds ? Ranks - 1 - I : I;
    RankLanes &L = R[Rank];
    if (LanesAgainstIds) {
      L.Gpu = addLane(G, "stream 7", LaneKind::GpuStream);
      L.Gpu2 = Rank % 2 ? addLane(G, "stream 9", LaneKind::GpuStream) : L.Gpu;
      L.Cpu = addLane(G, "python", LaneKind::CpuThread);
    } else {
      L.Cpu = addLane(G, "python", LaneKind::CpuThread);
      L.Gpu = addLane(G, "stream 7", LaneKind::GpuStream);
      L.Gpu2 = Rank % 2 ? addLane(G, "stream 9", LaneKind::GpuStream) : L.Gpu;
    }
    for (LaneId Ln : {L.Cpu, L.Gpu, L.Gpu2}) {
      G.lane(Ln).Rank = Rank;
      G.lane(Ln).Device = Rank;
    }
  }
  const LaneId WorldLane = LanesAgainstIds ? AddWorld() : World;
  const int64_t StepNs = 10000;
  for (unsigned Step = 0; Step != Steps; ++Step) {
    const int64_t Begin = int64_t(Step) * StepNs;
    std::vector<TaskId> Arrive;
    for (int32_t Rank = 0; Rank != Ranks; ++Rank) {
      RankLanes &L = R[Rank];
      G.iterationsMut().push_back(
          {Begin, StepNs, G.intern("step " + std::to_string(Step)), Rank});
      TaskId Marker = addTask(G, L.Cpu, "ProfilerStep", Begin, 0,
                              TaskKind::Marker, Pick(3) * 10);
      if (L.LastCpu != NoId)
        G.addEdge(L.LastCpu, Marker, EdgeKind::ProgramOrder);
      TaskId Prev = Marker;
      for (int64_t K = 0; K != 6; ++K) {
        const int64_t At = Begin + 100 + 1000 * K;
        TaskId Op = addTask(G, L.Cpu, "op", At, Pick(3) * 100, TaskKind::CpuOp,
                            Pick(2) * 100);
        G.addEdge(Prev, Op, EdgeKind::ProgramOrder);
        TaskId Kern = addTask(G, K % 2 ? L.Gpu2 : L.Gpu, "kernel", At + 200,
                              Pick(3) * 100, TaskKind::Kernel, Pick(2) * 100);
        G.addEdge(Op, Kern, EdgeKind::Launch);
        Prev = Op;
      }
      TaskId A = addTask(G, L.Gpu, "arrive", Begin + 7000, 0, TaskKind::Marker,
                         Pick(2) * 100);
      G.addEdge(Prev, A, EdgeKind::Launch);
      Arrive.push_back(A);
      L.LastCpu = Prev;
    }
    TaskId B = addTask(G, WorldLane, "all_reduce", Begin + 7500, 500 + Pick(3),
                       TaskKind::Collective);
    for (int32_t Rank = 0; Rank != Ranks; ++Rank) {
      G.addEdge(Arrive[Rank], B, EdgeKind::Comm);
      TaskId T = addTask(G, R[Rank].Gpu, "nccl", Begin + 7000, 0,
                         TaskKind::Collective);
      G.addEdge(B, T, EdgeKind::Sync);
      G.addEdge(Arrive[Rank], T, EdgeKind::StreamOrder);
    }
  }
  return G;
}

/// A random DAG whose lanes belong to ranks 0-5, a few to none.
RandomDag rankedDag(uint32_t Seed) {
  RandomDag D = makeRandomDag(Seed, /*PriorityLanes=*/false);
  for (LaneId L = 0; L != D.G.numLanes(); ++L)
    D.G.lane(L).Rank = (Seed + L) % 7 == 6 ? -1 : int32_t((Seed * 3 + L) % 6);
  return D;
}

} // namespace

TEST(DistributedReplayTest, ProcessZeroGetsWhatSimulateGives) {
  for (uint32_t Seed = 0; Seed != 40; ++Seed) {
    RandomDag D = rankedDag(Seed);
    const SimResult Want = sim(D.G);
    SimOptions Given;
    Given.Order = &D.Topo;
    Graph File = fileCopy(D.G);
    const SimResult WantFile = sim(File);
    for (unsigned Processes : {1u, 2u, 3u, 4u, 7u}) {
      const std::string Where = seedAndProcesses(Seed, Processes);
      // Dead tasks: the canonical order; a caller's order; a file's slots.
      auto Canonical = runSplit(D.G, Processes);
      ASSERT_TRUE(bool(Canonical)) << llvm::toString(Canonical.takeError());
      expectSameResult(Want, *Canonical, Where + ", canonical order",
                       SimEngine::DistributedLinear);
      auto Caller = runSplit(D.G, Processes, Given);
      ASSERT_TRUE(bool(Caller)) << llvm::toString(Caller.takeError());
      expectSameResult(Want, *Caller, Where + ", caller's order",
                       SimEngine::DistributedLinear);
      auto Slots = runSplit(File, Processes);
      ASSERT_TRUE(bool(Slots)) << llvm::toString(Slots.takeError());
      expectSameResult(WantFile, *Slots, Where + ", slot order",
                       SimEngine::DistributedSweep);
    }
  }
}

TEST(DistributedReplayTest, SharesAddUpAndMessagesCrossOnly) {
  RandomDag D = rankedDag(11);
  Graph File = fileCopy(D.G);
  std::vector<ProcessShare> Shares;
  auto R = runSplit(File, 3, {}, &Shares);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_EQ(Shares.size(), 3u);
  uint64_t Tasks = 0;
  for (const ProcessShare &S : Shares)
    Tasks += S.Tasks;
  EXPECT_EQ(Tasks, File.numTasks());
  // A task with one edge to another process pushes into its successor
  // together with the sender's other such tasks: one message a (successor,
  // sender). A task with more sends its end once to each process that has
  // successors of it. Count both directly.
  const std::vector<uint32_t> Owner = assignLanesToProcesses(File, 3);
  auto OwnerOf = [&](TaskId T) { return Owner[File.task(T).Lane]; };
  std::map<TaskId, std::vector<const Edge *>> CrossingOf;
  for (const Edge &E : File.edgeSlots())
    if (OwnerOf(E.Src) != OwnerOf(E.Dst))
      CrossingOf[E.Src].push_back(&E);
  std::set<std::pair<TaskId, uint32_t>> FromTask, IntoTask;
  for (const auto &[Src, Edges] : CrossingOf)
    for (const Edge *E : Edges) {
      if (Edges.size() == 1)
        IntoTask.insert({E->Dst, OwnerOf(Src)});
      else
        FromTask.insert({Src, OwnerOf(E->Dst)});
    }
  EXPECT_EQ(Shares[0].Messages + Shares[1].Messages + Shares[2].Messages,
            FromTask.size() + IntoTask.size());
  EXPECT_GT(FromTask.size(), 0u);
  EXPECT_GT(IntoTask.size(), 0u);
}

/// One world collective of \p Ranks ranks (MatchCollectives.h's shape),
/// as a file holds it: each rank's arrival a (rank r's lasting 7r mod 5)
/// -> the barrier B on a lane of no rank -> the rank's kernel t.
static Graph barrierJob(int32_t Ranks) {
  Graph G;
  LaneId Barriers = addLane(G, "collectives world", LaneKind::CommChannel);
  std::vector<TaskId> Arrive, Kernel;
  for (int32_t Rank = 0; Rank != Ranks; ++Rank) {
    LaneId L =
        addLane(G, "stream " + std::to_string(Rank), LaneKind::GpuStream);
    G.lane(L).Rank = Rank;
    Arrive.push_back(addTask(G, L, "a", int64_t(100) * Rank, 7 * Rank % 5));
    Kernel.push_back(addTask(G, L, "t", int64_t(100) * Rank, 0));
  }
  TaskId B =
      addTask(G, Barriers, "B", int64_t(100) * Ranks, 50, TaskKind::Collective);
  for (int32_t Rank = 0; Rank != Ranks; ++Rank) {
    G.addEdge(Arrive[Rank], B, EdgeKind::Comm);
    G.addEdge(B, Kernel[Rank], EdgeKind::Sync);
  }
  return fileCopy(G);
}

TEST(DistributedReplayTest, ACollectiveCostsOneMessageEachWay) {
  // Ranks 0-2 on process 0, ranks 3-5 on process 1, the world's barrier on
  // process 0: process 1's three arrivals go in one message; B's end comes
  // back in one.
  Graph File = barrierJob(6);
  const std::vector<uint32_t> Owner = assignLanesToProcesses(File, 2);
  for (LaneId L = 0; L != File.numLanes(); ++L)
    EXPECT_EQ(Owner[L], File.lane(L).Rank >= 3 ? 1u : 0u) << "lane " << L;
  std::vector<ProcessShare> Shares;
  auto R = runSplit(File, 2, {}, &Shares);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  expectSameResult(sim(File), *R, "barrier", SimEngine::DistributedSweep);
  EXPECT_EQ(Shares[0].Messages, 1u);
  EXPECT_EQ(Shares[1].Messages, 1u);
  EXPECT_EQ(Shares[0].Waits, 1u);
  EXPECT_EQ(Shares[1].Waits, 1u);
}

TEST(DistributedReplayTest, ACollectiveGoesThroughATree) {
  // 16 ranks on 8 processes, two a process, and a barrier of all of them
  // on process 0. The arrivals go up a binary tree over the processes and
  // the barrier's end down it: no process sends more than three messages
  // (one up, two down) however many processes there are, and there are
  // still P - 1 each way in all.
  Graph File = barrierJob(16);
  std::vector<ProcessShare> Shares;
  auto R = runSplit(File, 8, {}, &Shares);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  expectSameResult(sim(File), *R, "tree", SimEngine::DistributedSweep);
  uint64_t Messages = 0;
  for (unsigned P = 0; P != 8; ++P) {
    EXPECT_LE(Shares[P].Messages, 3u) << "process " << P;
    Messages += Shares[P].Messages;
  }
  EXPECT_EQ(Messages, 14u);
  // The root sends the end to two processes, each leaf sends one arrival.
  EXPECT_EQ(Shares[0].Messages, 2u);
  EXPECT_EQ(Shares[7].Messages, 1u);
}

TEST(DistributedReplayTest, RanksGoInBlocksOfEqualWork) {
  Graph G;
  // Ranks 0-3 with 10, 10, 10, 30 tasks; a lane of no rank.
  const int Counts[] = {10, 10, 10, 30};
  for (int32_t Rank = 0; Rank != 4; ++Rank) {
    LaneId L = addLane(G, "r" + std::to_string(Rank), LaneKind::GpuStream);
    G.lane(L).Rank = Rank;
    for (int I = 0; I != Counts[Rank]; ++I)
      addTask(G, L, "t", I, 1);
  }
  // A lane no rank leads into, and a group's barriers that ranks 2 and 3
  // lead into: with the lowest of them.
  LaneId Alone = addLane(G, "network", LaneKind::CommChannel);
  addTask(G, Alone, "n", 0, 1);
  LaneId Group = addLane(G, "collectives pg 1", LaneKind::CommChannel);
  TaskId Barrier = addTask(G, Group, "b", 100, 1);
  G.addEdge(59, Barrier, EdgeKind::Comm);
  G.addEdge(25, Barrier, EdgeKind::Comm);
  EXPECT_EQ(assignLanesToProcesses(G, 1),
            (std::vector<uint32_t>{0, 0, 0, 0, 0, 0}));
  // Half the work is rank 3's.
  EXPECT_EQ(assignLanesToProcesses(G, 2),
            (std::vector<uint32_t>{0, 0, 0, 1, 0, 0}));
  // A rank goes where its middle task falls: 5, 15, 25 and 45 of 60.
  EXPECT_EQ(assignLanesToProcesses(G, 4),
            (std::vector<uint32_t>{0, 1, 1, 3, 0, 1}));
  // More processes than ranks: some have none.
  EXPECT_EQ(assignLanesToProcesses(G, 8),
            (std::vector<uint32_t>{0, 2, 3, 6, 0, 3}));
}

TEST(DistributedReplayTest, ByPriorityLanesAreRefusedEverywhere) {
  RandomDag D = makeRandomDag(3, /*PriorityLanes=*/true);
  auto R = runSplit(D.G, 2);
  ASSERT_FALSE(bool(R));
  EXPECT_NE(llvm::toString(R.takeError())
                .find("a simulation split over processes needs every lane "
                      "in order, but lane 'lane1' runs by priority"),
            std::string::npos);
}

TEST(DistributedReplayTest, AnOrderOfTheWrongLengthIsRefused) {
  RandomDag D = rankedDag(5);
  std::vector<TaskId> Short(D.Topo.begin(), D.Topo.end() - 1);
  SimOptions Opts;
  Opts.Order = &Short;
  auto R = runSplit(D.G, 2, Opts);
  ASSERT_FALSE(bool(R));
  EXPECT_NE(llvm::toString(R.takeError()).find("was given an order of"),
            std::string::npos);
}

/// The critical path's totals of \p Got are \p Want's.
void expectSamePath(const SimResult &Want, const SimResult &Got,
                    const std::string &Where) {
  ASSERT_TRUE(Want.CriticalPath && Got.CriticalPath) << Where;
  EXPECT_EQ(Got.CriticalPath->NumSteps, Want.CriticalPath->NumSteps) << Where;
  EXPECT_EQ(Got.CriticalPath->GapNs, Want.CriticalPath->GapNs) << Where;
  for (unsigned K = 0; K != NumLaneKinds; ++K)
    EXPECT_EQ(Got.CriticalPath->ByLaneKind[K], Want.CriticalPath->ByLaneKind[K])
        << Where << ", lane kind " << K;
}

TEST(DistributedReplayTest, WindowedSweepReducesWhatOneProcessSums) {
  // Where no task's times are kept, a job as read from a file is walked by
  // the windowed sweep on each process, and process 0 adds up the lanes,
  // iterations, critical path and observer's view: exactly the one-process
  // windowed sweep's. Half the jobs number their lanes against their ids,
  // so that the tie rule (tieKey()) is checked where it is not the ids'.
  for (uint32_t Seed = 0; Seed != 12; ++Seed) {
    Graph File = fileCopy(jobGraph(Seed, 6, 40, Seed % 2));
    const SimOptions Opts = windowedWithPath();
    RecordingObserver One;
    SimOptions OneOpts = Opts;
    OneOpts.Observer = &One;
    const SimResult Want = sim(File, OneOpts);
    ASSERT_EQ(Want.Engine, SimEngine::Windowed) << "seed " << Seed;
    ASSERT_TRUE(Want.CriticalPath);
    One.finish(Want.OriginNs);
    for (unsigned Processes : {1u, 2u, 3u, 4u, 7u}) {
      const std::string Where = seedAndProcesses(Seed, Processes);
      std::vector<RecordingObserver> Each(Processes);
      std::vector<TaskTimeObserver *> Observers;
      Observers.reserve(Processes);
      for (RecordingObserver &O : Each)
        Observers.push_back(&O);
      std::vector<ProcessShare> Shares;
      auto Got = runSplit(File, Processes, Opts, &Shares, &Observers);
      ASSERT_TRUE(bool(Got)) << llvm::toString(Got.takeError());
      expectSameResult(Want, *Got, Where, SimEngine::DistributedWindowed);
      EXPECT_TRUE(Got->Start.empty()) << Where;
      EXPECT_TRUE(Got->Observed) << Where;
      expectSamePath(Want, *Got, Where);
      EXPECT_EQ(Each[0].sorted(), One.sorted()) << Where;
      EXPECT_EQ(Each[0].Origin, One.Origin) << Where;
      uint64_t Tasks = 0;
      for (const ProcessShare &S : Shares)
        Tasks += S.Tasks;
      EXPECT_EQ(Tasks, File.numTasks()) << Where;
    }
  }
}

TEST(DistributedReplayTest, SharesOfAJobSumWhatOneProcessSums) {
  // Over shares of a split job (simulateShares()), each process walks the
  // ranks it is given and the messages name tasks by their place among the
  // barriers and their members': the same sums as one process, and every
  // task and edge counted by one process.
  for (uint32_t Seed = 0; Seed != 8; ++Seed) {
    Graph File = fileCopy(jobGraph(Seed, 6, 40, Seed % 2));
    const SimOptions Opts = windowedWithPath();
    const SimResult Want = sim(File, Opts);
    ASSERT_EQ(Want.Engine, SimEngine::Windowed);
    for (unsigned Processes : {2u, 3u, 4u, 7u}) {
      const std::string Where = seedAndProcesses(Seed, Processes);
      // Contiguous blocks of ranks, as processOfRanks() deals them; with 7
      // processes one holds no rank.
      std::vector<uint32_t> Of;
      for (uint32_t Rank = 0; Rank != 6; ++Rank)
        Of.push_back(Rank * Processes / 6);
      std::vector<ProcessShare> Shares;
      bool Declined = true;
      auto Got =
          runSplit(File, Processes, Opts, &Shares, nullptr, Of, &Declined);
      ASSERT_TRUE(bool(Got)) << llvm::toString(Got.takeError());
      ASSERT_FALSE(Declined) << Where;
      expectSameResult(Want, *Got, Where, SimEngine::DistributedShares);
      expectSamePath(Want, *Got, Where);
      uint64_t Tasks = 0, Edges = 0;
      for (unsigned P = 0; P != Processes; ++P) {
        Tasks += Shares[P].Tasks;
        Edges += Shares[P].Edges;
        // What each process says it took to read its share reaches
        // process 0 (-time-phases).
        EXPECT_EQ(Shares[P].Read.WallNs, readTimeOf(P).WallNs) << Where;
        EXPECT_EQ(Shares[P].Read.CpuNs, readTimeOf(P).CpuNs) << Where;
        // Its results' size, which it counts as it sends them: the share
        // values and sums at least.
        if (P != 0)
          EXPECT_GT(Shares[P].ResultValues, 11u) << Where;
      }
      EXPECT_EQ(Tasks, File.numTasks()) << Where;
      EXPECT_EQ(Edges, File.countLiveEdges()) << Where;
    }
  }
}

TEST(DistributedReplayTest, SharesDeclineWhatTheyCannotName) {
  // An edge straight from one rank to another (a pass's, never an
  // import's) crosses processes outside any collective: its tasks have no
  // name every share would agree on, so every process declines, and none
  // waits for another.
  Graph G = jobGraph(3, 4, 10);
  TaskId From = NoId, To = NoId;
  for (TaskId T = 0; T != G.numTaskSlots(); ++T) {
    const int32_t Rank = G.lane(G.task(T).Lane).Rank;
    if (Rank == 0 && G.task(T).Kind == TaskKind::CpuOp && From == NoId)
      From = T;
    if (Rank == 3 && G.task(T).Kind == TaskKind::CpuOp && From != NoId &&
        T > From && To == NoId)
      To = T;
  }
  ASSERT_NE(To, NoId);
  G.addEdge(From, To, EdgeKind::Data);
  Graph File = fileCopy(G);
  SimOptions Opts;
  Opts.TaskTimes = false;
  ASSERT_EQ(sim(File, Opts).Engine, SimEngine::Windowed);
  const std::vector<uint32_t> Of = {0, 0, 1, 1};
  bool Declined = false;
  auto Got = runSplit(File, 2, Opts, nullptr, nullptr, Of, &Declined);
  ASSERT_TRUE(bool(Got)) << llvm::toString(Got.takeError());
  EXPECT_TRUE(Declined);
}
