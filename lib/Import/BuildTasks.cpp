//===- BuildTasks.cpp - Lanes, tasks and iterations from events -----------===//
//
// One lane per CPU thread that made API calls, ran CPU ops or ProfilerSteps,
// and one per GPU stream that ran work. A task per root call, per piece of
// an op's self time (a cpu-op task, its op's inputs as notes on the first)
// and per GPU activity. Tasks are created in order of recorded start
// across all lanes, so task ids are close to a topological order and the
// canonical order costs little. Each ProfilerStep becomes an iteration with
// its measured duration and a zero-length marker task at its start on its
// thread, which anchors the iteration's predicted start (and one at its end
// where no step follows at once, which anchors the predicted end).
//
//===----------------------------------------------------------------------===//

#include "LoweringContext.h"
#include "SortRuns.h"

#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <unordered_map>

using namespace dd;
using namespace dd::import;
using namespace dd::import::lowering;

namespace {

enum class ItemKind : uint8_t { Marker, Call, Piece, Activity };

struct Item {
  int64_t StartNs;
  ItemKind Kind;
  uint32_t Index; ///< into Markers, M.Calls, C.Pieces or M.Activities
};

/// Everything that becomes a task in order of recorded start, markers before
/// calls before pieces of self time before activities at one time, else in
/// index order: the order of a stable sort of them all, got by merging the
/// runs that are sorted already (the markers, each thread's root calls and
/// pieces, each stream's activities) instead of storing and sorting a copy
/// of them all.
class ItemsInOrder {
public:
  ItemsInOrder(const Context &C, std::vector<Item> SortedMarkers)
      : M(C.M), Pieces(C.Pieces), Markers(std::move(SortedMarkers)),
        MarkerIds(Markers.size()), PieceIds(Pieces.size()) {
    for (uint32_t I = 0; I != MarkerIds.size(); ++I)
      MarkerIds[I] = I;
    for (uint32_t I = 0; I != PieceIds.size(); ++I)
      PieceIds[I] = I;
    for (uint32_t I = 0; I != M.Calls.size(); ++I)
      if (C.CallRoot[I] == I)
        RootCalls.push_back(I);
    addRun(ItemKind::Marker, MarkerIds.data(), MarkerIds.size());
    // Calls are sorted by thread: one run per thread.
    for (size_t B = 0, E = 0; B != RootCalls.size(); B = E) {
      for (E = B + 1; E != RootCalls.size() && M.Calls[RootCalls[E]].Thread ==
                                                   M.Calls[RootCalls[B]].Thread;
           ++E)
        ;
      addRun(ItemKind::Call, RootCalls.data() + B, E - B);
    }
    // Pieces are sorted by thread too.
    for (size_t B = 0, E = 0; B != Pieces.size(); B = E) {
      uint32_t Thread = M.Ranges[Pieces[B].Range].Thread;
      for (E = B + 1;
           E != Pieces.size() && M.Ranges[Pieces[E].Range].Thread == Thread;
           ++E)
        ;
      addRun(ItemKind::Piece, PieceIds.data() + B, E - B);
    }
    for (const std::vector<uint32_t> &OnStream : C.StreamActivities)
      addRun(ItemKind::Activity, OnStream.data(), OnStream.size());
  }
  // Runs point into the object's own arrays.
  ItemsInOrder(const ItemsInOrder &) = delete;
  ItemsInOrder &operator=(const ItemsInOrder &) = delete;

  size_t size() const {
    return Markers.size() + RootCalls.size() + Pieces.size() +
           M.Activities.size();
  }
  /// The start of the first item, 0 if there is none.
  int64_t firstStartNs() const {
    return Heads.empty() ? 0 : Heads.front().StartNs;
  }

  /// Takes the next item into \p It; false once all are taken.
  bool next(Item &It) {
    if (Heads.empty())
      return false;
    Head &Top = Heads.front();
    It = Top.Kind == ItemKind::Marker ? Markers[Top.Index]
                                      : Item{Top.StartNs, Top.Kind, Top.Index};
    // The run's next item replaces it at the top: one sift, where a pop and
    // a push would take two.
    Run &R = Runs[Top.Run];
    if (++R.Next != R.End) {
      Top = head(Top.Run);
    } else {
      Top = Heads.back();
      Heads.pop_back();
    }
    siftDown();
    return true;
  }

private:
  struct Run {
    ItemKind Kind;
    const uint32_t *Next, *End;
  };
  /// The first item of a run not yet taken. Index breaks ties: a kind's
  /// runs hold distinct indices.
  struct Head {
    int64_t StartNs;
    ItemKind Kind;
    uint32_t Index, Run;
    bool operator<(const Head &O) const {
      return std::tie(StartNs, Kind, Index) <
             std::tie(O.StartNs, O.Kind, O.Index);
    }
  };

