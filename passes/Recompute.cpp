//===- Recompute.cpp - Run a forward segment again in backward ------------===//
//
// Linear in the graph for the indexes (who launched what, each step's GPU
// work in time order, the memory events of each task), then per segment
// logarithmic to place it and linear in its tasks and events to copy them.
//
//===----------------------------------------------------------------------===//

#include "Recompute.h"

#include "daydream/Analysis/MemoryBreakdown.h"
#include "daydream/IR/Graph.h"
#include "daydream/IR/TaskSet.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <thread>
#include <tuple>

using namespace dd;
using namespace dd::recompute;

namespace {

bool isComputeWork(TaskKind K) {
  return isGpuWork(K) && K != TaskKind::Collective;
}

int64_t endOf(const Graph &G, TaskId T) {
  return G.task(T).StartNs + G.task(T).DurationNs;
}

} // namespace

MemoryIndex::MemoryIndex(const Graph &G, const MemoryEventFacts &Facts)
    : Facts(Facts) {
  // A graph without memory events (every synthetic one) needs no index: a
  // task-sized array would be 40 MB of fresh memory at 10^7 tasks.
  if (Facts.Owner.empty())
    return;
  Begin.assign(G.numTaskSlots() + 1, 0);
  for (TaskId T : Facts.Owner)
    if (T != NoId)
      ++Begin[T + 1];
  for (size_t T = 0; T != G.numTaskSlots(); ++T)
    Begin[T + 1] += Begin[T];
  Events.resize(Begin.back());
  std::vector<uint32_t> Fill(Begin.begin(), Begin.end() - 1);
  for (size_t I : Facts.Order)
    if (Facts.Owner[I] != NoId)
      Events[Fill[Facts.Owner[I]]++] = I;
  for (const MemoryEvent &E : G.memoryEvents())
    LastAddress = std::max(LastAddress, E.Address);
}

llvm::ArrayRef<size_t> MemoryIndex::ownedBy(TaskId T) const {
  if (Begin.empty())
    return {};
  return llvm::ArrayRef<size_t>(Events).slice(Begin[T],
                                              Begin[T + 1] - Begin[T]);
}

StepWork::StepWork(const Graph &G, Part Parts)
    : LaunchedBy(G.numTaskSlots(), NoId), Steps(G) {
  for (const Edge &E : G.edgeSlots())
    if (E.Kind == EdgeKind::Launch && G.isLive(E))
      LaunchedBy[E.Dst] = E.Src;
  if (Parts & Timelines)
    buildTimelines(G);
}

StepFinder::StepFinder(const Graph &G) {
  std::map<int32_t, Starts> ByRank;
  for (size_t I = 0; I != G.iterations().size(); ++I)
    ByRank[G.iterations()[I].Rank].push_back(
        {G.iterations()[I].StartNs, int64_t(I)});
  std::map<int32_t, uint32_t> OfRank;
  LaneStarts.resize(G.numLanes());
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    const int32_t Rank = G.lane(L).Rank;
    auto [It, New] = OfRank.try_emplace(Rank, uint32_t(RankStarts.size()));
    if (New) {
      Starts V = ByRank[-1];
      if (Rank != -1)
        V.insert(V.end(), ByRank[Rank].begin(), ByRank[Rank].end());
      std::sort(V.begin(), V.end());
      RankStarts.push_back(std::move(V));
    }
    LaneStarts[L] = It->second;
  }
}

StepFinder::Span StepFinder::spanOf(const Graph &G, TaskId T) const {
  const Task &Tk = G.task(T);
  const Starts &Its = RankStarts[LaneStarts[Tk.Lane]];
  auto At = std::upper_bound(Its.begin(), Its.end(),
                             std::make_pair(Tk.StartNs, INT64_MAX));
  Span S;
  S.Key = {G.lane(Tk.Lane).Rank,
           At == Its.begin() ? -1 : std::prev(At)->second};
  S.From = At == Its.begin() ? INT64_MIN : std::prev(At)->first;
  S.To = At == Its.end() ? INT64_MAX : At->first;
  return S;
}

