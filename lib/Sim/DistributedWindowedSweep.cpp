//===- DistributedWindowedSweep.cpp - The windowed sweep over processes ---===//
//
// Where no one reads a task's times (dd-sim's report, without pictures or
// the memory replay), a process need not keep them, nor send them to
// process 0: what the report shows adds up task by task. This walk is the
// windowed sweep (WindowedSweep.cpp) restricted to the tasks this process
// owns, with the crossings of DistributedReplay.cpp's sweep:
//
//  - the bounds pushed along our edges wait in a ring of sweepWindow()
//    slots, a lane's last end in a lane slot, and no array a task is kept.
//    A slot is reset when its task is visited; a task of another process
//    is never pushed into here, so its slot stays clean for the next of
//    ours (whose sources all come after the last one of ours there);
//  - what other processes push into our tasks arrives in any order and
//    any time ahead, so it waits in a map by task, merged as it comes,
//    until the walk reaches the task;
//  - each task is credited to its lane and iteration (SummaryBuilder) and
//    extends the critical path of its decider (CriticalPath.h: the
//    latest-ending Sync predecessor of a task held past its duration,
//    else the latest-ending of its lane predecessor and start
//    predecessors, ties to the lower tieKey()), as the windowed sweep
//    does. A predecessor of another process comes with its end, its id
//    and the totals of the path that ends at it: the messages carry them,
//
//      {FromTask, T, end, steps, gap, gpu, cpu}
//      {IntoTask, D, start bound, its source's key, end bound, its
//       source's key, edges, the start source's four totals, the end
//       source's}
//
//    and "ties to the lower key" is applied as they are merged, since they
//    do not come in id order as local pushes do. Both go through the
//    trees of SweepCrossings.cpp: an IntoTask message for a task of
//    another process comes from below in its tree and is folded into our
//    own group for it, by the same rule; a FromTask one is passed on down;
//  - at the end every process sends process 0 its lanes' and iterations'
//    sums (SummaryBuilder::pack()), the earliest recorded start, and the
//    path that ends at its task that ends last; process 0 adds them up and
//    keeps the latest of those paths (the lower key on a tie), and has the
//    result the windowed sweep of one process gives, byte for byte.
//
//===----------------------------------------------------------------------===//

#include "DistributedWalk.h"
#include "PathTotals.h"
#include "Replay.h"

#include "daydream/Sim/CriticalPath.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <cassert>

using namespace dd;
using namespace dd::sim;

namespace {

/// A path's totals as four values of a message.
PathTotals pathFrom(const int64_t *V) {
  return PathTotals{Pair{V[0], V[1]}, Pair{V[2], V[3]}};
}
void appendPath(const PathTotals &P, std::vector<int64_t> &Out) {
  Out.insert(Out.end(),
             {P.StepsGap[0], P.StepsGap[1], P.GpuCpu[0], P.GpuCpu[1]});
}

/// The latest end pushed into a task of one kind (start or Sync), the task
/// it came from (its tieKey()) and the totals of that one's path: the lower
/// key on a tie.
struct Bound {
  int64_t End = Unset;
  uint64_t Src = NoKey;
  PathTotals Path;

  void offer(int64_t En, uint64_t From, const PathTotals &P) {
    if (From == NoKey)
      return;
    // Every end is above Unset, and every key below NoKey.
    if (En > End || (En == End && From < Src)) {
      End = En;
      Src = From;
      Path = P;
    }
  }
};

/// What other processes pushed into one of our tasks, and along how many
/// edges.
struct Arrival {
  Bound StartB, EndB;
  uint32_t Edges = 0;
};

class WindowedWalk : public WalkBase {
public:
  /// \p Observer, if any, is shown this process's tasks. \p Window: the
  /// ring's slots, or 0 for as many as our own edges reach (ownWindow()).
  WindowedWalk(const Graph &G, ProcessGroup &PG, uint64_t Window,
               TaskTimeObserver *Observer,
               llvm::ArrayRef<uint32_t> ProcessOfRank);

