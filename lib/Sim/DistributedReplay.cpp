//===- DistributedReplay.cpp - The replay over many processes -------------===//
//
// The linear engine's formulas (Simulator.h), restricted to the tasks this
// process owns; a predecessor another process owns is waited for, and a task
// with a successor elsewhere is sent there as soon as its end is known. The
// protocol and why it cannot deadlock are in DistributedReplay.h. Two walks,
// as in one process (LinearReplay.cpp): on a graph as read from a file, a
// sweep over slot order that pushes each end along the task's stretch of
// the source-sorted edge array and builds no index; on any other graph, a
// walk over the canonical order that pulls from an incoming adjacency.
// Times run from 0, as in the sweep, and process 0 shifts them by the
// earliest recorded start once every process has said its own. Where the
// caller reads no task's times, a graph as read from a file is walked by
// the windowed sweep instead (DistributedWindowedSweep.cpp), which keeps
// none.
//
// The messages (DistributedWalk.h) of these two walks: {FromTask, T, end}
// and {IntoTask, D, start bound, end bound, edges}. The sweep's go through
// the trees of SweepCrossings.cpp (an IntoTask message for a task of
// another process comes from below in its tree, into our group for it; a
// FromTask one is passed on down); the linear walk sends each end straight
// to every process that needs it.
//
//===----------------------------------------------------------------------===//

#include "DistributedWalk.h"
#include "Replay.h"

#include "daydream/IR/CanonicalOrder.h"
#include "daydream/IR/Graph.h"
#include "daydream/Sim/DistributedReplay.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <limits>
#include <map>
#include <utility>

using namespace dd;
using namespace dd::sim;

ProcessGroup::~ProcessGroup() = default;

std::vector<uint32_t> dd::assignLanesToProcesses(const Graph &G,
                                                 unsigned Processes) {
  return assignLanes(G, Processes, nullptr);
}

std::vector<uint32_t>
dd::sim::assignLanes(const Graph &G, unsigned Processes,
                     std::vector<RankRun> *Runs,
                     llvm::ArrayRef<uint32_t> ProcessOfRank) {
  std::vector<uint32_t> Owner(G.numLanes(), 0);
  const bool AllLive = G.numTasks() == G.numTaskSlots();
  if (!(Runs && AllLive) && Processes <= 1)
    return Owner;
  std::vector<uint64_t> LaneTasks(G.numLanes(), 0);
  llvm::ArrayRef<Task> Tasks = G.taskSlots();
  if (Runs && AllLive) {
    // The same pass finds the runs of one rank's tasks: the walks then
    // skip other processes' runs without reading their tasks.
    std::vector<int32_t> LaneRank;
    for (const Lane &L : G.lanes())
      LaneRank.push_back(L.Rank);
    int32_t Last = 0;
    for (TaskId T = 0, N = Tasks.size(); T != N; ++T) {
      const LaneId L = Tasks[T].Lane;
      ++LaneTasks[L];
      if (LaneRank[L] != Last || T == 0) {
        Last = LaneRank[L];
        Runs->push_back({T, Last});
      }
    }
  } else {
    for (TaskId T = 0, N = Tasks.size(); T != N; ++T)
      if (AllLive || G.isLive(T))
        ++LaneTasks[Tasks[T].Lane];
  }
  if (Processes <= 1)
    return Owner;
  // Every rank, with or without live tasks, so that a rank's process does
  // not depend on which others the symmetry reduction left out.
  std::map<int32_t, uint64_t> RankTasks;
  uint64_t Total = 0;
  for (LaneId L = 0; L != G.numLanes(); ++L)
    if (int32_t Rank = G.lane(L).Rank; Rank >= 0) {
      RankTasks[Rank] += LaneTasks[L];
      Total += LaneTasks[L];
    }
  // A rank goes to the block its middle task falls in; without live tasks,
  // to the block of where it would start.
  std::map<int32_t, uint32_t> RankOwner;
  uint64_t Before = 0;
  size_t Index = 0;
  for (const auto &[Rank, Count] : RankTasks) {
    if (!ProcessOfRank.empty()) {
      RankOwner[Rank] = static_cast<size_t>(Rank) < ProcessOfRank.size()
                            ? std::min(ProcessOfRank[Rank], Processes - 1)
                            : 0;
      continue;
    }
    uint64_t Process = Total == 0
                           ? Index * Processes / RankTasks.size()
                           : ((2 * Before + Count) * Processes) / (2 * Total);
    RankOwner[Rank] = std::min<uint64_t>(Process, Processes - 1);
    Before += Count;
    ++Index;
  }
  for (LaneId L = 0; L != G.numLanes(); ++L)
    if (int32_t Rank = G.lane(L).Rank; Rank >= 0)
      Owner[L] = RankOwner[Rank];
  // A lane of no rank that ranks' tasks lead into (a process group's
  // barriers, a pass's network lane) goes with the lowest of those ranks:
  // a group within one process's ranks then needs no message at all, and
  // the world's barriers stay on process 0.
  std::vector<int32_t> LowestFeeder(G.numLanes(), -1);
  for (const Edge &E : G.edgeSlots()) {
    if (!G.isLive(E))
      continue;
    const LaneId To = Tasks[E.Dst].Lane;
    const int32_t From = G.lane(Tasks[E.Src].Lane).Rank;
    if (G.lane(To).Rank < 0 && From >= 0 &&
        (LowestFeeder[To] < 0 || From < LowestFeeder[To]))
      LowestFeeder[To] = From;
  }
  for (LaneId L = 0; L != G.numLanes(); ++L)
    if (LowestFeeder[L] >= 0)
      Owner[L] = RankOwner[LowestFeeder[L]];
  return Owner;
}