// Each step's forward and backward GPU work, found in one sweep, then
// grouped by step (a counting sort) and put in time order (mostly there
// already: a stream runs in order).
void StepWork::buildTimelines(const Graph &G) {
  // Consecutive tasks are mostly of one step: remember the last one's, and
  // each lane's last step with the times it spans, so that the step of a
  // task launched from there is mostly found without a search.
  StepKey LastKey{INT32_MIN, INT64_MIN};
  uint32_t LastIndex = 0;
  std::vector<StepFinder::Span> LaneSpan(
      G.numLanes(), StepFinder::Span{{}, INT64_MAX, INT64_MIN});
  // (step index * 2 + side, task); side 1 is backward.
  std::vector<std::pair<uint32_t, TaskId>> Found;
  for (TaskId T : G.liveTasks()) {
    const Task &Tk = G.task(T);
    if (!isComputeWork(Tk.Kind) ||
        (Tk.Phase != Phase::Forward && Tk.Phase != Phase::Backward))
      continue;
    // As stepOf(): by the launch, where there is one.
    const TaskId By =
        T < LaunchedBy.size() && LaunchedBy[T] != NoId ? LaunchedBy[T] : T;
    StepFinder::Span &Cached = LaneSpan[G.task(By).Lane];
    if (!Cached.contains(G.task(By).StartNs))
      Cached = Steps.spanOf(G, By);
    const StepKey K = Cached.Key;
    if (K != LastKey) {
      LastKey = K;
      LastIndex =
          IndexOf.try_emplace(K, uint32_t(IndexOf.size())).first->second;
    }
    Found.push_back({LastIndex * 2 + (Tk.Phase == Phase::Backward), T});
  }
  Forward.resize(IndexOf.size());
  Backward.resize(IndexOf.size());
  auto Side = [&](uint32_t Key) -> Timeline & {
    return (Key & 1 ? Backward : Forward)[Key / 2];
  };
  std::vector<uint32_t> Count(2 * IndexOf.size(), 0);
  for (const auto &F : Found)
    ++Count[F.first];
  for (uint32_t Key = 0; Key != Count.size(); ++Key)
    Side(Key).Tasks.reserve(Count[Key]);
  for (const auto &F : Found)
    Side(F.first).Tasks.push_back(F.second);
  auto Earlier = [&](TaskId A, TaskId B) {
    return G.task(A).StartNs < G.task(B).StartNs;
  };
  for (auto *Steps : {&Forward, &Backward})
    for (Timeline &L : *Steps) {
      if (!std::is_sorted(L.Tasks.begin(), L.Tasks.end(), Earlier))
        std::stable_sort(L.Tasks.begin(), L.Tasks.end(), Earlier);
      L.Before.resize(L.Tasks.size() + 1);
      L.Before[0] = 0;
      for (size_t I = 0; I != L.Tasks.size(); ++I)
        L.Before[I + 1] = L.Before[I] + G.task(L.Tasks[I]).DurationNs;
    }
}

const StepWork::Timeline *StepWork::find(const std::vector<Timeline> &In,
                                         StepKey K) const {
  assert(Forward.size() == IndexOf.size() && "built without Timelines");
  auto It = IndexOf.find(K);
  return It == IndexOf.end() ? nullptr : &In[It->second];
}

const StepWork::Timeline *StepWork::forward(StepKey K) const {
  return find(Forward, K);
}

const StepWork::Timeline *StepWork::backward(StepKey K) const {
  return find(Backward, K);
}

