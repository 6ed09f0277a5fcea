//===- ReferenceEventReplay.h - The event engine's first form ---*- C++ -*-===//
//
// The event-driven engine was rewritten for speed (its own event queue, the
// graph's own edge array, the output arrays as running maxima) under the rule
// that no result may change, ties included. This is the engine as first
// written, kept as plain as it was, for a differential test to hold
// simulate() to it time for time (SimulatorRandomTest.cpp). Only graphs that
// do not deadlock: it reports no errors.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_UNITTESTS_SIM_REFERENCEEVENTREPLAY_H
#define DAYDREAM_UNITTESTS_SIM_REFERENCEEVENTREPLAY_H

#include "daydream/IR/Graph.h"
#include "daydream/Sim/SchedulingPolicy.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <tuple>
#include <vector>

namespace dd::test {

inline constexpr int64_t RefUnset = std::numeric_limits<int64_t>::min();

/// A std heap of (time, kind, sequence, id), a per-task priority array and
/// an adjacency that lists each task's successors last edge first, start
/// successors before Sync ones. run() leaves dead slots -1, as simulate()
/// does.
struct ReferenceEventReplay {
  const Graph &G;
  const SchedulingPolicy &Policy;
  int64_t Now;
  const int64_t T0;
  std::vector<int64_t> Start, End, PredEndMax, EndMax, Priority, LaneFree;
  std::vector<uint32_t> StartWait, EndWait;
  std::vector<std::vector<TaskId>> OrderSucc, SyncSucc;
  std::vector<uint8_t> LaneBusy, Pending;
  using ReadyEntry = std::pair<int64_t, TaskId>;
  std::vector<std::priority_queue<ReadyEntry, std::vector<ReadyEntry>,
                                  std::greater<ReadyEntry>>>
      Ready;
  using Ev = std::tuple<int64_t, int, uint64_t, uint32_t>;
  std::priority_queue<Ev, std::vector<Ev>, std::greater<Ev>> Events;
  uint64_t Seq = 0;

  ReferenceEventReplay(const Graph &G, const SchedulingPolicy &P, int64_t T0)
      : G(G), Policy(P), Now(T0), T0(T0) {}

  bool prio(TaskId T) const {
    return G.lane(G.task(T).Lane).Order == LaneOrder::ByPriority;
  }
  void startTask(TaskId T, int64_t At) {
    Start[T] = At;
    Events.push({At + G.task(T).DurationNs, 0, Seq++, T});
  }
  void request(LaneId L) {
    if (LaneBusy[L] || Pending[L] || Ready[L].empty())
      return;
    Pending[L] = 1;
    Events.push({Now, 1, Seq++, L});
  }
  void becomeReady(TaskId T) {
    if (prio(T)) {
      Ready[G.task(T).Lane].push({Priority[T], T});
      request(G.task(T).Lane);
      return;
    }
    TaskId P = G.prevOnLane(T);
    int64_t Free = P == NoId ? T0 : End[P];
    startTask(T, std::max(Free, PredEndMax[T]) + G.task(T).GapNs);
  }
  void finish(TaskId First) {
    std::vector<TaskId> Stack{First};
    while (!Stack.empty()) {
      TaskId T = Stack.back();
      Stack.pop_back();
      int64_t E = End[T] = EndMax[T];
      LaneId L = G.task(T).Lane;
      if (prio(T)) {
        LaneBusy[L] = 0;
        LaneFree[L] = E;
        request(L);
      } else if (TaskId Nx = G.nextOnLane(T);
                 Nx != NoId && --StartWait[Nx] == 0) {
        becomeReady(Nx);
      }
      for (TaskId S : OrderSucc[T]) {
        PredEndMax[S] = std::max(PredEndMax[S], E);
        if (--StartWait[S] == 0)
          becomeReady(S);
      }
      for (TaskId S : SyncSucc[T]) {
        EndMax[S] = std::max(EndMax[S], E);
        if (--EndWait[S] == 0)
          Stack.push_back(S);
      }
    }
  }
  void run() {
    const size_t N = G.numTaskSlots();
    Start.assign(N, RefUnset);
    End.assign(N, RefUnset);
    PredEndMax.assign(N, RefUnset);
    EndMax.assign(N, RefUnset);
    Priority.assign(N, 0);
    StartWait.assign(N, 0);
    EndWait.assign(N, 1);
    OrderSucc.assign(N, {});
    SyncSucc.assign(N, {});
    LaneFree.assign(G.numLanes(), T0);
    LaneBusy.assign(G.numLanes(), 0);
    Pending.assign(G.numLanes(), 0);
    Ready.resize(G.numLanes());
    for (const Edge &E : G.edgeSlots()) {
      if (!G.isLive(E))
        continue;
      bool Sync = E.Kind == EdgeKind::Sync;
      auto &Succ = Sync ? SyncSucc[E.Src] : OrderSucc[E.Src];
      Succ.insert(Succ.begin(), E.Dst); // Last edge first.
      ++(Sync ? EndWait : StartWait)[E.Dst];
    }
    for (TaskId T = 0; T != N; ++T) {
      if (!G.isLive(T))
        continue;
      if (prio(T))
        Priority[T] = Policy.priority(G, T);
      else if (G.prevOnLane(T) != NoId)
        ++StartWait[T];
    }
    for (TaskId T = 0; T != N; ++T)
      if (G.isLive(T) && StartWait[T] == 0)
        becomeReady(T);
    while (!Events.empty()) {
      auto [Time, Kind, S, Id] = Events.top();
      Events.pop();
      Now = Time;
      if (Kind == 1) {
        Pending[Id] = 0;
        if (LaneBusy[Id] || Ready[Id].empty())
          continue;
        TaskId T = Ready[Id].top().second;
        Ready[Id].pop();
        LaneBusy[Id] = 1;
        startTask(T, Now + G.task(T).GapNs);
        continue;
      }
      EndMax[Id] = std::max(EndMax[Id], Time);
      if (--EndWait[Id] == 0)
        finish(Id);
    }
    for (TaskId T = 0; T != N; ++T)
      if (!G.isLive(T))
        Start[T] = End[T] = -1;
  }
};

} // namespace dd::test

#endif // DAYDREAM_UNITTESTS_SIM_REFERENCEEVENTREPLAY_H
