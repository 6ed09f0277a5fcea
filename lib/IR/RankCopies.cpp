//===- RankCopies.cpp - Ranks stored once for many identical ranks --------===//
//
// Expansion clones each representative's tasks in its lane order, so a
// copy's k-th task is its representative's k-th: one array of positions
// (task slot -> position in its rank) maps every edge, note and memory
// event of the representative onto every copy at once.
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/RankCopies.h"
#include "daydream/Support/MachineMemory.h"

#include "daydream/IR/Graph.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

using namespace dd;

namespace {

template <typename... Ts> llvm::Error fail(const char *Fmt, Ts &&...Vals) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv(Fmt, std::forward<Ts>(Vals)...).str());
}

constexpr uint32_t NoPos = ~0u;

} // namespace

std::map<int32_t, RankLayout> dd::rankLayouts(const Graph &G) {
  std::map<int32_t, RankLayout> Out;
  for (const RankInfo &R : G.metadata().Ranks) {
    RankLayout &L = Out[R.Rank];
    L.Rank = R.Rank;
    L.CopyOf = R.CopyOf;
  }
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    auto It = Out.find(G.lane(L).Rank);
    if (It != Out.end())
      It->second.Lanes.push_back(L);
  }
  for (uint32_t I = 0; I != G.iterations().size(); ++I) {
    auto It = Out.find(G.iterations()[I].Rank);
    if (It != Out.end())
      It->second.Iterations.push_back(I);
  }
  return Out;
}

bool dd::hasRankCopies(const Graph &G) {
  for (const RankInfo &R : G.metadata().Ranks)
    if (R.CopyOf != -1)
      return true;
  return false;
}

CopiedWork dd::countCopiedWork(const Graph &G) {
  CopiedWork W;
  if (!hasRankCopies(G))
    return W;
  // Per lane: how many copies its rank has (0 for a lane of no
  // representative).
  std::map<int32_t, RankLayout> Ranks = rankLayouts(G);
  std::vector<size_t> Copies(G.numLanes(), 0);
  for (const auto &[Rank, L] : Ranks)
    if (L.CopyOf != -1)
      for (LaneId RL : Ranks.at(L.CopyOf).Lanes)
        ++Copies[RL];
  for (LaneId L = 0; L != G.numLanes(); ++L)
    if (Copies[L])
      for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T))
        W.Tasks += Copies[L];
  // No edge joins two ranks where one has copies (checkRankCopies()), so an
  // edge touches at most one representative.
  for (const Edge &E : G.edgeSlots())
    if (G.isLive(E)) {
      size_t S = Copies[G.task(E.Src).Lane];
      W.Edges += S ? S : Copies[G.task(E.Dst).Lane];
    }
  return W;
}

