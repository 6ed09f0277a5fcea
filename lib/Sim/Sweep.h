//===- Sweep.h - The sweep engines' one loop --------------------*- C++ -*-===//
//
// Private to lib/Sim. Both sweep engines, replaySweep() (LinearReplay.cpp)
// and replayWindowed() (WindowedSweep.cpp), visit the tasks in slot order
// and push each task's end along its outgoing edges; they differ only in
// where the times wait. The full sweep keeps every task's start and end in
// two arrays; the windowed one keeps a lane's last end in a per-lane slot
// and the bounds pushed along edges in a ring. sweepTasks() is that loop,
// once, over a store supplying the places; being a template, each engine's
// loop is compiled for its own store, as fast as a hand-written copy. A
// store is a few pointers, taken by value so that they stay in registers
// (a store the compiler cannot prove unaliased reloads them after every
// write of a time: a tenth slower).
//
// A store provides:
//   int64_t startBound(TaskId T)   the latest end among T's start
//                                  predecessors so far (0 if none), until T
//                                  is visited;
//   int64_t endBound(TaskId T)     the same among its Sync predecessors
//                                  (Unset if none);
//   void push(TaskId Src, const Edge &E, int64_t En)
//                                  raises E.Dst's bound of E's kind to En,
//                                  the end of its source Src;
//   bool laneFree(const Graph &G, TaskId T, LaneId L, int64_t &St)
//                                  raises St to the end of T's lane
//                                  predecessor; false if that is not the
//                                  lane's last task visited (a lane out of
//                                  slot order);
//   void visit(TaskId T, const Task &Tk, int64_t St, int64_t En)
//                                  keeps what later tasks read of T (and
//                                  whatever else the store measures);
//   static constexpr bool EdgesChecked
//                                  whether every edge is known to go to a
//                                  higher id (else the loop checks).
// The loop works on a copy of the store, which it hands back at the end,
// so that a store's own running figures can live in registers too.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_SIM_SWEEP_H
#define DAYDREAM_LIB_SIM_SWEEP_H

#include "Replay.h"

#include "daydream/IR/Graph.h"

#include <algorithm>

namespace dd::sim {

/// The sweep over slot order, with times from 0 (the caller shifts them by
/// \p T0, the earliest recorded start, found on the way). With \p Credit,
/// each task goes to \p Summary; without, only the latest end, to
/// \p MaxEnd. False, midway, if \p G is not laid out as isSweepable()
/// requires.
template <bool Credit, class Store>
bool sweepTasks(const Graph &G, Store &Out, SummaryBuilder *Summary,
                int64_t &EarliestStart, int64_t &LatestEnd) {
  Store S = Out;
  int64_t T0 = EarliestStart, MaxEnd = LatestEnd;
  const size_t N = G.numTaskSlots();
  const Task *Tasks = G.taskSlots().data();
  const Edge *Edges = G.edgeSlots().data();
  const Edge *const EdgesEnd = Edges + G.edgeSlots().size();
  for (TaskId T = 0; T != N; ++T) {
    const Task &Tk = Tasks[T];
    T0 = std::min(T0, Tk.StartNs);
    int64_t St = S.startBound(T);
    if (!S.laneFree(G, T, Tk.Lane, St))
      return false;
    St += Tk.GapNs;
    const int64_t En = std::max(St + Tk.DurationNs, S.endBound(T));
    S.visit(T, Tk, St, En);
    if constexpr (Credit)
      Summary->add(Tk, St, En);
    else
      MaxEnd = std::max(MaxEnd, En);
    for (; Edges != EdgesEnd && Edges->Src == T; ++Edges) {
      if (!Store::EdgesChecked && Edges->Dst <= T) // against slot order
        return false;
      S.push(T, *Edges, En);
    }
  }
  Out = S;
  EarliestStart = T0;
  LatestEnd = MaxEnd;
  // An edge left over was out of source order, and so was never pushed.
  return Edges == EdgesEnd;
}

} // namespace dd::sim

#endif // DAYDREAM_LIB_SIM_SWEEP_H