std::vector<Segment> dd::recompute::findForwardSegments(
    const Graph &G, llvm::ArrayRef<LayerId> Match, const StepWork &Work,
    size_t Every, bool SlotOrder) {
  // Each CPU thread's runs of forward tasks in one selected layer, in lane
  // order: found lane by lane, or where lanes follow slot order in one
  // sweep over the tasks, each lane's runs apart.
  struct Run {
    StepKey Step;
    std::vector<TaskId> Cpu;
  };
  std::vector<std::vector<Run>> Runs(G.numLanes());
  std::vector<LayerId> Open(G.numLanes(), NoId);
  auto Visit = [&](TaskId T) {
    const Task &Tk = G.task(T);
    LayerId M =
        Tk.Phase == Phase::Forward && Tk.Layer != NoId ? Match[Tk.Layer] : NoId;
    LayerId &O = Open[Tk.Lane];
    if (M == NoId) {
      O = NoId;
      return;
    }
    if (M != O) {
      Runs[Tk.Lane].push_back(Run{Work.stepOf(G, T), {}});
      O = M;
    }
    Runs[Tk.Lane].back().Cpu.push_back(T);
  };
  std::vector<uint8_t> IsCpu(G.numLanes(), 0);
  for (LaneId L = 0; L != G.numLanes(); ++L)
    IsCpu[L] = G.lane(L).Kind == LaneKind::CpuThread;
  if (SlotOrder) {
    for (TaskId T : G.liveTasks())
      if (IsCpu[G.task(T).Lane])
        Visit(T);
  } else {
    for (LaneId L = 0; L != G.numLanes(); ++L)
      if (IsCpu[L])
        for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T))
          Visit(T);
  }
  // every=: the first of each N of a step, counted in lane order.
  std::vector<Segment> Out;
  std::map<StepKey, size_t> Seen;
  for (std::vector<Run> &Lane : Runs)
    for (Run &R : Lane)
      if (Seen[R.Step]++ % Every == 0) {
        Out.emplace_back();
        Out.back().Step = R.Step;
        Out.back().Cpu = std::move(R.Cpu);
      }
  // The GPU work each kept CPU task launched: one sweep over the launch
  // edges, each launcher found by its (segment, place in it), kept by its
  // number in a TaskSet (a hash map of millions of tasks costs more than
  // the rest of this).
  TaskSet Kept(G.numTaskSlots());
  for (const Segment &S : Out)
    for (TaskId T : S.Cpu)
      Kept.insert(T);
  Kept.numberMembers();
  std::vector<std::pair<uint32_t, uint32_t>> Place(Kept.size());
  for (uint32_t I = 0; I != Out.size(); ++I)
    for (uint32_t J = 0; J != Out[I].Cpu.size(); ++J)
      Place[Kept.index(Out[I].Cpu[J])] = {I, J};
  // (start, launcher's place, kernel) per segment; then in time order, ties
  // in launch order.
  std::vector<std::vector<std::tuple<int64_t, uint32_t, TaskId>>> Launched(
      Out.size());
  for (const Edge &E : G.edgeSlots()) {
    if (E.Kind != EdgeKind::Launch || !Kept.contains(E.Src))
      continue;
    // A kernel launched twice over counts once, for its launcher().
    if (Work.launcher(E.Dst) != E.Src || !G.isLive(E) ||
        !isComputeWork(G.task(E.Dst).Kind))
      continue;
    const uint32_t K = Kept.index(E.Src);
    Launched[Place[K].first].push_back(
        {G.task(E.Dst).StartNs, Place[K].second, E.Dst});
  }
  for (uint32_t I = 0; I != Out.size(); ++I) {
    auto &Ks = Launched[I];
    if (!std::is_sorted(Ks.begin(), Ks.end()))
      std::sort(Ks.begin(), Ks.end());
    Out[I].Gpu.reserve(Ks.size());
    Out[I].GpuLauncher.reserve(Ks.size());
    for (const auto &K : Ks) {
      Out[I].Gpu.push_back(std::get<2>(K));
      Out[I].GpuLauncher.push_back(std::get<1>(K));
    }
  }
  return Out;
}

CheckpointPlan dd::recompute::planCheckpoints(const Graph &G,
                                              llvm::ArrayRef<LayerId> Match,
                                              size_t Every) {
  CheckpointPlan P{StepWork(G, StepWork::Launchers), {}};
  // Asked before the other thread may build the links.
  const bool SlotOrder = G.lanesFollowSlotOrder();
  std::thread Other([&] {
    G.prepareLaneLinks();
    P.Work.buildTimelines(G);
  });
  P.Segments = findForwardSegments(G, Match, P.Work, Every, SlotOrder);
  Other.join();
  return P;
}