WalkBase::WalkBase(const Graph &G, ProcessGroup &PG,
                   llvm::ArrayRef<uint32_t> ProcessOfRank)
    : G(G), PG(PG), Me(PG.index()), IsShare(!ProcessOfRank.empty()) {
  std::vector<RankRun> Runs;
  Owner = assignLanes(G, PG.size(), &Runs, ProcessOfRank);
  llvm::DenseMap<int32_t, uint32_t> RankOwner; // keys: rank + 1
  for (LaneId L = 0; L != G.numLanes(); ++L)
    RankOwner[G.lane(L).Rank + 1] = Owner[L];
  const TaskId N = static_cast<TaskId>(G.numTaskSlots());
  for (size_t I = 0; I != Runs.size(); ++I) {
    if (Runs[I].Rank >= 0 && RankOwner.lookup(Runs[I].Rank + 1) != Me)
      continue;
    const TaskId Begin = Runs[I].Begin;
    const TaskId End = I + 1 != Runs.size() ? Runs[I + 1].Begin : N;
    if (!OwnedRuns.empty() && OwnedRuns.back().second == Begin)
      OwnedRuns.back().second = End;
    else
      OwnedRuns.emplace_back(Begin, End);
  }
  if (IsShare)
    nameOnTheWire();
}

void WalkBase::nameOnTheWire() {
  // In a job as imported, messages name only barriers and their members'
  // kernels: a member's arrival has one edge, into its barrier, and so
  // arrives in its process's group message for the barrier; a barrier's
  // end goes down its tree (naming the barrier), or where its only edge to
  // another process is into one member's kernel, in a message into that
  // kernel. Every share has every barrier (a table copies its rank's
  // collectives), on the same lanes in the same order, each with the same
  // members: a barrier is named by its place among the barriers (lane by
  // lane, in lane order), and a member's kernel by its barrier's place and
  // its rank. Any other task that crosses is not named, and the walk
  // declines (wireable()).
  //
  // A share as read from a file lists each lane's tasks in slot order, so
  // a barrier's place is its lane's first place plus the barriers before
  // it in slot order.
  std::vector<TaskId> Barriers;
  std::vector<uint64_t> Place(G.numLanes(), 0);
  for (TaskId T = 0, N = G.numTaskSlots(); T != N; ++T)
    if (G.isLive(T) && G.lane(G.task(T).Lane).Rank < 0) {
      Barriers.push_back(T);
      ++Place[G.task(T).Lane];
    }
  uint64_t Before = 0;
  for (uint64_t &Count : Place)
    Before += std::exchange(Count, Before);
  llvm::ArrayRef<Edge> Edges = G.edgeSlots();
  llvm::SmallVector<std::pair<int32_t, TaskId>, 8> Kernels;
  for (TaskId B : Barriers) {
    const uint64_t Barrier = Place[G.task(B).Lane]++;
    WireOf[B] = Barrier;
    LocalOf[Barrier] = B;
    Kernels.clear();
    for (const Edge *E = edgesFrom(Edges.begin(), Edges.end(), B);
         E != Edges.end() && E->Src == B; ++E)
      if (G.isLive(*E) && G.lane(G.task(E->Dst).Lane).Rank >= 0)
        Kernels.emplace_back(G.lane(G.task(E->Dst).Lane).Rank, E->Dst);
    llvm::sort(Kernels);
    // Two of one rank could be told apart differently by two shares:
    // neither is named.
    for (size_t I = 0; I != Kernels.size(); ++I) {
      const int32_t Rank = Kernels[I].first;
      if ((I && Kernels[I - 1].first == Rank) ||
          (I + 1 != Kernels.size() && Kernels[I + 1].first == Rank))
        continue;
      // After every barrier's name, rank by rank: names the hash tables
      // spread well (their hash is the low bits times 37).
      const uint64_t Name =
          Barrier + (uint64_t(uint32_t(Rank)) + 1) * Barriers.size();
      WireOf[Kernels[I].second] = Name;
      LocalOf[Name] = Kernels[I].second;
    }
  }
}

