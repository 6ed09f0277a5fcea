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
// earliest recorded start once every process has said its own.
//
// A time message is one of two kinds. {FromTask, T, end}: task T's end, for
// every successor of T on the receiving process; a collective's barrier
// sends one to each process with members. {IntoTask, D, start bound, end
// bound, edges}: what several of the sender's tasks, each with no other
// successor elsewhere, push into task D; the members a process owns arrive
// at a barrier in one message, not one each. Batching messages further
// would only hold back a process waiting for one.
//
//===----------------------------------------------------------------------===//

#include "Replay.h"

#include "daydream/IR/CanonicalOrder.h"
#include "daydream/IR/Graph.h"
#include "daydream/Sim/DistributedReplay.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <utility>

using namespace dd;
using namespace dd::sim;

ProcessGroup::~ProcessGroup() = default;

std::vector<uint32_t> dd::assignLanesToProcesses(const Graph &G,
                                                 unsigned Processes) {
  std::vector<uint32_t> Owner(G.numLanes(), 0);
  if (Processes <= 1)
    return Owner;
  std::vector<uint64_t> LaneTasks(G.numLanes(), 0);
  const bool AllLive = G.numTasks() == G.numTaskSlots();
  llvm::ArrayRef<Task> Tasks = G.taskSlots();
  for (TaskId T = 0, N = Tasks.size(); T != N; ++T)
    if (AllLive || G.isLive(T))
      ++LaneTasks[Tasks[T].Lane];
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

namespace {

llvm::Error refused(const llvm::Twine &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "a simulation split over processes " + Why);
}

uint64_t nanosecondsSince(std::chrono::steady_clock::time_point T) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now() - T)
      .count();
}

/// What both walks share: the owners, the times, the messages out and the
/// gathering on process 0.
class WalkBase {
public:
  WalkBase(const Graph &G, ProcessGroup &PG)
      : G(G), PG(PG), Me(PG.index()),
        Owner(assignLanesToProcesses(G, PG.size())) {}

  ProcessShare &share() { return Share; }
  /// After the walk: every time message delivered.
  void finish() { PG.finishSends(); }
  /// Process 0: fills the times of every other process's tasks, which come
  /// in the sequence of \p Order, and shifts every time by the earliest
  /// recorded start; the others: send theirs. Returns that origin.
  template <typename OrderT>
  int64_t gather(const OrderT &Order, std::vector<ProcessShare> *Shares);

  /// Relative times: from 0 at the earliest recorded start.
  std::vector<int64_t> Start, End;

protected:
  bool owns(TaskId T) const { return Owner[G.task(T).Lane] == Me; }
  uint32_t ownerOf(TaskId T) const { return Owner[G.task(T).Lane]; }
  /// Sorts Remote, once the walk has listed its pairs, and drops repeats.
  void sortRemote() {
    llvm::sort(Remote);
    Remote.erase(std::unique(Remote.begin(), Remote.end()), Remote.end());
  }
  /// Sends \p T's end to each process in Remote's run for \p T, whose
  /// start is at \p Next; advances \p Next past it.
  void sendEnd(TaskId T, int64_t En, size_t &Next);
  void noteVisited(const Task &Tk) {
    ++Share.Tasks;
    MinStart = std::min(MinStart, Tk.StartNs);
  }

  const Graph &G;
  ProcessGroup &PG;
  const unsigned Me;
  const std::vector<uint32_t> Owner;
  std::vector<int64_t> Message;
  /// (task of ours, process) for each task whose end is sent to another
  /// process that has successors of it, one message each; sorted.
  std::vector<std::pair<TaskId, uint32_t>> Remote;
  ProcessShare Share;
  /// The earliest recorded start among this process's tasks.
  int64_t MinStart = std::numeric_limits<int64_t>::max();
};

/// The first value of a time message (see the file comment).
enum MessageKind : int64_t { FromTask = 0, IntoTask = 1 };

