//===- SimShares.cpp - dd-sim's processes each reading their ranks --------===//

#include "SimShares.h"

#include "ShareMemory.h"

#include "daydream/Import/JobShare.h"
#include "daydream/Import/SplitJob.h"
#include "daydream/Sim/Symmetry.h"

#include "llvm/Support/Process.h"
#include "llvm/Support/xxhash.h"

#include <chrono>
#include <set>
#include <utility>

using namespace dd;

namespace {

/// The wall time and the CPU time (user and system) of this process so far.
std::pair<std::chrono::nanoseconds, std::chrono::nanoseconds> timesNow() {
  llvm::sys::TimePoint<> Wall;
  std::chrono::nanoseconds User, System;
  llvm::sys::Process::GetTimeUsage(Wall, User, System);
  return {Wall.time_since_epoch(), User + System};
}

} // namespace

llvm::Expected<JobShareRead> dd::readShareOfJob(llvm::StringRef Path,
                                                const ProcessGroup &PG) {
  const auto Began = timesNow();
  auto J = import::readJobFile(Path);
  if (!J)
    return J.takeError();
  JobShareRead S;
  S.ProcessOfRank = import::processOfRanks(*J, PG.size());
  std::vector<int32_t> Mine;
  for (size_t R = 0; R != S.ProcessOfRank.size(); ++R)
    if (S.ProcessOfRank[R] == PG.index())
      Mine.push_back(static_cast<int32_t>(R));
  // Simulating reads the tasks and never changes one.
  auto G = import::readJobShare(Path, *J, Mine, GraphUse::ReadInPlace);
  if (!G)
    return G.takeError();
  S.G = std::move(*G);
  const auto Ended = timesNow();
  S.Took = {static_cast<uint64_t>((Ended.first - Began.first).count()),
            static_cast<uint64_t>((Ended.second - Began.second).count())};
  return std::move(S);
}

namespace {

/// Hashes of what every share of a job holds alike.
struct Layout {
  /// Its lanes and iterations, and the barriers on its lanes of no rank
  /// with the edges into and out of them (which the messages name,
  /// WalkBase::wire()), and their times and bytes (which come from every
  /// member's table or file: a table changed after it was written, its
  /// rank line intact, would give a barrier's process another transfer
  /// time than the rank's own process computes), in lane order.
  int64_t Content = 0;
  /// The barriers' lanes in the share's order, which the walk follows:
  /// processes that walked the barriers in different orders could wait for
  /// each other forever (docs/Distributed.md, "Why the shares cannot
  /// deadlock"; tables without CollectiveReach.h's edges).
  int64_t Order = 0;
};

Layout layoutOf(const Graph &G) {
  std::string Bytes;
  llvm::raw_string_ostream OS(Bytes);
  for (const Lane &L : G.lanes())
    OS << G.str(L.Name) << '\0' << unsigned(L.Kind) << ' ' << L.Rank << ' '
       << L.Device << '\n';
  for (const Iteration &I : G.iterations())
    OS << G.str(I.Name) << '\0' << I.StartNs << ' ' << I.MeasuredNs << ' '
       << I.Rank << '\n';
  auto OfNoRank = [&](TaskId T) { return G.lane(G.task(T).Lane).Rank < 0; };
  // Lane by lane (a lane's own order is every share's), then the lanes in
  // the order the share takes their barriers.
  std::vector<std::vector<TaskId>> OnLane(G.numLanes());
  std::vector<uint32_t> Order;
  for (TaskId T = 0, N = G.numTaskSlots(); T != N; ++T)
    if (G.isLive(T) && OfNoRank(T)) {
      OnLane[G.task(T).Lane].push_back(T);
      Order.push_back(G.task(T).Lane);
    }
  for (const std::vector<TaskId> &Barriers : OnLane)
    for (TaskId T : Barriers) {
      const Task &Tk = G.task(T);
      const TaskAttrs *A = G.attrs(T);
      OS << Tk.Lane << ' ' << Tk.StartNs << ' ' << Tk.DurationNs << ' '
         << Tk.GapNs << ' ' << (A ? A->Bytes : 0) << '\n';
    }
  uint64_t Into = 0, OutOf = 0;
  for (const Edge &E : G.edgeSlots())
    if (G.isLive(E) && OfNoRank(E.Src) != OfNoRank(E.Dst))
      ++(OfNoRank(E.Dst) ? Into : OutOf);
  OS << Into << ' ' << OutOf << '\n';
  const llvm::StringRef OrderBytes(reinterpret_cast<const char *>(Order.data()),
                                   Order.size() * sizeof(uint32_t));
  return Layout{static_cast<int64_t>(llvm::xxHash64(OS.str())),
                static_cast<int64_t>(llvm::xxHash64(OrderBytes))};
}

} // namespace

SharesVerdict dd::sharesStandForJob(const JobShareRead &S, ProcessGroup &PG,
                                    bool Symmetry) {
  const Graph &G = S.G;
  const unsigned Me = PG.index();
  // What this process found of its own ranks: {fine, layout, barriers'
  // order, then rank and hash per rank}.
  const Layout Mine = layoutOf(G);
  std::vector<int64_t> Found = {memoryIsRankLocal(G), Mine.Content, Mine.Order};
  if (Symmetry)
    for (const auto &[Rank, Hash] : rankFilterHashes(G))
      if (static_cast<size_t>(Rank) < S.ProcessOfRank.size() &&
          S.ProcessOfRank[Rank] == Me)
        Found.insert(Found.end(), {Rank, static_cast<int64_t>(Hash)});
  bool Fine = Found[0] != 0, SameOrder = true;
  if (Me != 0) {
    PG.send(0, ProcessGroup::Channel::Results, Found);
  } else {
    std::set<int64_t> Hashes;
    auto Add = [&](const std::vector<int64_t> &F) {
      Fine = Fine && F[0] != 0 && F[1] == Found[1];
      SameOrder = SameOrder && F[2] == Found[2];
      for (size_t I = 4; I < F.size(); I += 2)
        Fine = Hashes.insert(F[I]).second && Fine;
    };
    Add(Found);
    std::vector<int64_t> Theirs;
    for (unsigned P = 1; P != PG.size(); ++P) {
      Theirs.clear();
      PG.receive(P, ProcessGroup::Channel::Results, Theirs);
      Add(Theirs);
    }
  }
  const std::vector<uint8_t> All = PG.agree(Fine && SameOrder);
  SharesVerdict V;
  V.Stand = llvm::all_of(All, [](uint8_t Ok) { return Ok; });
  V.Memory = llvm::any_of(PG.agree(!G.memoryEvents().empty()),
                          [](uint8_t Has) { return Has; });
  V.OrdersDiffer = Me == 0 && Fine && !SameOrder;
  return V;
}