bool WalkBase::wireable(const SweepCrossings &X) const {
  if (!IsShare)
    return true;
  auto Named = [&](TaskId T) { return WireOf.count(T) != 0; };
  return llvm::all_of(
             X.Groups,
             [&](const SweepCrossings::Group &Gr) { return Named(Gr.Into); }) &&
         llvm::all_of(X.Remote,
                      [&](const std::pair<TaskId, uint32_t> &R) {
                        return Named(R.first);
                      }) &&
         llvm::all_of(X.Forward,
                      [&](const auto &KV) { return Named(KV.first); });
}

namespace {

llvm::Error refused(const llvm::Twine &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "a simulation split over processes " + Why);
}

/// A walk that keeps every task's times, and gathers them on process 0.
class TimesWalk : public WalkBase {
public:
  using WalkBase::WalkBase;

  /// Process 0: fills the times of every other process's tasks, which come
  /// in the sequence of \p Order, and shifts every time by the earliest
  /// recorded start; the others: send theirs. Returns that origin.
  template <typename OrderT>
  int64_t gather(const OrderT &Order, std::vector<ProcessShare> *Shares);

  /// Relative times: from 0 at the earliest recorded start.
  std::vector<int64_t> Start, End;
};

/// The most values in one result message: MPI counts in int, and process 0
/// holds one a process at a time.
constexpr size_t ChunkValues = size_t(1) << 20;