namespace {

/// The backward kernel before which \p S is recomputed (the mirror rule),
/// and the CPU task that launches it; NoId if the step has none.
std::pair<TaskId, TaskId> mirrorAnchor(const Graph &G, const StepWork &Work,
                                       const Segment &S) {
  const StepWork::Timeline *Bwd = Work.backward(S.Step);
  if (!Bwd || Bwd->Tasks.empty())
    return {NoId, NoId};
  const StepWork::Timeline *Fwd = Work.forward(S.Step);
  int64_t SegmentEnd = endOf(G, S.Cpu.back());
  for (TaskId K : S.Gpu)
    SegmentEnd = std::max(SegmentEnd, endOf(G, K));
  double Done = 0;
  if (Fwd && Fwd->Before.back() > 0) {
    auto Started = std::partition_point(
        Fwd->Tasks.begin(), Fwd->Tasks.end(),
        [&](TaskId K) { return G.task(K).StartNs < SegmentEnd; });
    Done = double(Fwd->Before[Started - Fwd->Tasks.begin()]) /
           double(Fwd->Before.back());
  }
  const double Target = (1.0 - Done) * double(Bwd->Before.back());
  size_t J = size_t(
      std::lower_bound(Bwd->Before.begin(), Bwd->Before.end() - 1, Target,
                       [](int64_t B, double V) { return double(B) < V; }) -
      Bwd->Before.begin());
  J = std::min(J, Bwd->Tasks.size() - 1);
  for (; J != Bwd->Tasks.size(); ++J)
    if (Work.launcher(Bwd->Tasks[J]) != NoId)
      return {Bwd->Tasks[J], Work.launcher(Bwd->Tasks[J])};
  return {NoId, NoId};
}

/// A copy of \p T that runs in backward before \p Pos.
TaskId copyBefore(Graph &G, TaskId T, TaskId Pos) {
  Task C = G.task(T);
  C.Phase = Phase::Backward;
  C.Flags |= TF_Synthetic;
  C.StartNs = G.task(Pos).StartNs;
  return G.insertTaskBefore(Pos, C);
}

} // namespace