llvm::Error dd::checkRankCopies(const Graph &G) {
  if (!hasRankCopies(G))
    return llvm::Error::success();
  std::map<int32_t, unsigned> Listed;
  for (const RankInfo &R : G.metadata().Ranks)
    if (++Listed[R.Rank] == 2)
      return fail("rank {0} is listed twice in a job with rank copies", R.Rank);
  std::map<int32_t, RankLayout> Ranks = rankLayouts(G);
  for (const auto &[Rank, Copy] : Ranks) {
    if (Copy.CopyOf == -1)
      continue;
    auto Rep = Ranks.find(Copy.CopyOf);
    if (Copy.CopyOf == Rank || Rep == Ranks.end())
      return fail("rank {0}: copy-of={1} is not another rank of the graph",
                  Rank, Copy.CopyOf);
    if (Rep->second.CopyOf != -1)
      return fail("rank {0}: copy-of={1}, a rank that is itself a copy (of "
                  "rank {2}); name the rank stored whole",
                  Rank, Copy.CopyOf, Rep->second.CopyOf);
    const std::vector<LaneId> &Own = Copy.Lanes, &Its = Rep->second.Lanes;
    if (Own.size() != Its.size())
      return fail("rank {0}: a copy of rank {1} with {2} lanes, where rank "
                  "{1} has {3}",
                  Rank, Copy.CopyOf, Own.size(), Its.size());
    for (size_t I = 0; I != Own.size(); ++I) {
      const Lane &A = G.lane(Own[I]), &B = G.lane(Its[I]);
      if (A.Kind != B.Kind || A.Order != B.Order)
        return fail("rank {0}: lane @{1} ({2}, {3}) is a copy of rank {4}'s "
                    "lane @{5}, which is {6}, {7}",
                    Rank, Own[I], toString(A.Kind), toString(A.Order),
                    Copy.CopyOf, Its[I], toString(B.Kind), toString(B.Order));
      if (G.laneHead(Own[I]) != NoId)
        return fail("rank {0}: lane @{1} holds tasks, but the rank is a copy "
                    "of rank {2} (whose tasks it shares)",
                    Rank, Own[I], Copy.CopyOf);
    }
    if (Copy.Iterations.size() != Rep->second.Iterations.size())
      return fail("rank {0}: a copy of rank {1} with {2} iterations, where "
                  "rank {1} has {3}",
                  Rank, Copy.CopyOf, Copy.Iterations.size(),
                  Rep->second.Iterations.size());
    // Its tasks fall into its iterations as they do into R's only where
    // the iterations are R's to the nanosecond; dd-sim gives it R's.
    for (size_t I = 0; I != Copy.Iterations.size(); ++I) {
      uint32_t A = Copy.Iterations[I], B = Rep->second.Iterations[I];
      const Iteration &IA = G.iterations()[A], &IB = G.iterations()[B];
      if (IA.StartNs != IB.StartNs || IA.MeasuredNs != IB.MeasuredNs)
        return fail("rank {0}: iteration {1} '{2}' (start={3} measured={4}) "
                    "is a copy of rank {5}'s iteration {6} '{7}' (start={8} "
                    "measured={9})",
                    Rank, A, G.str(IA.Name), IA.StartNs, IA.MeasuredNs,
                    Copy.CopyOf, B, G.str(IB.Name), IB.StartNs, IB.MeasuredNs);
    }
  }
  // A representative's edges stay inside it or go to the job's own tasks.
  std::vector<uint8_t> IsRep(G.numLanes(), 0);
  for (const auto &[Rank, Copy] : Ranks)
    if (Copy.CopyOf != -1)
      for (LaneId L : Ranks[Copy.CopyOf].Lanes)
        IsRep[L] = 1;
  for (const Edge &E : G.edgeSlots()) {
    if (!G.isLive(E))
      continue;
    LaneId S = G.task(E.Src).Lane, D = G.task(E.Dst).Lane;
    int32_t SR = G.lane(S).Rank, DR = G.lane(D).Rank;
    if ((IsRep[S] || IsRep[D]) && SR >= 0 && DR >= 0 && SR != DR)
      return fail("task %{0} (rank {1}) -> task %{2} (rank {3}): an edge "
                  "between ranks, but rank {4} has copies, whose edges "
                  "would be undefined",
                  E.Src, SR, E.Dst, DR, IsRep[S] ? SR : DR);
  }
  return llvm::Error::success();
}