  /// The ring's slots; 0 where the walk cannot take the graph.
  uint64_t window() const { return Ring; }
  /// Whether every crossing can be named on the wire (WalkBase::wireable()).
  bool wireable() const { return WalkBase::wireable(X); }

  /// Walks the tasks, adding up the critical path if \p CriticalPath.
  void walk(bool CriticalPath);
  /// After the walk: receives until every group has gone up its tree.
  void drain();
  /// Process 0: every process's sums and path added up into the result;
  /// the others: send theirs, and None.
  llvm::Optional<SimResult> reduce(bool CriticalPath,
                                   std::vector<ProcessShare> *Shares);

private:
  /// A ring as wide as our own edges reach, which is all it holds, for a
  /// share of a split job: a stand-in's tasks (another rank's collectives)
  /// are ready early in a share's order, and their edges into the barriers
  /// reach far, but they are never walked. 0 if an edge goes back.
  uint64_t ownWindow() const;
  template <bool Path> void walkTasks();
  /// Shows the observer task \p T, in runs of consecutive tasks.
  void observe(TaskId T, int64_t St, int64_t En);
  /// Applies a time message from another process.
  void apply(llvm::ArrayRef<int64_t> M);
  /// Receives until \p Edges edges into our task \p T have arrived, and
  /// hands over what they pushed.
  Arrival waitFor(TaskId T, uint32_t Edges);
  /// After task \p T, the next with an edge into a group, ended at \p En
  /// with path \p P: that edge, and the group's message once its last
  /// edge is in.
  void pushInto(TaskId T, int64_t En, const PathTotals &P);
  /// Sends group \p I's message up its tree.
  void sendGroup(uint32_t I);