void dd::recompute::recomputeSegment(Graph &G, const StepWork &Work,
                                     const Segment &S, MemoryIndex &Memory,
                                     RecomputeStats &Stats) {
  const MemoryEventFacts &Facts = Memory.facts();
  auto [AnchorGpu, AnchorCpu] = mirrorAnchor(G, Work, S);
  if (AnchorGpu == NoId) {
    ++Stats.NoBackward;
    return;
  }
  std::vector<TaskId> CpuCopy(S.Cpu.size());
  for (size_t J = 0; J != S.Cpu.size(); ++J)
    CpuCopy[J] = copyBefore(G, S.Cpu[J], AnchorCpu);
  for (size_t J = 0; J != S.Gpu.size(); ++J)
    G.addEdge(CpuCopy[S.GpuLauncher[J]], copyBefore(G, S.Gpu[J], AnchorGpu),
              EdgeKind::Launch);
  ++Stats.Segments;
  Stats.Tasks += S.Cpu.size() + S.Gpu.size();

  // The segment's memory: the events that move with its CPU tasks.
  const int64_t SegmentEnd = endOf(G, S.Cpu.back());
  const int64_t RecomputeAt = G.task(AnchorCpu).StartNs;
  std::vector<MemoryEvent> Added;
  std::vector<std::pair<size_t, size_t>> Held; // (allocation, free)
  std::vector<size_t> Owned;
  for (TaskId T : S.Cpu)
    Owned.insert(Owned.end(), Memory.ownedBy(T).begin(),
                 Memory.ownedBy(T).end());
  if (Owned.empty())
    return;
  llvm::DenseMap<TaskId, TaskId> Copy;
  for (size_t J = 0; J != S.Cpu.size(); ++J)
    Copy[S.Cpu[J]] = CpuCopy[J];
  for (size_t I : Owned) {
    const TaskId Owner = Facts.Owner[I];
    const MemoryEvent &E = G.memoryEvents()[I];
    const size_t P = Facts.Partner[I];
    if (E.Bytes <= 0 || (E.Flags & (MEF_Modelled | MEF_Replaced)) ||
        P == NoMemoryEvent)
      continue;
    const MemoryEvent &Free = G.memoryEvents()[P];
    auto FreeOwner = Copy.find(Facts.Owner[P]);
    if (FreeOwner == Copy.end()) {
      if (Free.TimeNs >= SegmentEnd)
        Held.push_back({I, P});
      continue;
    }
    // Workspace of the segment: made and freed again by its copy.
    uint64_t Address = Memory.freshAddress();
    MemoryEvent A = E, F = Free;
    A.Flags = F.Flags = MEF_Modelled;
    A.Address = F.Address = Address;
    A.TotalAllocated = A.TotalReserved = F.TotalAllocated = F.TotalReserved =
        -1;
    A.TimeNs = F.TimeNs = RecomputeAt;
    A.Task = Copy[Owner];
    F.Task = FreeOwner->second;
    A.Category = uint8_t(Facts.Category[I]);
    Added.push_back(A);
    Added.push_back(F);
  }
  // The last block made and held past the segment is its output, which
  // checkpointing keeps; the others die at its end and are made again.
  std::stable_sort(Held.begin(), Held.end(), [&](auto A, auto B) {
    return G.memoryEvents()[A.first].TimeNs < G.memoryEvents()[B.first].TimeNs;
  });
  if (!Held.empty())
    Held.pop_back();
  llvm::MutableArrayRef<MemoryEvent> Events = G.memoryEventsMut();
  for (auto [I, P] : Held) {
    Events[I].Category = uint8_t(Facts.Category[I]);
    Events[P].Flags |= MEF_Replaced;
    MemoryEvent EarlyFree = Events[P];
    EarlyFree.Flags = MEF_Modelled;
    EarlyFree.Task = S.Cpu.back();
    EarlyFree.TimeNs = std::max(SegmentEnd, Events[I].TimeNs);
    EarlyFree.TotalAllocated = EarlyFree.TotalReserved = -1;
    EarlyFree.Category = CategoryByRule;
    MemoryEvent Again = Events[I], AgainFree = Events[P];
    Again.Flags = AgainFree.Flags = MEF_Modelled;
    Again.Address = AgainFree.Address = Memory.freshAddress();
    Again.TotalAllocated = Again.TotalReserved = AgainFree.TotalAllocated =
        AgainFree.TotalReserved = -1;
    Again.Task = Copy[Facts.Owner[I]];
    Again.TimeNs = std::min(RecomputeAt, Events[P].TimeNs);
    AgainFree.Category = CategoryByRule;
    Added.push_back(EarlyFree);
    Added.push_back(Again);
    Added.push_back(AgainFree);
    ++Stats.BlocksFreedEarly;
  }
  for (const MemoryEvent &E : Added)
    G.addMemoryEvent(E);
}

void dd::recompute::resizeBlock(Graph &G, MemoryIndex &Memory, size_t Alloc,
                                int64_t Bytes,
                                std::vector<MemoryEvent> &Added) {
  const MemoryEventFacts &Facts = Memory.facts();
  llvm::MutableArrayRef<MemoryEvent> Events = G.memoryEventsMut();
  MemoryEvent A = Events[Alloc];
  A.Bytes = Bytes;
  A.Flags = MEF_Modelled;
  A.Address = Memory.freshAddress();
  A.TotalAllocated = A.TotalReserved = -1;
  A.Task = Facts.Owner[Alloc];
  A.Category = uint8_t(Facts.Category[Alloc]);
  Added.push_back(A);
  Events[Alloc].Flags |= MEF_Replaced;
  const size_t P = Facts.Partner[Alloc];
  if (P == NoMemoryEvent)
    return;
  MemoryEvent F = Events[P];
  F.Bytes = -Bytes;
  F.Flags = MEF_Modelled;
  F.Address = A.Address;
  F.TotalAllocated = F.TotalReserved = -1;
  F.Task = Facts.Owner[P];
  Added.push_back(F);
  Events[P].Flags |= MEF_Replaced;
}
