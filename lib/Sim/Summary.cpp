//===- Summary.cpp - Lane, makespan and iteration results -----------------===//
//
// Turns simulated task times into the numbers Daydream reports, in one pass
// over the tasks after either engine has run: dead slots get -1, lanes add up
// busy time, and each live task is credited to its iteration.
//
// Membership is decided by recorded times (a task belongs to the iteration
// that was running when the trace saw it start), because simulated times are
// what a transformation moved and so cannot say where an iteration begins.
// An iteration is predicted to begin when its marker (the zero-length task
// at the step's recorded start, where the importer puts one) runs, or else
// when its first CPU work begins, since the host loop is what delimits
// training iterations; GPU work queued by the previous iteration may still
// be running then, and so may CPU work a pass put on lanes of its own (a
// DataLoader's worker processes).
//
// SummaryBuilder takes the tasks one at a time, so that the sweep engine
// credits each task as it simulates it, while the task is in the cache,
// instead of reading every task again afterwards; summarize() feeds it the
// results of the other engines.
//
//===----------------------------------------------------------------------===//

#include "Replay.h"

#include "daydream/IR/Graph.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <limits>
#include <numeric>

using namespace dd;
using namespace dd::sim;

SummaryBuilder::SummaryBuilder(const Graph &G, SimResult &R)
    : G(G), R(R), Its(G.iterations()) {
  const size_t K = Its.size();
  // Iterations grouped by rank and sorted by start; stable, so that among
  // equal starts the later one in graph order collects the tasks.
  llvm::DenseMap<int32_t, unsigned> GroupOfRank; // keys: rank + 1 >= 0
  for (uint32_t I = 0; I != K; ++I) {
    auto [It, New] = GroupOfRank.try_emplace(Its[I].Rank + 1, Groups.size());
    if (New)
      Groups.emplace_back();
    Groups[It->second].Sorted.push_back(I);
  }
  Locators.reserve(Groups.size());
  for (RankIterations &Gr : Groups) {
    std::stable_sort(Gr.Sorted.begin(), Gr.Sorted.end(),
                     [&](uint32_t A, uint32_t B) {
                       return Its[A].StartNs < Its[B].StartNs;
                     });
    for (uint32_t I : Gr.Sorted)
      Gr.Bounds.push_back(Its[I].StartNs);
    Locators.emplace_back(Gr.Bounds);
  }
  M.resize(K);

  // Each lane's group: its rank's steps, else the job-wide ones, else none.
  auto GroupOf = [&](int32_t Rank) {
    auto It = GroupOfRank.find(Rank + 1);
    return It == GroupOfRank.end() ? NoGroup : It->second;
  };
  IsCpu.resize(G.numLanes());
  LaneGroup.resize(G.numLanes());
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    IsCpu[L] = G.lane(L).Kind == LaneKind::CpuThread;
    unsigned Own = G.lane(L).Rank >= 0 ? GroupOf(G.lane(L).Rank) : NoGroup;
    LaneGroup[L] = Own != NoGroup ? Own : GroupOf(-1);
  }
  R.Lanes.assign(G.numLanes(), LaneResult());
}

void SummaryBuilder::noteMarker(Members &Mi, bool AtStart, int64_t S) {
  if (AtStart)
    Mi.MarkerStart = std::min(Mi.MarkerStart, S);
}