  const SweepCrossings X;
  const uint64_t Ring;
  const uint64_t Mask;
  TaskTimeObserver *const Observer;
  /// The ring: per slot, the bounds pushed by our tasks into the slot's
  /// next task of ours and their sources, and once a task of ours is
  /// visited, the totals of the path that ends there.
  std::vector<int64_t> StartBound, EndBound;
  std::vector<uint64_t> StartSource, EndSource;
  std::vector<PathTotals> TaskPath;
  /// Per lane: its last task, that one's end and path.
  std::vector<TaskId> LaneLast;
  std::vector<int64_t> LaneEnd;
  std::vector<PathTotals> LanePath;
  llvm::DenseMap<TaskId, Arrival> Arrived;
  /// Per group of X: its edges and messages from below to go, and what
  /// they pushed so far (Edges: how many edges that stands for).
  std::vector<Arrival> Groups;
  std::vector<uint32_t> Left;
  size_t NextInto = 0;
  size_t OpenGroups = 0;
  /// A message being sent (Message holds the one being received).
  std::vector<int64_t> Out;
  /// This process's lanes and iterations; its task that ends last (the
  /// lower key on a tie) and the path that ends there.
  SimResult Partial;
  SummaryBuilder Summary;
  /// Tasks handed to the observer at a time, and the run being filled.
  static constexpr size_t ObservedRun = 4096;
  std::vector<int64_t> RunStart, RunEnd;
  TaskId RunFirst = 0;
  size_t RunLength = 0;
  int64_t LastEnd = Unset;
  uint64_t LastKey = NoKey;
  PathTotals LastPath;
};

WindowedWalk::WindowedWalk(const Graph &G, ProcessGroup &PG, uint64_t Window,
                           TaskTimeObserver *Observer,
                           llvm::ArrayRef<uint32_t> ProcessOfRank)
    : WalkBase(G, PG, ProcessOfRank), X(findSweepCrossings(G, Owner, Me)),
      Ring(Window ? Window : ownWindow()), Mask(Ring - 1), Observer(Observer),
      StartBound(Ring, 0), EndBound(Ring, Unset), StartSource(Ring, NoKey),
      EndSource(Ring, NoKey), TaskPath(Ring), LaneLast(G.numLanes(), NoId),
      LaneEnd(G.numLanes(), 0), LanePath(G.numLanes()), Summary(G, Partial) {
  if (Observer) {
    RunStart.resize(ObservedRun);
    RunEnd.resize(ObservedRun);
    Observer->laneOwners(Owner, Me);
  }
  Groups.resize(X.Groups.size());
  for (const SweepCrossings::Group &Gr : X.Groups)
    Left.push_back(Gr.awaited());
  OpenGroups = Groups.size();
}

uint64_t WindowedWalk::ownWindow() const {
  if (G.numTasks() != G.numTaskSlots())
    return 0;
  const Task *Tasks = G.taskSlots().data();
  uint64_t Reach = 0;
  for (const Edge &E : G.edgeSlots()) {
    if (E.Dst <= E.Src)
      return 0;
    if (Owner[Tasks[E.Src].Lane] == Me && Owner[Tasks[E.Dst].Lane] == Me)
      Reach = std::max<uint64_t>(Reach, E.Dst - E.Src);
  }
  return ringFor(Reach, G.numTaskSlots());
}

void WindowedWalk::apply(llvm::ArrayRef<int64_t> M) {
  if (M[0] == FromTask) {
    const TaskId Src = local(M[1]);
    passDown(X, Src, M);
    const PathTotals P = pathFrom(&M[3]);
    for (const Edge &E : edgesOutOf(Src)) {
      if (!owns(E.Dst))
        continue;
      Arrival &A = Arrived[E.Dst];
      (E.Kind == EdgeKind::Sync ? A.EndB : A.StartB)
          .offer(M[2], tieKey(G.task(Src).Lane, Src), P);
      ++A.Edges;
    }
    return;
  }
  // Into our task, or from below in the task's tree into our group.
  const TaskId D = local(M[1]);
  const bool Ours = owns(D);
  // Only a process with a group in D's tree has processes below it there.
  assert((Ours || X.GroupOf.count(D)) && "a message from below in a tree");
  const uint32_t I = Ours ? 0 : X.GroupOf.lookup(D);
  Arrival &A = Ours ? Arrived[D] : Groups[I];
  A.StartB.offer(M[2], static_cast<uint64_t>(M[3]), pathFrom(&M[7]));
  A.EndB.offer(M[4], static_cast<uint64_t>(M[5]), pathFrom(&M[11]));
  A.Edges += static_cast<uint32_t>(M[6]);
  if (!Ours && --Left[I] == 0)
    sendGroup(I);
}

void WindowedWalk::drain() {
  receiveUntil([&] { return OpenGroups == 0; },
               [&](llvm::ArrayRef<int64_t> M) { apply(M); });
}

Arrival WindowedWalk::waitFor(TaskId T, uint32_t Edges) {
  receiveUntil(
      [&] {
        auto It = Arrived.find(T);
        return It != Arrived.end() && It->second.Edges == Edges;
      },
      [&](llvm::ArrayRef<int64_t> M) { apply(M); });
  auto It = Arrived.find(T);
  Arrival A = It->second;
  Arrived.erase(It);
  return A;
}

void WindowedWalk::pushInto(TaskId T, int64_t En, const PathTotals &P) {
  const SweepCrossings::IntoEdge &E = X.Into[NextInto++];
  Arrival &Gr = Groups[E.Group];
  (E.Sync ? Gr.EndB : Gr.StartB).offer(En, tieKey(G.task(T).Lane, T), P);
  ++Gr.Edges;
  if (--Left[E.Group] == 0)
    sendGroup(E.Group);
}

void WindowedWalk::sendGroup(uint32_t I) {
  const Arrival &Gr = Groups[I];
  const Bound &S = Gr.StartB, &D = Gr.EndB;
  Out.clear();
  Out.insert(Out.end(),
             {IntoTask, wire(X.Groups[I].Into), S.End,
              static_cast<int64_t>(S.Src), D.End, static_cast<int64_t>(D.Src),
              static_cast<int64_t>(Gr.Edges)});
  appendPath(S.Path, Out);
  appendPath(D.Path, Out);
  PG.send(X.Groups[I].Parent, ProcessGroup::Channel::Times, Out);
  ++Share.Messages;
  --OpenGroups;
}

void WindowedWalk::walk(bool CriticalPath) {
  if (CriticalPath)
    walkTasks<true>();
  else
    walkTasks<false>();
  if (RunLength)
    Observer->ran(RunFirst, llvm::makeArrayRef(RunStart.data(), RunLength),
                  llvm::makeArrayRef(RunEnd.data(), RunLength));
}

template <bool Path> void WindowedWalk::walkTasks() {
  const Task *Tasks = G.taskSlots().data();
  const Edge *Edges = G.edgeSlots().data();
  const Edge *const EdgesEnd = Edges + G.edgeSlots().size();
  // The arrays in locals, which the compiler then need not reload after
  // every store of a time.
  const uint32_t *Own = Owner.data();
  int64_t *SBound = StartBound.data(), *EBound = EndBound.data();
  uint64_t *SSource = StartSource.data(), *ESource = EndSource.data();
  PathTotals *TPath = TaskPath.data(), *LPath = LanePath.data();
  TaskId *LLast = LaneLast.data();
  int64_t *LEnd = LaneEnd.data();
  const uint64_t M = Mask;
  const std::vector<Pair> LaneMask = laneMasks(G);
  size_t NextRemote = 0, NextWaiting = 0;
  static const PathTotals None;
  Arrival A; // what other processes pushed into the task, where any did
  for (auto [Begin, RunEnd] : OwnedRuns) {
    Edges = edgesFrom(Edges, EdgesEnd, Begin);
    for (TaskId T = Begin; T != RunEnd; ++T) {
      const Task &Tk = Tasks[T];
      const LaneId L = Tk.Lane;
      if (Own[L] != Me) {
        while (Edges != EdgesEnd && Edges->Src == T)
          ++Edges;
        continue;
      }
      // What our tasks pushed into T (a slot without a push holds 0 for the
      // start, as times run from 0, and Unset for the end), then what other
      // processes did.
      const uint64_t Slot = T & M;
      int64_t SB = SBound[Slot], EB = EBound[Slot];
      uint64_t SS = SSource[Slot], ES = ESource[Slot];
      const PathTotals *SP = nullptr, *EP = nullptr;
      if constexpr (Path) {
        // A key's low half is its task's id, so masked it is the slot.
        SP = SS != NoKey ? &TPath[SS & M] : nullptr;
        EP = ES != NoKey ? &TPath[ES & M] : nullptr;
      }
      if (NextWaiting != X.Waiting.size() &&
          X.Waiting[NextWaiting].first == T) {
        A = waitFor(T, X.Waiting[NextWaiting++].second);
        // Every key is below NoKey, which a slot without a push holds.
        if (A.StartB.Src != NoKey &&
            (A.StartB.End > SB || (A.StartB.End == SB && A.StartB.Src < SS))) {
          SB = A.StartB.End;
          SS = A.StartB.Src;
          SP = &A.StartB.Path;
        }
        if (A.EndB.Src != NoKey &&
            (A.EndB.End > EB || (A.EndB.End == EB && A.EndB.Src < ES))) {
          EB = A.EndB.End;
          ES = A.EndB.Src;
          EP = &A.EndB.Path;
        }
      }
      int64_t St = SB;
      const TaskId Lp = LLast[L];
      const int64_t LpEnd = LEnd[L];
      if (Lp != NoId)
        St = std::max(St, LpEnd);
      const uint64_t Key = tieKey(L, T);
      St += Tk.GapNs;
      const int64_t En = std::max(St + Tk.DurationNs, EB);

      PathTotals P;
      if constexpr (Path) {
        // The path T's step extends (the file comment says which).
        const bool Held = En > St + Tk.DurationNs;
        const bool ByLane =
            extendsLane(Lp == NoId ? NoKey : tieKey(L, Lp), LpEnd, SS, SB);
        P = PathTotals::step(Held     ? *EP
                             : ByLane ? LPath[L]
                             : SP     ? *SP
                                      : None,
                             Tk, Held, LaneMask[L]);
        TPath[Slot] = P;
        LPath[L] = P;
      }
      if (En > LastEnd || (En == LastEnd && Key < LastKey)) {
        LastEnd = En;
        LastKey = Key;
        LastPath = P;
      }
      SBound[Slot] = 0;
      EBound[Slot] = Unset;
      SSource[Slot] = NoKey;
      ESource[Slot] = NoKey;
      LLast[L] = T;
      LEnd[L] = En;
      Summary.add(Tk, St, En);
      if (Observer)
        observe(T, St, En);
      noteVisited(Tk);

      // Pushed along our edges as the windowed sweep pushes.
      const Edge *const FirstOut = Edges;
      for (; Edges != EdgesEnd && Edges->Src == T; ++Edges) {
        if (Own[Tasks[Edges->Dst].Lane] != Me)
          continue;
        const uint64_t To = Edges->Dst & M;
        const bool Sync = Edges->Kind == EdgeKind::Sync;
        int64_t &Bound = Sync ? EBound[To] : SBound[To];
        uint64_t &Source = Sync ? ESource[To] : SSource[To];
        if (En > Bound || (En == Bound && Key < Source)) {
          Bound = En;
          Source = Key;
        }
      }
      Share.Edges += static_cast<uint64_t>(Edges - FirstOut);
      // The rare crossings read T's path back from its slot (all zeros
      // without the path), so that P itself stays in registers.
      if (NextRemote != X.Remote.size() && X.Remote[NextRemote].first == T) {
        Out.clear();
        Out.insert(Out.end(), {FromTask, wire(T), En});
        appendPath(TPath[Slot], Out);
        sendEnd(X.Remote, T, Out, NextRemote);
      }
      if (NextInto != X.Into.size() && X.Into[NextInto].From == T)
        pushInto(T, En, TPath[Slot]);
    }
  }
}

void WindowedWalk::observe(TaskId T, int64_t St, int64_t En) {
  if (RunLength == ObservedRun || (RunLength && T != RunFirst + RunLength)) {
    Observer->ran(RunFirst, llvm::makeArrayRef(RunStart.data(), RunLength),
                  llvm::makeArrayRef(RunEnd.data(), RunLength));
    RunLength = 0;
  }
  if (RunLength == 0)
    RunFirst = T;
  RunStart[RunLength] = St;
  RunEnd[RunLength] = En;
  ++RunLength;
}

llvm::Optional<SimResult>
WindowedWalk::reduce(bool CriticalPath, std::vector<ProcessShare> *Shares) {
  constexpr auto Results = ProcessGroup::Channel::Results;
  // The share and earliest recorded start, then the last task's end, key
  // and path and the sums' length; then the sums, then what the observer
  // saw.
  constexpr size_t HeadValues = ShareValues + 7;
  // What the observer merges on the way up its tree goes first, from the
  // leaves: each process's message up precedes its results.
  if (Observer && Observer->mergesUp()) {
    std::vector<int64_t> Up;
    for (uint64_t Below = 2 * uint64_t(Me) + 1;
         Below <= 2 * uint64_t(Me) + 2 && Below < PG.size(); ++Below) {
      Up.clear();
      PG.receive(static_cast<unsigned>(Below), Results, Up);
      if (Me == 0)
        Share.ResultValues += Up.size();
      const bool Merged = Observer->mergeUp(Up);
      assert(Merged && "every process measures the same graph's lanes");
      (void)Merged;
    }
    if (Me != 0) {
      Up.clear();
      Observer->packUp(Up);
      Share.ResultValues += Up.size();
      PG.send((Me - 1) / 2, Results, Up);
    }
  }
  if (Me != 0) {
    std::vector<int64_t> Out;
    appendShare(Out);
    Out.insert(Out.end(), {LastEnd, static_cast<int64_t>(LastKey)});
    appendPath(LastPath, Out);
    Out.push_back(0);
    Summary.pack(Out);
    Out[HeadValues - 1] = static_cast<int64_t>(Out.size() - HeadValues);
    if (Observer)
      Observer->pack(Out);
    Out[ResultValuesAt] = static_cast<int64_t>(Share.ResultValues + Out.size());
    PG.send(0, Results, Out);
    PG.finishSends();
    return llvm::None;
  }
  const unsigned Processes = PG.size();
  if (Shares)
    Shares->assign(Processes, ProcessShare());
  std::vector<int64_t> In;
  for (unsigned P = 1; P != Processes; ++P) {
    receiveResults(P, In, MinStart, Shares);
    Share.ResultValues += In.size();
    const int64_t *V = In.data() + ShareValues;
    const uint64_t Last = static_cast<uint64_t>(V[1]);
    if (Last != NoKey &&
        (V[0] > LastEnd || (V[0] == LastEnd && Last < LastKey))) {
      LastEnd = V[0];
      LastKey = Last;
      LastPath = pathFrom(&V[2]);
    }
    llvm::ArrayRef<int64_t> Sums =
        llvm::makeArrayRef(In).drop_front(HeadValues);
    const size_t SumsSize = static_cast<size_t>(In[HeadValues - 1]);
    const bool Merged =
        Summary.merge(Sums.take_front(SumsSize)) &&
        (!Observer || Observer->merge(Sums.drop_front(SumsSize)));
    assert(Merged && "every process measures the same graph's lanes");
    (void)Merged;
  }
  if (Shares)
    (*Shares)[0] = Share;
  Partial.OriginNs = MinStart; // the graph has tasks: sweepWindow() says so
  Summary.finish(MinStart);
  SimResult R = std::move(Partial);
  if (Observer) {
    Observer->finish(MinStart);
    R.Observed = Observer->complete();
  }
  if (CriticalPath)
    R.CriticalPath = LastPath.endingAt(LastEnd);
  R.Engine = SimEngine::DistributedWindowed;
  return R;
}

/// Walks, then reduces on process 0; the setup began at \p Began.
llvm::Optional<SimResult>
walkAndReduce(WindowedWalk &W, const SimOptions &Opts,
              std::vector<ProcessShare> *Shares,
              std::chrono::steady_clock::time_point Began) {
  W.share().SetupNs = nanosecondsSince(Began);
  Began = std::chrono::steady_clock::now();
  W.walk(Opts.CriticalPath);
  W.drain();
  W.finish();
  W.share().WalkNs = nanosecondsSince(Began);
  const auto Reducing = std::chrono::steady_clock::now();
  llvm::Optional<SimResult> R = W.reduce(Opts.CriticalPath, Shares);
  if (R && Shares)
    (*Shares)[0].GatherNs = nanosecondsSince(Reducing);
  return R;
}

} // namespace

