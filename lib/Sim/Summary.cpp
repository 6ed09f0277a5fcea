//===- Summary.cpp - Lane, makespan and iteration results -----------------===//
//
// Turns simulated task times into the numbers Daydream reports, in one pass
// over the tasks after either engine has run: dead slots get -1, lanes add up
// busy time, and each live task is credited to its iteration.
//
// Membership is decided by recorded times (a task belongs to the iteration
// that was running when the trace saw it start), because simulated times are
// what a transformation moved and so cannot say where an iteration begins.
// An iteration is predicted to begin when its first CPU work begins, since
// the host loop is what delimits training iterations; GPU work queued by the
// previous iteration may still be running then.
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

namespace {

/// What an iteration's members add up to.
struct Members {
  int64_t MinCpuStart = std::numeric_limits<int64_t>::max();
  int64_t MinStart = std::numeric_limits<int64_t>::max();
  int64_t MaxEnd = std::numeric_limits<int64_t>::min();
  int64_t MaxCpuEnd = std::numeric_limits<int64_t>::min();
  bool Any = false;
};

/// Finds the iteration of a recorded start time. Tasks come mostly in
/// recorded-time order, so the previous answer is tried before a binary
/// search; the lookup is O(1) in the common case and O(log k) otherwise.
class IterationLocator {
public:
  explicit IterationLocator(llvm::ArrayRef<int64_t> Bounds) : Bounds(Bounds) {}

  /// The number of iteration starts <= \p X: the iteration is one less, and
  /// 0 means before the first. Among equal starts this picks the last one.
  size_t slot(int64_t X) {
    const size_t K = Bounds.size();
    if ((Slot != 0 && X < Bounds[Slot - 1]) || (Slot != K && X >= Bounds[Slot]))
      Slot = std::upper_bound(Bounds.begin(), Bounds.end(), X) - Bounds.begin();
    return Slot;
  }

private:
  llvm::ArrayRef<int64_t> Bounds;
  size_t Slot = 0;
};

} // namespace

/// The iterations of one rank (or the job-wide ones, rank -1), sorted by
/// start: a task is looked up only among its own rank's steps, since ranks
/// run the same steps at the same time.
struct RankIterations {
  std::vector<uint32_t> Sorted; ///< Graph::iterations() indices
  std::vector<int64_t> Bounds;  ///< their starts, ascending
};

void sim::summarize(const Graph &G, SimResult &R) {
  llvm::ArrayRef<Iteration> Its = G.iterations();
  const size_t K = Its.size();

  // Iterations grouped by rank and sorted by start; stable, so that among
  // equal starts the later one in graph order collects the tasks.
  std::vector<RankIterations> Groups;
  llvm::DenseMap<int32_t, unsigned> GroupOfRank; // keys: rank + 1 >= 0
  for (uint32_t I = 0; I != K; ++I) {
    auto [It, New] = GroupOfRank.try_emplace(Its[I].Rank + 1, Groups.size());
    if (New)
      Groups.emplace_back();
    Groups[It->second].Sorted.push_back(I);
  }
  std::vector<IterationLocator> Locators;
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
  std::vector<Members> M(K);

  // Each lane's group: its rank's steps, else the job-wide ones, else none.
  constexpr unsigned NoGroup = ~0u;
  auto groupOf = [&](int32_t Rank) {
    auto It = GroupOfRank.find(Rank + 1);
    return It == GroupOfRank.end() ? NoGroup : It->second;
  };
  std::vector<uint8_t> IsCpu(G.numLanes());
  std::vector<unsigned> LaneGroup(G.numLanes());
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    IsCpu[L] = G.lane(L).Kind == LaneKind::CpuThread;
    unsigned Own = G.lane(L).Rank >= 0 ? groupOf(G.lane(L).Rank) : NoGroup;
    LaneGroup[L] = Own != NoGroup ? Own : groupOf(-1);
  }
  R.Lanes.assign(G.numLanes(), LaneResult());

  const bool AllLive = G.numTasks() == G.numTaskSlots();
  llvm::ArrayRef<Task> Tasks = G.taskSlots();
  int64_t MaxEnd = R.OriginNs;
  for (TaskId T = 0, N = Tasks.size(); T != N; ++T) {
    if (!AllLive && !G.isLive(T)) {
      R.Start[T] = R.End[T] = -1;
      continue;
    }
    const Task &Tk = Tasks[T];
    const int64_t S = R.Start[T], E = R.End[T];
    LaneResult &L = R.Lanes[Tk.Lane];
    L.BusyNs += E - S;
    ++L.NumTasks;
    MaxEnd = std::max(MaxEnd, E);

    unsigned Group = LaneGroup[Tk.Lane];
    if (Group == NoGroup)
      continue;
    size_t Slot = Locators[Group].slot(Tk.StartNs);
    if (Slot == 0)
      continue;
    // A CPU task after the recorded end of its step (profiler teardown, a
    // pause between steps) is part of no iteration.
    uint32_t Index = Groups[Group].Sorted[Slot - 1];
    const Iteration &It = Its[Index];
    if (IsCpu[Tk.Lane] && It.MeasuredNs >= 0 &&
        Tk.StartNs > It.StartNs + It.MeasuredNs)
      continue;
    Members &Mi = M[Index];
    Mi.Any = true;
    Mi.MinStart = std::min(Mi.MinStart, S);
    Mi.MaxEnd = std::max(Mi.MaxEnd, E);
    if (IsCpu[Tk.Lane]) {
      Mi.MinCpuStart = std::min(Mi.MinCpuStart, S);
      Mi.MaxCpuEnd = std::max(Mi.MaxCpuEnd, E);
    }
  }
  R.MakespanNs = MaxEnd - R.OriginNs;

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
      IR.PredictedStartNs = HasCpu ? Mi.MinCpuStart : Mi.MinStart;
      int64_t OwnEnd = HasCpu ? Mi.MaxCpuEnd : Mi.MaxEnd;
      IR.PredictedNs = (HaveNext ? NextStart : OwnEnd) - IR.PredictedStartNs;
      HaveNext = true;
      NextStart = IR.PredictedStartNs;
    }
  }
}