template <typename OrderT>
int64_t TimesWalk::gather(const OrderT &Order,
                          std::vector<ProcessShare> *Shares) {
  const unsigned Processes = PG.size();
  constexpr auto Results = ProcessGroup::Channel::Results;
  if (Me != 0) {
    // The share first, then start and end of each task of ours in the
    // order's sequence, which process 0 walks again to place them. Each
    // chunk is waited for, so that no process holds a copy of its times.
    std::vector<int64_t> Head;
    Share.ResultValues = ShareValues + 2 * Share.Tasks;
    appendShare(Head);
    PG.send(0, Results, Head);
    std::vector<int64_t> Chunk;
    Chunk.reserve(std::min<size_t>(ChunkValues, 2 * Share.Tasks));
    auto Flush = [&] {
      PG.send(0, Results, Chunk);
      PG.finishSends();
      Chunk.clear();
    };
    for (TaskId T : Order) {
      if (!owns(T))
        continue;
      Chunk.push_back(Start[T]);
      Chunk.push_back(End[T]);
      if (Chunk.size() == ChunkValues)
        Flush();
    }
    if (!Chunk.empty())
      Flush();
    return 0;
  }
  if (Shares)
    Shares->assign(Processes, ProcessShare());
  int64_t Origin = MinStart;
  std::vector<int64_t> Head;
  for (unsigned P = 1; P != Processes; ++P)
    receiveResults(P, Head, Origin, Shares);
  // One chunk a process at a time, taken as the walk reaches its tasks.
  std::vector<std::vector<int64_t>> Chunks(Processes);
  std::vector<size_t> Next(Processes, 0);
  for (TaskId T : Order) {
    const uint32_t P = ownerOf(T);
    if (P != 0) {
      std::vector<int64_t> &C = Chunks[P];
      if (Next[P] == C.size()) {
        C.clear();
        PG.receive(P, Results, C);
        Next[P] = 0;
      }
      Start[T] = C[Next[P]++];
      End[T] = C[Next[P]++];
    }
    Start[T] += Origin;
    End[T] += Origin;
  }
  if (Shares) {
    Share.ResultValues = 0;
    for (unsigned P = 1; P != Processes; ++P)
      Share.ResultValues += (*Shares)[P].ResultValues;
    (*Shares)[0] = Share;
  }
  return Origin;
}

/// The walk over slot order of a graph as read from a file: each end is
/// pushed along the task's edges (sorted by source, each to a higher id),
/// and a task another process owns is skipped, its edges with it. What
/// another process sends is pushed along the sender's edges to our tasks,
/// found by a binary search of the edge array; a task waits until every
/// edge into it from another process was pushed.
class PushWalk : public TimesWalk {
public:
  PushWalk(const Graph &G, ProcessGroup &PG)
      : TimesWalk(G, PG), X(findSweepCrossings(G, Owner, Me)) {
    const size_t N = G.numTaskSlots();
    Start.assign(N, 0);
    End.assign(N, Unset);
    LaneLast.assign(G.numLanes(), NoId);
    for (const SweepCrossings::Group &Gr : X.Groups)
      Groups.push_back({Gr.awaited()});
    OpenGroups = Groups.size();
  }

  void walk();
  /// After the walk: receives until every group has gone up its tree.
  void drain();

private:
  /// The count in X.Waiting of task \p D: its edges from elsewhere yet to
  /// be pushed.
  uint32_t &edgesToCome(TaskId D) {
    return std::lower_bound(X.Waiting.begin(), X.Waiting.end(),
                            std::make_pair(D, uint32_t(0)))
        ->second;
  }
  /// After task \p T ended at \p En: its edge into a group, if any, and
  /// the group's message once its last edge is in.
  void pushInto(TaskId T, int64_t En);
  /// Sends group \p I's message up its tree.
  void sendGroup(uint32_t I);
  /// Applies a time message.
  void apply(llvm::ArrayRef<int64_t> M);
  /// Pushes \p Src's end \p En along its edges to our tasks.
  void pushFrom(TaskId Src, int64_t En);
  void push(const Edge &E, int64_t En) {
    int64_t &Bound = E.Kind == EdgeKind::Sync ? End[E.Dst] : Start[E.Dst];
    Bound = std::max(Bound, En);
  }
  /// Receives until \p Left (a count in X.Waiting) is 0.
  void waitFor(const uint32_t &Left);

  SweepCrossings X;
  std::vector<TaskId> LaneLast;
  /// Per group of X: its edges and messages from below to go, its bounds
  /// so far and the edges they stand for.
  struct GroupBounds {
    uint32_t Left;
    int64_t StartBound = Unset, EndBound = Unset;
    uint32_t Edges = 0;
  };
  std::vector<GroupBounds> Groups;
  size_t NextInto = 0;
  size_t OpenGroups = 0;
};

void PushWalk::pushInto(TaskId T, int64_t En) {
  if (NextInto == X.Into.size() || X.Into[NextInto].From != T)
    return;
  const SweepCrossings::IntoEdge &E = X.Into[NextInto++];
  GroupBounds &Gr = Groups[E.Group];
  int64_t &Bound = E.Sync ? Gr.EndBound : Gr.StartBound;
  Bound = std::max(Bound, En);
  ++Gr.Edges;
  if (--Gr.Left == 0)
    sendGroup(E.Group);
}