llvm::Optional<SimResult> dd::sim::simulateWindowedOverProcesses(
    const Graph &G, const SimOptions &Opts, uint64_t Window, ProcessGroup &PG,
    std::vector<ProcessShare> *Shares,
    std::chrono::steady_clock::time_point Began) {
  WindowedWalk W(G, PG, Window, Opts.Observer, {});
  return walkAndReduce(W, Opts, Shares, Began);
}

llvm::Optional<SimResult> dd::sim::simulateWindowedOverShares(
    const Graph &Share, const SimOptions &Opts, ProcessGroup &PG,
    llvm::ArrayRef<uint32_t> ProcessOfRank, ShareReadTime Read,
    std::vector<ProcessShare> *Shares, bool &Declined,
    std::chrono::steady_clock::time_point Began) {
  WindowedWalk W(Share, PG, /*Window=*/0, Opts.Observer, ProcessOfRank);
  W.share().Read = Read;
  const std::vector<uint8_t> Can =
      PG.agree(W.window() && isSweepable(Share) && W.wireable());
  Declined = !llvm::all_of(Can, [](uint8_t Ok) { return Ok; });
  if (Declined)
    return llvm::None;
  llvm::Optional<SimResult> R = walkAndReduce(W, Opts, Shares, Began);
  if (R)
    R->Engine = SimEngine::DistributedShares;
  return R;
}