llvm::Error dd::expandRankCopies(Graph &G) {
  if (!hasRankCopies(G))
    return llvm::Error::success();
  std::map<int32_t, RankLayout> Ranks = rankLayouts(G);
  // Each representative's tasks in lane order, and each task's position.
  struct Rep {
    std::vector<TaskId> Tasks;
    std::vector<TaskId> CopyBase; ///< per copy, its first task's id
    std::vector<const RankLayout *> Copies;
  };
  std::map<int32_t, Rep> Reps;
  for (const auto &[Rank, L] : Ranks)
    if (L.CopyOf != -1)
      Reps[L.CopyOf].Copies.push_back(&L);
  std::vector<uint32_t> Pos(G.numTaskSlots(), NoPos);
  std::vector<Rep *> RepOfLane(G.numLanes(), nullptr);
  for (auto &[Rank, R] : Reps)
    for (LaneId L : Ranks[Rank].Lanes) {
      RepOfLane[L] = &R;
      for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T)) {
        Pos[T] = uint32_t(R.Tasks.size());
        R.Tasks.push_back(T);
      }
    }
  const size_t NumEdges = G.edgeSlots().size();
  const size_t NumNotes = G.notes().size();
  const size_t NumEvents = G.memoryEvents().size();
  const auto [NewTasks, NewEdges] = countCopiedWork(G);
  constexpr size_t MaxIds = NoId;
  if (G.numTaskSlots() + NewTasks >= MaxIds || NumEdges + NewEdges >= MaxIds)
    return fail("expanding the ranks stored as copies would make {0} tasks "
                "and {1} edges, more than a graph can number ({2})",
                G.numTaskSlots() + NewTasks, NumEdges + NewEdges, MaxIds - 1);
  // What the new tasks (with their lane links) and edges take at least: a
  // job stored as copies precisely because it is too large whole is
  // refused here rather than left to run out of memory.
  const uint64_t Bytes =
      uint64_t(NewTasks) * (sizeof(Task) + 2 * sizeof(TaskId)) +
      uint64_t(NewEdges) * sizeof(Edge);
  if (uint64_t Memory = machineMemoryBytes(); Memory && Bytes > Memory)
    return fail("expanding the ranks stored as copies would add {0} tasks "
                "and {1} edges, at least {2} GB, more than this machine's {3} "
                "GB of memory",
                NewTasks, NewEdges, Bytes >> 30, Memory >> 30);
  G.reserve(G.numTaskSlots() + NewTasks, NumEdges + NewEdges);

  // The k-th lane of a copy is the k-th of its representative.
  std::vector<LaneId> LaneIndex(G.numLanes(), NoId);
  for (auto &[Rank, R] : Reps) {
    const std::vector<LaneId> &RepLanes = Ranks[Rank].Lanes;
    for (size_t I = 0; I != RepLanes.size(); ++I)
      LaneIndex[RepLanes[I]] = LaneId(I);
    for (const RankLayout *C : R.Copies) {
      R.CopyBase.push_back(TaskId(G.numTaskSlots()));
      for (TaskId T : R.Tasks) {
        Task NT = G.task(T);
        NT.Lane = C->Lanes[LaneIndex[NT.Lane]];
        G.addTask(NT);
      }
    }
  }
  auto InCopy = [&](const Rep &R, size_t C, TaskId T) {
    return Pos[T] == NoPos ? T : R.CopyBase[C] + Pos[T];
  };
  for (size_t E = 0; E != NumEdges; ++E) {
    const Edge Ed = G.edgeSlots()[E];
    if (!G.isLive(Ed))
      continue;
    Rep *R = Pos[Ed.Src] != NoPos   ? RepOfLane[G.task(Ed.Src).Lane]
             : Pos[Ed.Dst] != NoPos ? RepOfLane[G.task(Ed.Dst).Lane]
                                    : nullptr;
    if (!R)
      continue;
    for (size_t C = 0; C != R->Copies.size(); ++C)
      G.addEdge(InCopy(*R, C, Ed.Src), InCopy(*R, C, Ed.Dst), Ed.Kind);
  }
  for (size_t N = 0; N != NumNotes; ++N) {
    const TaskNote Note = G.notes()[N];
    if (Note.Task >= Pos.size() || Pos[Note.Task] == NoPos)
      continue;
    Rep &R = *RepOfLane[G.task(Note.Task).Lane];
    for (size_t C = 0; C != R.Copies.size(); ++C)
      G.addNote(TaskNote{InCopy(R, C, Note.Task), Note.Key, Note.Value});
  }
  for (size_t I = 0; I != NumEvents; ++I) {
    const MemoryEvent Ev = G.memoryEvents()[I];
    if (Ev.Lane == NoId || Ev.Lane >= RepOfLane.size() || !RepOfLane[Ev.Lane])
      continue;
    Rep &R = *RepOfLane[Ev.Lane];
    for (size_t Copy = 0; Copy != R.Copies.size(); ++Copy) {
      const RankLayout *C = R.Copies[Copy];
      MemoryEvent NE = Ev;
      NE.Lane = C->Lanes[LaneIndex[Ev.Lane]];
      if (Ev.Task < Pos.size())
        NE.Task = InCopy(R, Copy, Ev.Task);
      // The copy's own GPU: the device of its lane where the
      // representative's lane of that device is.
      for (size_t K = 0; K != C->Lanes.size(); ++K)
        if (G.lane(Ranks[C->CopyOf].Lanes[K]).Device == Ev.Device &&
            Ev.Device >= 0) {
          NE.Device = G.lane(C->Lanes[K]).Device;
          break;
        }
      G.addMemoryEvent(NE);
    }
  }
  for (RankInfo &R : G.metadata().Ranks)
    R.CopyOf = -1;
  return llvm::Error::success();
}