  Head head(uint32_t R) const {
    const Run &Rn = Runs[R];
    uint32_t I = *Rn.Next;
    int64_t StartNs = Rn.Kind == ItemKind::Marker  ? Markers[I].StartNs
                      : Rn.Kind == ItemKind::Call  ? M.Calls[I].StartNs
                      : Rn.Kind == ItemKind::Piece ? Pieces[I].StartNs
                                                   : M.Activities[I].StartNs;
    return Head{StartNs, Rn.Kind, I, R};
  }
  void addRun(ItemKind Kind, const uint32_t *Begin, size_t Size) {
    if (Size == 0)
      return;
    Runs.push_back(Run{Kind, Begin, Begin + Size});
    Heads.push_back(head(Runs.size() - 1));
    std::push_heap(Heads.begin(), Heads.end(), later);
  }
  /// Restores the heap order after the top changed.
  void siftDown() {
    if (Heads.empty())
      return;
    Head H = Heads.front();
    size_t I = 0, N = Heads.size();
    for (size_t C = 1; C < N; I = C, C = 2 * C + 1) {
      if (C + 1 < N && Heads[C + 1] < Heads[C])
        ++C;
      if (!(Heads[C] < H))
        break;
      Heads[I] = Heads[C];
    }
    Heads[I] = H;
  }
  /// A min-heap of the runs' heads under std::push_heap.
  static bool later(const Head &A, const Head &B) { return B < A; }

  const TraceModel &M;
  const std::vector<SelfPiece> &Pieces;
  std::vector<Item> Markers;
  std::vector<uint32_t> MarkerIds, PieceIds, RootCalls;
  std::vector<Run> Runs;
  std::vector<Head> Heads;
};

TaskKind taskKindOf(ApiKind K) {
  switch (K) {
  case ApiKind::DeviceSync:
  case ApiKind::StreamSync:
  case ApiKind::EventSync:
    return TaskKind::Sync;
  default:
    return TaskKind::Runtime;
  }
}

/// SplitNs of a call that is not split.
constexpr int64_t NoSplit = INT64_MIN;

/// For each call, where it is split: at the start of the first GPU work it
/// launched, if that was well before the call returned; else NoSplit.
std::vector<int64_t> splitPoints(const Context &C) {
  const TraceModel &M = C.M;
  std::vector<uint32_t> FirstWork(M.Calls.size(), NoId);
  for (uint32_t A = 0; A != M.Activities.size(); ++A) {
    uint32_t Call = C.ActivityCall[A];
    if (Call != NoId &&
        (FirstWork[Call] == NoId ||
         M.Activities[A].StartNs < M.Activities[FirstWork[Call]].StartNs))
      FirstWork[Call] = A;
  }
  std::vector<int64_t> SplitNs(M.Calls.size(), NoSplit);
  for (uint32_t I = 0; I != M.Calls.size(); ++I) {
    if (FirstWork[I] == NoId)
      continue;
    const ApiCall &Call = M.Calls[I];
    int64_t Split = M.Activities[FirstWork[I]].StartNs;
    int64_t End = std::max(Call.EndNs, Call.StartNs);
    if (Split > Call.StartNs && End - Split >= C.Opts.SplitCallNs)
      SplitNs[I] = Split;
  }
  return SplitNs;
}

int32_t rankOf(const Metadata &Meta) {
  return Meta.Ranks.empty() ? -1 : Meta.Ranks.front().Rank;
}

} // namespace