void PushWalk::sendGroup(uint32_t I) {
  const GroupBounds &Gr = Groups[I];
  const int64_t Values[] = {IntoTask, static_cast<int64_t>(X.Groups[I].Into),
                            Gr.StartBound, Gr.EndBound,
                            static_cast<int64_t>(Gr.Edges)};
  PG.send(X.Groups[I].Parent, ProcessGroup::Channel::Times, Values);
  ++Share.Messages;
  --OpenGroups;
}

void PushWalk::apply(llvm::ArrayRef<int64_t> M) {
  const TaskId D = static_cast<TaskId>(M[1]);
  if (M[0] == FromTask) {
    passDown(X, D, M);
    pushFrom(D, M[2]);
    return;
  }
  if (!owns(D)) {
    // From below in D's tree: into our group for D.
    assert(X.GroupOf.count(D) && "a message from below in a tree");
    const uint32_t I = X.GroupOf.lookup(D);
    GroupBounds &Gr = Groups[I];
    Gr.StartBound = std::max(Gr.StartBound, M[2]);
    Gr.EndBound = std::max(Gr.EndBound, M[3]);
    Gr.Edges += static_cast<uint32_t>(M[4]);
    if (--Gr.Left == 0)
      sendGroup(I);
    return;
  }
  Start[D] = std::max(Start[D], M[2]);
  End[D] = std::max(End[D], M[3]);
  edgesToCome(D) -= static_cast<uint32_t>(M[4]);
}

void PushWalk::drain() {
  receiveUntil([&] { return OpenGroups == 0; },
               [&](llvm::ArrayRef<int64_t> M) { apply(M); });
}

void PushWalk::pushFrom(TaskId Src, int64_t En) {
  for (const Edge &E : edgesOutOf(Src)) {
    if (!owns(E.Dst))
      continue;
    push(E, En);
    --edgesToCome(E.Dst);
  }
}

void PushWalk::waitFor(const uint32_t &Left) {
  receiveUntil([&] { return Left == 0; },
               [&](llvm::ArrayRef<int64_t> M) { apply(M); });
}

void PushWalk::walk() {
  const Task *Tasks = G.taskSlots().data();
  const Edge *Edges = G.edgeSlots().data();
  const Edge *const EdgesEnd = Edges + G.edgeSlots().size();
  size_t NextRemote = 0, NextWaiting = 0;
  for (auto [Begin, RunEnd] : OwnedRuns) {
    Edges = edgesFrom(Edges, EdgesEnd, Begin);
    for (TaskId T = Begin; T != RunEnd; ++T) {
      const Task &Tk = Tasks[T];
      if (Owner[Tk.Lane] != Me) {
        while (Edges != EdgesEnd && Edges->Src == T)
          ++Edges;
        continue;
      }
      if (NextWaiting != X.Waiting.size() && X.Waiting[NextWaiting].first == T)
        waitFor(X.Waiting[NextWaiting++].second);
      int64_t St = Start[T];
      if (TaskId P = LaneLast[Tk.Lane]; P != NoId)
        St = std::max(St, End[P]);
      LaneLast[Tk.Lane] = T;
      St += Tk.GapNs;
      const int64_t En = std::max(St + Tk.DurationNs, End[T]);
      Start[T] = St;
      End[T] = En;
      noteVisited(Tk);
      for (; Edges != EdgesEnd && Edges->Src == T; ++Edges)
        if (Owner[Tasks[Edges->Dst].Lane] == Me)
          push(*Edges, En);
      const int64_t Values[] = {FromTask, static_cast<int64_t>(T), En};
      sendEnd(X.Remote, T, Values, NextRemote);
      pushInto(T, En);
    }
  }
}

