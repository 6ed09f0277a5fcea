//===- GraphBuilder.h - Terse graph construction for unit tests -*- C++ -*-===//
//
// Unit tests build many small graphs; this keeps each one a few lines.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_UNITTESTS_GRAPHBUILDER_H
#define DAYDREAM_UNITTESTS_GRAPHBUILDER_H

#include "daydream/IR/Graph.h"

namespace dd::test {

inline LaneId addLane(Graph &G, llvm::StringRef Name,
                      LaneKind K = LaneKind::CpuThread,
                      LaneOrder Order = LaneOrder::InOrder) {
  Lane L;
  L.Name = G.intern(Name);
  L.Kind = K;
  L.Order = Order;
  return G.addLane(L);
}

inline TaskId addTask(Graph &G, LaneId L, llvm::StringRef Name, int64_t Start,
                      int64_t Dur, TaskKind K = TaskKind::CpuOp,
                      int64_t Gap = 0) {
  Task T;
  T.Name = G.intern(Name);
  T.Lane = L;
  T.StartNs = Start;
  T.DurationNs = Dur;
  T.GapNs = Gap;
  T.Kind = K;
  return G.addTask(T);
}

} // namespace dd::test

#endif // DAYDREAM_UNITTESTS_GRAPHBUILDER_H