void lowering::buildTasks(Context &C) {
  TraceModel &M = C.M;
  Graph &G = C.G;

  // Iterations: distinct ProfilerStep ranges, in time order.
  std::vector<uint32_t> Steps;
  {
    llvm::DenseSet<std::pair<int64_t, StrId>> Seen;
    for (uint32_t R = 0; R != M.Ranges.size(); ++R)
      if (M.Ranges[R].Kind == RangeKind::Step &&
          Seen.insert({M.Ranges[R].StartNs, M.Ranges[R].Name}).second)
        Steps.push_back(R);
    std::stable_sort(Steps.begin(), Steps.end(), [&](uint32_t A, uint32_t B) {
      return M.Ranges[A].StartNs < M.Ranges[B].StartNs;
    });
  }

  // Lanes.
  std::vector<LaneId> ThreadLane(M.Threads.size(), NoId);
  auto NeedThread = [&](uint32_t T) {
    if (ThreadLane[T] != NoId)
      return;
    const ThreadInfo &Th = M.Threads[T];
    Lane L;
    L.NativeId = Th.Tid;
    L.Name = Th.Name != NoId
                 ? Th.Name
                 : M.Strings.intern("thread " + std::to_string(Th.Tid));
    L.Rank = rankOf(M.Meta);
    L.Kind = LaneKind::CpuThread;
    ThreadLane[T] = G.addLane(L);
  };
  // Lanes are numbered by thread, then stream, not by first use, so that
  // the graph does not depend on event order.
  std::vector<char> ThreadUsed(M.Threads.size(), 0);
  for (uint32_t I = 0; I != M.Calls.size(); ++I)
    if (C.CallRoot[I] == I)
      ThreadUsed[M.Calls[I].Thread] = 1;
  for (const SelfPiece &P : C.Pieces)
    ThreadUsed[M.Ranges[P.Range].Thread] = 1;
  for (uint32_t R : Steps)
    ThreadUsed[M.Ranges[R].Thread] = 1;
  for (uint32_t T = 0; T != M.Threads.size(); ++T)
    if (ThreadUsed[T])
      NeedThread(T);
  C.ThreadLane = ThreadLane;
  std::vector<LaneId> StreamLane(M.Streams.size(), NoId);
  for (uint32_t S = 0; S != M.Streams.size(); ++S) {
    if (C.StreamActivities[S].empty())
      continue;
    const StreamInfo &St = M.Streams[S];
    Lane L;
    L.NativeId = St.Stream;
    L.Name = St.Name != NoId
                 ? St.Name
                 : M.Strings.intern("stream " + std::to_string(St.Stream));
    L.Rank = rankOf(M.Meta);
    L.Device = St.Device;
    L.Kind = LaneKind::GpuStream;
    StreamLane[S] = G.addLane(L);
  }

  // A step gets a marker at its start, and one at its end unless the next
  // step starts right there: the end marker anchors the predicted end of the
  // last iteration (and of any followed by a pause).
  std::vector<Item> Markers;
  std::vector<uint32_t> EndMarkers;
  llvm::DenseSet<int64_t> StepStarts;
  for (uint32_t R : Steps) {
    Markers.push_back(Item{M.Ranges[R].StartNs, ItemKind::Marker, R});
    StepStarts.insert(M.Ranges[R].StartNs);
  }
  for (uint32_t R : Steps)
    if (!StepStarts.count(M.Ranges[R].EndNs)) {
      Markers.push_back(Item{M.Ranges[R].EndNs, ItemKind::Marker,
                             uint32_t(M.Ranges.size() + EndMarkers.size())});
      EndMarkers.push_back(R);
    }
  stableSortRuns(Markers, [](const Item &A, const Item &B) {
    return A.StartNs < B.StartNs;
  });
  ItemsInOrder Items(C, std::move(Markers));
  C.T0 = std::min(Items.firstStartNs(), C.Opts.OriginNs);

  // Where each call is split, known before any task is made so that the
  // task arrays are reserved once: growing them would copy them and touch
  // twice their memory.
  std::vector<int64_t> SplitNs = splitPoints(C);
  size_t NumTasks = Items.size();
  for (uint32_t I = 0; I != M.Calls.size(); ++I)
    NumTasks += SplitNs[I] != NoSplit;

  C.CallTask.assign(M.Calls.size(), NoId);
  C.CallRest.assign(M.Calls.size(), NoId);
  C.ActivityTask.assign(M.Activities.size(), NoId);
  C.RecordedEnd.reserve(NumTasks);
  G.reserve(NumTasks, M.Calls.size() + 2 * M.Activities.size());
  std::vector<char> Noted(M.Ranges.size(), 0);
  // Interned when first used: graphs without shapes name neither.
  StrId InputDimsKey = NoId, InputTypesKey = NoId;
  auto Key = [&](StrId &Id, const char *Name) {
    if (Id == NoId)
      Id = M.Strings.intern(Name);
    return Id;
  };
  // Kernels of repeated layers and iterations share their launch shapes:
  // one entry per distinct value keeps the graph small.
  std::unordered_map<TaskAttrs, AttrId, TaskAttrsHash> AttrsIds;
  for (Item It; Items.next(It);) {
    Task T;
    T.StartNs = It.StartNs;
    int64_t End = It.StartNs;
    switch (It.Kind) {
    case ItemKind::Marker: {
      bool IsEnd = It.Index >= M.Ranges.size();
      const CpuRange &R =
          M.Ranges[IsEnd ? EndMarkers[It.Index - M.Ranges.size()] : It.Index];
      T.Name = IsEnd ? M.Strings.intern((M.Strings.get(R.Name) + " end").str())
                     : R.Name;
      T.Lane = ThreadLane[R.Thread];
      T.Kind = TaskKind::Marker;
      break;
    }
    case ItemKind::Call: {
      const ApiCall &Call = M.Calls[It.Index];
      T.Name = Call.Name;
      T.Lane = ThreadLane[Call.Thread];
      T.Layer = C.CallLayer[It.Index];
      T.Phase = C.CallPhase[It.Index];
      T.Correlation = Call.Correlation;
      T.Kind = taskKindOf(Call.Kind);
      End = std::max(Call.EndNs, Call.StartNs);
      break;
    }
    case ItemKind::Piece: {
      const SelfPiece &P = C.Pieces[It.Index];
      const CpuRange &R = M.Ranges[P.Range];
      T.Name = R.Name;
      T.Lane = ThreadLane[R.Thread];
      T.Layer = C.RangeLayer[P.Range];
      T.Phase = C.RangePhase[P.Range];
      T.Kind = TaskKind::CpuOp;
      End = P.EndNs;
      break;
    }
    case ItemKind::Activity: {
      const GpuActivity &Act = M.Activities[It.Index];
      T.Name = Act.Name;
      T.Lane = StreamLane[Act.Stream];
      uint32_t Call = C.ActivityCall[It.Index];
      if (Call != NoId) {
        T.Layer = C.CallLayer[Call];
        T.Phase = C.CallPhase[Call];
      }
      T.Correlation = Act.Correlation;
      T.Kind = Act.Kind;
      End = std::max(Act.EndNs, Act.StartNs);
      break;
    }
    }
    T.DurationNs = End - T.StartNs;
    TaskId Id = G.addTask(T);
    TaskId Prev = G.prevOnLane(Id);
    if (Prev != NoId && T.StartNs < C.RecordedEnd[Prev])
      ++C.Stats.OverlappingTasks;
    C.RecordedEnd.push_back(End);
    if (It.Kind == ItemKind::Call) {
      C.CallTask[It.Index] = Id;
      // The first part launches the work, the rest follows it.
      int64_t Split = SplitNs[It.Index];
      if (Split != NoSplit) {
        G.task(Id).DurationNs = Split - T.StartNs;
        C.RecordedEnd.back() = Split;
        Task Rest = T;
        Rest.Name = M.Strings.intern((M.Strings.get(T.Name) + " (rest)").str());
        Rest.Correlation = 0;
        Rest.StartNs = Split;
        Rest.DurationNs = End - Split;
        C.CallRest[It.Index] = G.addTask(Rest);
        C.RecordedEnd.push_back(End);
        ++C.Stats.SplitCalls;
      }
    } else if (It.Kind == ItemKind::Piece) {
      // The op's inputs go on its first task.
      uint32_t R = C.Pieces[It.Index].Range;
      if (!Noted[R]) {
        Noted[R] = 1;
        ++C.Stats.CpuOpRanges;
        const CpuRange &Rg = M.Ranges[R];
        if (Rg.InputDims != NoId)
          G.addNote(
              TaskNote{Id, Key(InputDimsKey, "input-dims"), Rg.InputDims});
        if (Rg.InputTypes != NoId)
          G.addNote(
              TaskNote{Id, Key(InputTypesKey, "input-types"), Rg.InputTypes});
      }
    } else if (It.Kind == ItemKind::Activity) {
      C.ActivityTask[It.Index] = Id;
      DType D = C.ActivityDType[It.Index];
      double Flops = C.ActivityFlops[It.Index];
      double Bytes = C.ActivityBytes[It.Index];
      if (M.Activities[It.Index].HasAttrs || D != DType::Unknown || Flops > 0 ||
          Bytes > 0) {
        TaskAttrs A = M.Activities[It.Index].Attrs;
        A.DType = uint8_t(D);
        // What the trace recorded wins over what the shapes suggest.
        if (A.Flops == 0)
          A.Flops = uint64_t(std::llround(Flops));
        if (A.Bytes == 0)
          A.Bytes = uint64_t(std::llround(Bytes));
        auto [Entry, New] = AttrsIds.try_emplace(A, NoId);
        if (New)
          Entry->second = G.setAttrs(Id, A);
        else
          G.shareAttrs(Id, Entry->second);
      }
      // The process group, for the job's importer (MatchCollectives.h).
      // The graph takes the model's strings at the end of the lowering.
      const GpuActivity &Act = M.Activities[It.Index];
      if (Act.Group != NoId)
        G.addNote(TaskNote{Id, M.Strings.intern("group"), Act.Group});
      if (Act.GroupRanks != NoId)
        G.addNote(
            TaskNote{Id, M.Strings.intern("group-ranks"), Act.GroupRanks});
      if (Act.GroupSize > 0)
        G.addNote(TaskNote{Id, M.Strings.intern("group-size"),
                           M.Strings.intern(std::to_string(Act.GroupSize))});
    }
  }
  // Nested calls share the tasks of the call they are in.
  for (uint32_t I = 0; I != M.Calls.size(); ++I) {
    C.CallTask[I] = C.CallTask[C.CallRoot[I]];
    C.CallRest[I] = C.CallRest[C.CallRoot[I]];
  }

  // Memory events go on the lane of the thread that allocated, if it has
  // one.
  G.reserveMemoryEvents(M.Memory.size());
  for (const MemoryRecord &R : M.Memory) {
    dd::MemoryEvent E;
    E.TimeNs = R.TimeNs;
    E.Bytes = R.Bytes;
    E.TotalAllocated = R.TotalAllocated;
    E.TotalReserved = R.TotalReserved;
    E.Address = R.Address;
    E.Device = R.Device;
    E.Lane = R.Thread < ThreadLane.size() ? ThreadLane[R.Thread] : NoId;
    G.addMemoryEvent(E);
  }

  for (uint32_t R : Steps)
    G.iterationsMut().push_back(
        Iteration{M.Ranges[R].StartNs, M.Ranges[R].EndNs - M.Ranges[R].StartNs,
                  M.Ranges[R].Name});
  C.Stats.Iterations = Steps.size();
}