/// The walk over any topological order: each task pulls its predecessors'
/// ends from an incoming adjacency, and one another process owns is waited
/// for until a message brings it.
class PullWalk : public TimesWalk {
public:
  PullWalk(const Graph &G, ProcessGroup &PG)
      : TimesWalk(G, PG), In(buildAdjacency(G, Direction::Incoming)) {
    const size_t N = G.numTaskSlots();
    Start.assign(N, Unset);
    End.assign(N, Unset);
    // Every task of ours with a successor on another process sends its end.
    HasRemote.assign(N, 0);
    for (const Edge &E : G.edgeSlots())
      if (G.isLive(E) && owns(E.Src))
        if (uint32_t To = ownerOf(E.Dst); To != Me) {
          Remote.emplace_back(E.Src, To);
          HasRemote[E.Src] = 1;
        }
    llvm::sort(Remote);
    Remote.erase(std::unique(Remote.begin(), Remote.end()), Remote.end());
  }

  /// Replays task \p T if this process owns it.
  llvm::Error visit(TaskId T);

private:
  /// The end of predecessor \p P, waited for if another process owns it;
  /// Unset where this process owns it and has not replayed it.
  int64_t endOf(TaskId P);

  SplitAdjacency In;
  RemoteList Remote;
  std::vector<uint8_t> HasRemote;
};

int64_t PullWalk::endOf(TaskId P) {
  if (owns(P))
    return End[P];
  // The pull walk sends FromTask messages only.
  receiveUntil([&] { return End[P] != Unset; },
               [&](llvm::ArrayRef<int64_t> M) {
                 End[static_cast<TaskId>(M[1])] = M[2];
               });
  return End[P];
}

llvm::Error PullWalk::visit(TaskId T) {
  // A caller's order is checked as replayLinear() checks it, on the tasks
  // this process replays.
  if (T >= G.numTaskSlots() || !G.isLive(T))
    return badOrderEntry(G, T);
  if (!owns(T))
    return llvm::Error::success();
  if (End[T] != Unset)
    return notTopological(G, T, "is listed twice");
  const Task &Tk = G.task(T);
  // A lane is on one process, so its predecessor on the lane is ours.
  int64_t St = 0;
  if (TaskId P = G.prevOnLane(T); P != NoId) {
    St = End[P];
    if (St == Unset)
      return predecessorAfter(G, T, P);
  }
  uint64_t I = In.orderBegin(T);
  const uint64_t Mid = In.syncBegin(T), Last = In.end(T);
  for (; I != Mid; ++I) {
    int64_t PredEnd = endOf(In.Adj[I]);
    if (PredEnd == Unset)
      return predecessorAfter(G, T, In.Adj[I]);
    St = std::max(St, PredEnd);
  }
  St += Tk.GapNs;
  int64_t En = St + Tk.DurationNs;
  for (; I != Last; ++I) {
    int64_t PredEnd = endOf(In.Adj[I]);
    if (PredEnd == Unset)
      return predecessorAfter(G, T, In.Adj[I]);
    En = std::max(En, PredEnd);
  }
  Start[T] = St;
  End[T] = En;
  noteVisited(Tk);
  if (HasRemote[T]) {
    size_t Next = std::lower_bound(Remote.begin(), Remote.end(),
                                   std::make_pair(T, uint32_t(0))) -
                  Remote.begin();
    const int64_t Values[] = {FromTask, static_cast<int64_t>(T), En};
    sendEnd(Remote, T, Values, Next);
  }
  return llvm::Error::success();
}

/// Slot order as a range, for a graph whose slot order is topological.
struct SlotOrder {
  struct Iterator {
    TaskId T;
    TaskId operator*() const { return T; }
    Iterator &operator++() {
      ++T;
      return *this;
    }
    bool operator!=(const Iterator &O) const { return T != O.T; }
  };
  TaskId N;
  Iterator begin() const { return {0}; }
  Iterator end() const { return {N}; }
};

/// Process 0's result from a walk's times; None on the others.
template <typename OrderT>
llvm::Optional<SimResult>
finishWalk(const Graph &G, TimesWalk &W, const OrderT &Order, ProcessGroup &PG,
           std::vector<ProcessShare> *Shares,
           std::chrono::steady_clock::time_point WalkBegan, SimEngine Engine) {
  W.finish();
  W.share().WalkNs = nanosecondsSince(WalkBegan);
  const auto Began = std::chrono::steady_clock::now();
  const int64_t Origin = W.gather(Order, Shares);
  if (PG.index() != 0)
    return llvm::None;
  if (Shares)
    (*Shares)[0].GatherNs = nanosecondsSince(Began);
  SimResult R;
  R.OriginNs = G.numTasks() == 0 ? 0 : Origin;
  R.Start = std::move(W.Start);
  R.End = std::move(W.End);
  R.Engine = Engine;
  summarize(G, R);
  return R;
}

} // namespace

