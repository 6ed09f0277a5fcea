//===- FoldRanks.cpp - Store a rank identical to an earlier one as a copy -===//
//
// The comparison walks the new rank's graph in the order appendRankGraph()
// appends it (lanes in id order, each lane's tasks in lane order, then live
// edges, notes of live tasks and memory events in array order), so the k-th
// piece it meets must equal the k-th piece of the earlier rank's block.
//
//===----------------------------------------------------------------------===//

#include "FoldRanks.h"

#include "llvm/ADT/Hashing.h"

using namespace dd;
using namespace dd::import;

namespace {

bool sameString(const Graph &Job, StrId A, const Graph &Rank, StrId B) {
  if (A == NoId || B == NoId)
    return A == B;
  return Job.str(A) == Rank.str(B);
}

/// A relative id: \p Id - \p Base, or NoId for NoId.
uint32_t rel(uint32_t Id, size_t Base) {
  return Id == NoId ? NoId : uint32_t(Id - Base);
}

} // namespace

uint64_t dd::import::rankContentHash(const Graph &G, size_t MaxPerLane) {
  llvm::hash_code H = llvm::hash_combine(G.numLanes(), G.numTasks());
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    H = llvm::hash_combine(H, G.lane(L).Kind);
    size_t N = 0;
    for (TaskId T = G.laneHead(L); T != NoId && N != MaxPerLane;
         T = G.nextOnLane(T), ++N)
      H = llvm::hash_combine(H, G.task(T).StartNs, G.task(T).DurationNs);
  }
  return llvm::hash_combine(H, G.edgeSlots().size());
}

bool dd::import::sameAsAppended(const Graph &Job, const RankSpan &S,
                                const Graph &G) {
  if (G.numLanes() != S.Lanes.size() || G.numLayers() != S.Layers.size() ||
      G.iterations().size() != S.Iterations.size() ||
      G.numTasks() != S.Tasks.size() ||
      G.memoryEvents().size() != S.Events.size())
    return false;
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    const Lane &A = Job.lane(LaneId(S.Lanes.Begin + L)), &B = G.lane(L);
    if (A.Kind != B.Kind || A.Order != B.Order)
      return false;
  }
  for (LayerId L = 0; L != G.numLayers(); ++L) {
    const Layer &A = Job.layer(LayerId(S.Layers.Begin + L)), &B = G.layer(L);
    if (!sameString(Job, A.Name, G, B.Name) ||
        rel(A.Parent, S.Layers.Begin) != B.Parent)
      return false;
  }
  for (size_t I = 0; I != S.Iterations.size(); ++I) {
    const Iteration &A = Job.iterations()[S.Iterations.Begin + I],
                    &B = G.iterations()[I];
    if (A.StartNs != B.StartNs || A.MeasuredNs != B.MeasuredNs)
      return false;
  }
  // Tasks, and each one's position in the rank (its id in the block).
  std::vector<TaskId> Pos(G.numTaskSlots(), NoId);
  TaskId K = 0;
  for (LaneId L = 0; L != G.numLanes(); ++L)
    for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T), ++K) {
      const Task &A = Job.task(TaskId(S.Tasks.Begin + K)), &B = G.task(T);
      if (A.StartNs != B.StartNs || A.DurationNs != B.DurationNs ||
          A.GapNs != B.GapNs || A.Kind != B.Kind || A.Phase != B.Phase ||
          A.Flags != B.Flags || A.Correlation != B.Correlation ||
          rel(A.Lane, S.Lanes.Begin) != B.Lane ||
          rel(A.Layer, S.Layers.Begin) != B.Layer ||
          !sameString(Job, A.Name, G, B.Name))
        return false;
      const TaskAttrs *AA = Job.attrs(TaskId(S.Tasks.Begin + K)),
                      *BA = G.attrs(T);
      if (bool(AA) != bool(BA) || (AA && !(*AA == *BA)))
        return false;
      Pos[T] = K;
    }
  size_t E = S.Edges.Begin;
  for (const Edge &Ed : G.edgeSlots()) {
    if (!G.isLive(Ed))
      continue;
    if (E == S.Edges.End)
      return false;
    const Edge &A = Job.edgeSlots()[E++];
    if (rel(A.Src, S.Tasks.Begin) != Pos[Ed.Src] ||
        rel(A.Dst, S.Tasks.Begin) != Pos[Ed.Dst] || A.Kind != Ed.Kind)
      return false;
  }
  if (E != S.Edges.End)
    return false;
  size_t N = S.Notes.Begin;
  for (const TaskNote &Note : G.notes()) {
    if (Note.Task >= Pos.size() || Pos[Note.Task] == NoId)
      continue;
    if (N == S.Notes.End)
      return false;
    const TaskNote &A = Job.notes()[N++];
    if (rel(A.Task, S.Tasks.Begin) != Pos[Note.Task] ||
        !sameString(Job, A.Key, G, Note.Key) ||
        !sameString(Job, A.Value, G, Note.Value))
      return false;
  }
  if (N != S.Notes.End)
    return false;
  for (size_t I = 0; I != S.Events.size(); ++I) {
    MemoryEvent A = Job.memoryEvents()[S.Events.Begin + I];
    MemoryEvent B = G.memoryEvents()[I];
    A.Lane = rel(A.Lane, S.Lanes.Begin);
    A.Device = B.Device; // the copy's own GPU
    if (!(A == B))
      return false;
  }
  return true;
}