void lowering::computeGaps(Context &C) {
  Graph &G = C.G;
  size_t N = G.numTaskSlots();
  // Latest recorded end among each task's start and end predecessors.
  std::vector<int64_t> ReadyNs(N, INT64_MIN), SyncEndNs(N, INT64_MIN);
  for (const PendingEdge &E : C.Edges) {
    std::vector<int64_t> &V = E.Kind == EdgeKind::Sync ? SyncEndNs : ReadyNs;
    V[E.Dst] = std::max(V[E.Dst], C.RecordedEnd[E.Src]);
  }
  for (TaskId T = 0; T != N; ++T) {
    Task &Tk = G.task(T);
    // A synchronizing call's own duration is what is left once the work it
    // waited for ended: the simulator makes it wait as long as it must.
    if (SyncEndNs[T] > Tk.StartNs) {
      int64_t WaitEnd = std::min(SyncEndNs[T], C.RecordedEnd[T]);
      Tk.DurationNs = C.RecordedEnd[T] - WaitEnd;
    }
    TaskId Prev = G.prevOnLane(T);
    int64_t Free = Prev == NoId ? C.T0 : C.RecordedEnd[Prev];
    int64_t Late =
        std::max<int64_t>(0, Tk.StartNs - std::max(Free, ReadyNs[T]));
    // GPU work starts when launched and its stream is free, plus the GPU's
    // own scheduling latency: a few microseconds, kept as its gap so that a
    // stream of back-to-back kernels replays at its recorded pace. A longer
    // unexplained delay is not kept: it would pin the work to its recorded
    // time instead of to what it depends on.
    // Work the CPU paced keeps its delay (see CpuPacedWork).
    if (G.lane(Tk.Lane).Kind != LaneKind::CpuThread &&
        !(T < C.CpuPacedWork.size() && C.CpuPacedWork[T]))
      Late = Late <= C.Opts.GpuLatencyNs ? Late : 0;
    Tk.GapNs = Late;
  }
}