void SummaryBuilder::finish(int64_t Shift) {
  R.MakespanNs =
      AnyTask ? std::max(MaxEnd + Shift, R.OriginNs) - R.OriginNs : 0;
  const size_t K = Its.size();
  R.Iterations.assign(K, IterationResult());
  for (size_t I = 0; I != K; ++I) {
    R.Iterations[I].Name = Its[I].Name == NoId ? "" : G.str(Its[I].Name);
    R.Iterations[I].MeasuredNs = Its[I].MeasuredNs;
    R.Iterations[I].Rank = Its[I].Rank;
  }
  // Backwards through each rank's steps, so each iteration sees the start
  // of its rank's next one that has members.
  for (const RankIterations &Gr : Groups) {
    bool HaveNext = false;
    int64_t NextStart = 0;
    for (size_t P = Gr.Sorted.size(); P-- != 0;) {
      const Members &Mi = M[Gr.Sorted[P]];
      if (!Mi.Any)
        continue;
      IterationResult &IR = R.Iterations[Gr.Sorted[P]];
      // Iterations are CPU-side ranges (ProfilerStep): measure them on the
      // CPU threads where they have tasks there. GPU work spilling past the
      // last step's CPU end does not belong to its recorded duration.
      bool HasCpu = Mi.MinCpuStart != std::numeric_limits<int64_t>::max();
      bool HasMarker = Mi.MarkerStart != std::numeric_limits<int64_t>::max();
      IR.PredictedStartNs = (HasMarker ? Mi.MarkerStart
                             : HasCpu  ? Mi.MinCpuStart
                                       : Mi.MinStart) +
                            Shift;
      int64_t OwnEnd = (HasCpu ? Mi.MaxCpuEnd : Mi.MaxEnd) + Shift;
      IR.PredictedNs = (HaveNext ? NextStart : OwnEnd) - IR.PredictedStartNs;
      HaveNext = true;
      NextStart = IR.PredictedStartNs;
    }
  }
}

void SummaryBuilder::pack(std::vector<int64_t> &Out) const {
  Out.reserve(Out.size() + 4 * R.Lanes.size() + 6 * M.size() + 2);
  for (const LaneResult &L : R.Lanes)
    Out.insert(Out.end(),
               {L.BusyNs, L.KernelNs, static_cast<int64_t>(L.NumTasks),
                static_cast<int64_t>(L.TaskKinds)});
  for (const Members &Mi : M)
    Out.insert(Out.end(), {Mi.MarkerStart, Mi.MinCpuStart, Mi.MinStart,
                           Mi.MaxEnd, Mi.MaxCpuEnd, int64_t(Mi.Any)});
  Out.insert(Out.end(), {MaxEnd, int64_t(AnyTask)});
}

bool SummaryBuilder::merge(llvm::ArrayRef<int64_t> Packed) {
  if (Packed.size() != 4 * R.Lanes.size() + 6 * M.size() + 2)
    return false;
  const int64_t *V = Packed.data();
  for (LaneResult &L : R.Lanes) {
    L.BusyNs += V[0];
    L.KernelNs += V[1];
    L.NumTasks += static_cast<uint64_t>(V[2]);
    L.TaskKinds |= static_cast<uint32_t>(V[3]);
    V += 4;
  }
  for (Members &Mi : M) {
    Mi.MarkerStart = std::min(Mi.MarkerStart, V[0]);
    Mi.MinCpuStart = std::min(Mi.MinCpuStart, V[1]);
    Mi.MinStart = std::min(Mi.MinStart, V[2]);
    Mi.MaxEnd = std::max(Mi.MaxEnd, V[3]);
    Mi.MaxCpuEnd = std::max(Mi.MaxCpuEnd, V[4]);
    Mi.Any |= V[5] != 0;
    V += 6;
  }
  MaxEnd = std::max(MaxEnd, V[0]);
  AnyTask |= V[1] != 0;
  return true;
}

void sim::summarize(const Graph &G, SimResult &R) {
  SummaryBuilder B(G, R);
  const bool AllLive = G.numTasks() == G.numTaskSlots();
  llvm::ArrayRef<Task> Tasks = G.taskSlots();
  for (TaskId T = 0, N = Tasks.size(); T != N; ++T) {
    if (!AllLive && !G.isLive(T)) {
      R.Start[T] = R.End[T] = -1;
      continue;
    }
    B.add(Tasks[T], R.Start[T], R.End[T]);
  }
  B.finish(0);
}