/// What no walk over processes simulates, as its refusal.
static llvm::Error checkWalkable(const Graph &G, const SimOptions &Opts) {
  for (const Lane &L : G.lanes())
    if (L.Order == LaneOrder::ByPriority)
      return refused("needs every lane in order, but lane '" + G.str(L.Name) +
                     "' runs by priority; simulate it as one process");
  if (Opts.ForceEventDriven)
    return refused("runs the linear engine, not the event-driven one");
  return llvm::Error::success();
}

llvm::Expected<llvm::Optional<SimResult>>
dd::simulateShares(const Graph &Share, const SimOptions &Opts, ProcessGroup &PG,
                   llvm::ArrayRef<uint32_t> ProcessOfRank, ShareReadTime Read,
                   std::vector<ProcessShare> *Shares, bool &Declined) {
  const auto Began = std::chrono::steady_clock::now();
  if (llvm::Error E = checkWalkable(Share, Opts))
    return std::move(E);
  if (Opts.TaskTimes || Opts.Order)
    return refused("of a job's shares keeps no task's times and takes no "
                   "order");
  // Every process gets here: the options are the same on all, and a lane by
  // priority is in every share (a table copies its rank's lanes).
  return simulateWindowedOverShares(Share, Opts, PG, ProcessOfRank, Read,
                                    Shares, Declined, Began);
}

llvm::Expected<llvm::Optional<SimResult>>
dd::simulateDistributed(const Graph &G, const SimOptions &Opts,
                        ProcessGroup &PG, std::vector<ProcessShare> *Shares) {
  if (llvm::Error E = checkWalkable(G, Opts))
    return std::move(E);
  if (Opts.Order && Opts.Order->size() != G.numTasks())
    return refused("was given an order of " + llvm::Twine(Opts.Order->size()) +
                   " tasks for a graph of " + llvm::Twine(G.numTasks()) +
                   " live tasks");

  auto Began = std::chrono::steady_clock::now();
  // A graph as read from a file: the sweep, unless a caller's order says
  // otherwise. isSweepable() has every lane's list in increasing ids, so a
  // task's predecessor on its lane is the lane's last task visited. Where
  // no one reads the times, the windowed one, which keeps none and
  // gathers nothing.
  const bool Sweepable = !Opts.Order && isSweepable(G);
  if (Sweepable && !Opts.TaskTimes)
    if (const uint64_t Window = sweepWindow(G))
      return simulateWindowedOverProcesses(G, Opts, Window, PG, Shares, Began);
  if (Sweepable) {
    PushWalk W(G, PG);
    W.share().SetupNs = nanosecondsSince(Began);
    Began = std::chrono::steady_clock::now();
    W.walk();
    W.drain();
    const SlotOrder Slots{static_cast<TaskId>(G.numTaskSlots())};
    return finishWalk(G, W, Slots, PG, Shares, Began,
                      SimEngine::DistributedSweep);
  }
  llvm::Optional<CanonicalOrder> Own;
  if (!Opts.Order) {
    llvm::Expected<CanonicalOrder> C = computeCanonicalOrder(G);
    if (!C)
      return C.takeError();
    Own = std::move(*C);
  }
  llvm::ArrayRef<TaskId> Order = Opts.Order ? *Opts.Order : Own->Order;
  PullWalk W(G, PG);
  W.share().SetupNs = nanosecondsSince(Began);
  Began = std::chrono::steady_clock::now();
  for (TaskId T : Order)
    if (llvm::Error E = W.visit(T))
      return std::move(E);
  return finishWalk(G, W, Order, PG, Shares, Began,
                    SimEngine::DistributedLinear);
}
