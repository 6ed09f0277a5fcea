//===- SweepCrossings.cpp - The edges between processes, and their trees --===//
//
// One pass over the edge array, which a graph as read from a file keeps
// sorted by source, so that each task's edges are found together. Every
// process makes the same pass over the same graph and so agrees, without a
// message, on which edges cross, how each crossing is sent (into a group,
// or as a task's end) and the tree each one goes through.
//
// A tree is over the processes that take part: the one that owns the task
// at its root, then the others in increasing order, laid out as a binary
// heap (the process at place i has those at 2i + 1 and 2i + 2 below it).
// Arrivals go up it: a process's message for the task waits for those of
// the processes below it, and carries their edges' count, so that the
// task's process still counts every edge into it. An end goes down it: a
// process that receives it passes it on at once. Neither can deadlock the
// walk: a process forwards inside any wait, and one that has finished its
// walk keeps receiving until what it forwards up has gone
// (DistributedReplay.h); every process a task's end goes down to has a
// task that waits for it.
//
//===----------------------------------------------------------------------===//

#include "DistributedWalk.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace dd;
using namespace dd::sim;

namespace {

/// Process \p Me's place in the tree over \p Root and \p Others (sorted,
/// without Root): the process above it (NoId at the root) and those below.
struct TreePlace {
  uint32_t Parent = NoId;
  llvm::SmallVector<uint32_t, 2> Children;
};

TreePlace placeIn(uint32_t Root, llvm::ArrayRef<uint32_t> Others, unsigned Me) {
  TreePlace P;
  size_t I = 0;
  if (Me != Root) {
    auto It = std::lower_bound(Others.begin(), Others.end(), Me);
    I = 1 + (It - Others.begin());
  }
  auto At = [&](size_t K) { return K == 0 ? Root : Others[K - 1]; };
  const size_t Size = Others.size() + 1;
  if (I != 0)
    P.Parent = At((I - 1) / 2);
  for (size_t K = 2 * I + 1; K <= 2 * I + 2 && K < Size; ++K)
    P.Children.push_back(At(K));
  return P;
}

} // namespace

SweepCrossings dd::sim::findSweepCrossings(const Graph &G,
                                           llvm::ArrayRef<uint32_t> Owner,
                                           unsigned Me) {
  SweepCrossings X;
  llvm::ArrayRef<Task> Tasks = G.taskSlots();
  auto OwnerOf = [&](TaskId T) { return Owner[Tasks[T].Lane]; };
  llvm::ArrayRef<Edge> Edges = G.edgeSlots();
  std::vector<TaskId> Incoming;
  // (task, process) for every task of any process with a single edge to
  // another process: who sends into each group, for the groups' trees.
  std::vector<std::pair<TaskId, uint32_t>> Senders;
  std::vector<uint32_t> To;
  for (size_t I = 0; I != Edges.size();) {
    const TaskId Src = Edges[I].Src;
    const uint32_t From = OwnerOf(Src);
    size_t End = I;
    unsigned Crossing = 0;
    const Edge *Only = nullptr;
    To.clear();
    for (; End != Edges.size() && Edges[End].Src == Src; ++End) {
      const uint32_t DstOwner = OwnerOf(Edges[End].Dst);
      if (DstOwner == From)
        continue;
      ++Crossing;
      Only = &Edges[End];
      To.push_back(DstOwner);
      if (DstOwner == Me)
        Incoming.push_back(Edges[End].Dst);
    }
    if (Crossing == 1) {
      Senders.emplace_back(Only->Dst, From);
      if (From == Me) {
        auto [It, New] = X.GroupOf.try_emplace(Only->Dst, X.Groups.size());
        if (New)
          X.Groups.push_back({Only->Dst, OwnerOf(Only->Dst)});
        ++X.Groups[It->second].Edges;
        X.Into.push_back({Src, It->second, Only->Kind == EdgeKind::Sync});
      }
    } else if (Crossing > 1) {
      llvm::sort(To);
      To.erase(std::unique(To.begin(), To.end()), To.end());
      if (From == Me || llvm::is_contained(To, Me)) {
        TreePlace P = placeIn(From, To, Me);
        if (From == Me)
          for (uint32_t C : P.Children)
            X.Remote.emplace_back(Src, C);
        else if (!P.Children.empty())
          X.Forward[Src] = P.Children;
      }
    }
    I = End;
  }
  // Remote is in source order already, each task's processes in order.
  // Each group's tree: its task's process, and the processes sending into
  // it.
  llvm::sort(Senders);
  Senders.erase(std::unique(Senders.begin(), Senders.end()), Senders.end());
  for (size_t I = 0; I != Senders.size();) {
    const TaskId Into = Senders[I].first;
    size_t End = I;
    To.clear();
    for (; End != Senders.size() && Senders[End].first == Into; ++End)
      To.push_back(Senders[End].second);
    if (auto It = X.GroupOf.find(Into); It != X.GroupOf.end()) {
      TreePlace P = placeIn(OwnerOf(Into), To, Me);
      SweepCrossings::Group &Gr = X.Groups[It->second];
      Gr.Parent = P.Parent;
      Gr.Children = static_cast<uint32_t>(P.Children.size());
    }
    I = End;
  }
  // Edges from elsewhere, counted per task.
  llvm::sort(Incoming);
  for (TaskId D : Incoming)
    if (X.Waiting.empty() || X.Waiting.back().first != D)
      X.Waiting.emplace_back(D, 1);
    else
      ++X.Waiting.back().second;
  return X;
}