void WalkBase::sendEnd(TaskId T, int64_t En, size_t &Next) {
  const int64_t Values[] = {FromTask, static_cast<int64_t>(T), En};
  for (; Next != Remote.size() && Remote[Next].first == T; ++Next) {
    PG.send(Remote[Next].second, ProcessGroup::Channel::Times, Values);
    ++Share.Messages;
  }
}

/// The most values in one result message: MPI counts in int, and process 0
/// holds one a process at a time.
constexpr size_t ChunkValues = size_t(1) << 20;

template <typename OrderT>
int64_t WalkBase::gather(const OrderT &Order,
                         std::vector<ProcessShare> *Shares) {
  const unsigned Processes = PG.size();
  constexpr auto Results = ProcessGroup::Channel::Results;
  if (Me != 0) {
    // The share first, then start and end of each task of ours in the
    // order's sequence, which process 0 walks again to place them. Each
    // chunk is waited for, so that no process holds a copy of its times.
    const int64_t Head[] = {static_cast<int64_t>(Share.Tasks),
                            static_cast<int64_t>(Share.Messages),
                            static_cast<int64_t>(Share.Waits),
                            static_cast<int64_t>(Share.SetupNs),
                            static_cast<int64_t>(Share.WalkNs),
                            static_cast<int64_t>(Share.WaitNs),
                            MinStart};
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
  for (unsigned P = 1; P != Processes; ++P) {
    Head.clear();
    PG.receive(P, Results, Head);
    Origin = std::min(Origin, Head[6]);
    if (Shares) {
      ProcessShare &Theirs = (*Shares)[P];
      Theirs.Tasks = static_cast<uint64_t>(Head[0]);
      Theirs.Messages = static_cast<uint64_t>(Head[1]);
      Theirs.Waits = static_cast<uint64_t>(Head[2]);
      Theirs.SetupNs = static_cast<uint64_t>(Head[3]);
      Theirs.WalkNs = static_cast<uint64_t>(Head[4]);
      Theirs.WaitNs = static_cast<uint64_t>(Head[5]);
    }
  }
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
  if (Shares)
    (*Shares)[0] = Share;
  return Origin;
}

/// The walk over slot order of a graph as read from a file: each end is
/// pushed along the task's edges (sorted by source, each to a higher id),
/// and a task another process owns is skipped, its edges with it. What
/// another process sends is pushed along the sender's edges to our tasks,
/// found by a binary search of the edge array; a task waits until every
/// edge into it from another process was pushed.
class PushWalk : public WalkBase {
public:
  PushWalk(const Graph &G, ProcessGroup &PG) : WalkBase(G, PG) {
    const size_t N = G.numTaskSlots();
    Start.assign(N, 0);
    End.assign(N, Unset);
    LaneLast.assign(G.numLanes(), NoId);
    findCrossings();
  }

  void walk();

private:
  /// One pass over the edges that cross processes: those from our tasks
  /// into Remote (sent from the task) and Into (pushed into the task with
  /// others), those into our tasks counted in Waiting.
  void findCrossings();
  /// The count in Waiting of task \p D, which has edges from elsewhere.
  uint32_t &edgesToCome(TaskId D) {
    return std::lower_bound(Waiting.begin(), Waiting.end(),
                            std::make_pair(D, uint32_t(0)))
        ->second;
  }
  /// After task \p T ended at \p En: its edge into a group, if any, and
  /// the group's message once its last edge is in.
  void pushInto(TaskId T, int64_t En);
  /// Applies a time message.
  void apply(llvm::ArrayRef<int64_t> M);
  /// Pushes \p Src's end \p En along its edges to our tasks.
  void pushFrom(TaskId Src, int64_t En);
  void push(const Edge &E, int64_t En) {
    int64_t &Bound = E.Kind == EdgeKind::Sync ? End[E.Dst] : Start[E.Dst];
    Bound = std::max(Bound, En);
  }
  /// Receives until \p Left (a count in Waiting) is 0.
  void waitFor(const uint32_t &Left);

  std::vector<TaskId> LaneLast;
  /// Where our tasks with a single edge to another process push into
  /// together: per such successor, its bounds so far and its edges to go.
  struct Group {
    TaskId Into;
    uint32_t Owner;
    uint32_t Edges = 0, Left = 0;
    int64_t StartBound = Unset, EndBound = Unset;
  };
  std::vector<Group> Groups;
  /// (task of ours, its edge's group, its edge a Sync one), by task.
  struct IntoEdge {
    TaskId From;
    uint32_t Group;
    bool Sync;
  };
  std::vector<IntoEdge> Into;
  size_t NextInto = 0;
  /// (task, edges into it from other processes not yet pushed), sorted.
  std::vector<std::pair<TaskId, uint32_t>> Waiting;
};

void PushWalk::findCrossings() {
  // The edge array is sorted by source, so each task's crossing edges are
  // found together.
  llvm::ArrayRef<Edge> Edges = G.edgeSlots();
  llvm::DenseMap<TaskId, uint32_t> GroupOf;
  std::vector<TaskId> Incoming;
  for (size_t I = 0; I != Edges.size();) {
    const TaskId Src = Edges[I].Src;
    const bool Ours = owns(Src);
    size_t End = I;
    unsigned Crossing = 0;
    const Edge *Only = nullptr;
    for (; End != Edges.size() && Edges[End].Src == Src; ++End) {
      const bool DstOurs = owns(Edges[End].Dst);
      if (Ours && !DstOurs) {
        ++Crossing;
        Only = &Edges[End];
      } else if (!Ours && DstOurs) {
        Incoming.push_back(Edges[End].Dst);
      }
    }
    if (Crossing == 1) {
      auto [It, New] = GroupOf.try_emplace(Only->Dst, Groups.size());
      if (New)
        Groups.push_back({Only->Dst, ownerOf(Only->Dst)});
      ++Groups[It->second].Edges;
      ++Groups[It->second].Left;
      Into.push_back({Src, It->second, Only->Kind == EdgeKind::Sync});
    } else if (Crossing > 1) {
      for (size_t J = I; J != End; ++J)
        if (uint32_t To = ownerOf(Edges[J].Dst); To != Me)
          Remote.emplace_back(Src, To);
    }
    I = End;
  }
  sortRemote();
  // Edges from elsewhere, counted per task.
  llvm::sort(Incoming);
  for (TaskId D : Incoming)
    if (Waiting.empty() || Waiting.back().first != D)
      Waiting.emplace_back(D, 1);
    else
      ++Waiting.back().second;
}

void PushWalk::pushInto(TaskId T, int64_t En) {
  if (NextInto == Into.size() || Into[NextInto].From != T)
    return;
  const IntoEdge &E = Into[NextInto++];
  Group &Gr = Groups[E.Group];
  int64_t &Bound = E.Sync ? Gr.EndBound : Gr.StartBound;
  Bound = std::max(Bound, En);
  if (--Gr.Left != 0)
    return;
  const int64_t Values[] = {IntoTask, static_cast<int64_t>(Gr.Into),
                            Gr.StartBound, Gr.EndBound,
                            static_cast<int64_t>(Gr.Edges)};
  PG.send(Gr.Owner, ProcessGroup::Channel::Times, Values);
  ++Share.Messages;
}

void PushWalk::apply(llvm::ArrayRef<int64_t> M) {
  if (M[0] == FromTask) {
    pushFrom(static_cast<TaskId>(M[1]), M[2]);
    return;
  }
  const TaskId D = static_cast<TaskId>(M[1]);
  Start[D] = std::max(Start[D], M[2]);
  End[D] = std::max(End[D], M[3]);
  edgesToCome(D) -= static_cast<uint32_t>(M[4]);
}

void PushWalk::pushFrom(TaskId Src, int64_t En) {
  llvm::ArrayRef<Edge> Edges = G.edgeSlots();
  auto It = std::lower_bound(Edges.begin(), Edges.end(), Src,
                             [](const Edge &E, TaskId T) { return E.Src < T; });
  for (; It != Edges.end() && It->Src == Src; ++It) {
    if (!owns(It->Dst))
      continue;
    push(*It, En);
    --edgesToCome(It->Dst);
  }
}

void PushWalk::waitFor(const uint32_t &Left) {
  if (Left == 0)
    return;
  ++Share.Waits;
  const auto Began = std::chrono::steady_clock::now();
  while (Left != 0) {
    Message.clear();
    PG.receive(ProcessGroup::AnyProcess, ProcessGroup::Channel::Times, Message);
    apply(Message);
  }
  Share.WaitNs += nanosecondsSince(Began);
}

void PushWalk::walk() {
  const size_t N = G.numTaskSlots();
  const Task *Tasks = G.taskSlots().data();
  const Edge *Edges = G.edgeSlots().data();
  const Edge *const EdgesEnd = Edges + G.edgeSlots().size();
  size_t NextRemote = 0, NextWaiting = 0;
  for (TaskId T = 0; T != N; ++T) {
    const Task &Tk = Tasks[T];
    if (Owner[Tk.Lane] != Me) {
      while (Edges != EdgesEnd && Edges->Src == T)
        ++Edges;
      continue;
    }
    if (NextWaiting != Waiting.size() && Waiting[NextWaiting].first == T)
      waitFor(Waiting[NextWaiting++].second);
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
    sendEnd(T, En, NextRemote);
    pushInto(T, En);
  }
}

/// The walk over any topological order: each task pulls its predecessors'
/// ends from an incoming adjacency, and one another process owns is waited
/// for until a message brings it.
class PullWalk : public WalkBase {
public:
  PullWalk(const Graph &G, ProcessGroup &PG)
      : WalkBase(G, PG), In(buildAdjacency(G, Direction::Incoming)) {
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
    sortRemote();
  }

  /// Replays task \p T if this process owns it.
  llvm::Error visit(TaskId T);

private:
  /// The end of predecessor \p P, waited for if another process owns it;
  /// Unset where this process owns it and has not replayed it.
  int64_t endOf(TaskId P);

  SplitAdjacency In;
  std::vector<uint8_t> HasRemote;
};

int64_t PullWalk::endOf(TaskId P) {
  if (End[P] != Unset || owns(P))
    return End[P];
  ++Share.Waits;
  const auto Began = std::chrono::steady_clock::now();
  while (End[P] == Unset) {
    Message.clear();
    PG.receive(ProcessGroup::AnyProcess, ProcessGroup::Channel::Times, Message);
    // The pull walk sends FromTask messages only.
    End[static_cast<TaskId>(Message[1])] = Message[2];
  }
  Share.WaitNs += nanosecondsSince(Began);
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
    sendEnd(T, En, Next);
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
finishWalk(const Graph &G, WalkBase &W, const OrderT &Order, ProcessGroup &PG,
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

llvm::Expected<llvm::Optional<SimResult>>
dd::simulateDistributed(const Graph &G, const SimOptions &Opts,
                        ProcessGroup &PG, std::vector<ProcessShare> *Shares) {
  for (const Lane &L : G.lanes())
    if (L.Order == LaneOrder::ByPriority)
      return refused("needs every lane in order, but lane '" + G.str(L.Name) +
                     "' runs by priority; simulate it as one process");
  if (Opts.ForceEventDriven)
    return refused("runs the linear engine, not the event-driven one");
  if (Opts.Order && Opts.Order->size() != G.numTasks())
    return refused("was given an order of " + llvm::Twine(Opts.Order->size()) +
                   " tasks for a graph of " + llvm::Twine(G.numTasks()) +
                   " live tasks");

  auto Began = std::chrono::steady_clock::now();
  // A graph as read from a file: the sweep, unless a caller's order says
  // otherwise. isSweepable() has every lane's list in increasing ids, so a
  // task's predecessor on its lane is the lane's last task visited.
  if (!Opts.Order && isSweepable(G)) {
    PushWalk W(G, PG);
    W.share().SetupNs = nanosecondsSince(Began);
    Began = std::chrono::steady_clock::now();
    W.walk();
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
