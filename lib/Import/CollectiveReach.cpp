//===- CollectiveReach.cpp - What a rank's collectives wait for -----------===//

#include "CollectiveReach.h"

#include "daydream/IR/CanonicalOrder.h"
#include "daydream/IR/OutEdges.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>

using namespace dd;
using namespace dd::import;

std::vector<Edge> dd::import::crossStreamReach(const Graph &G,
                                               llvm::ArrayRef<TaskId> Kernels) {
  // The streams with collectives, and each kernel's place on its stream
  // (from 1), in lane order.
  llvm::DenseMap<LaneId, uint32_t> StreamOf;
  for (TaskId K : Kernels)
    StreamOf.try_emplace(G.task(K).Lane, StreamOf.size());
  const size_t S = StreamOf.size();
  if (S < 2)
    return {};
  const size_t N = G.numTaskSlots();
  std::vector<uint8_t> IsKernel(N, 0);
  for (TaskId K : Kernels)
    IsKernel[K] = 1;
  std::vector<uint32_t> Place(N, 0);
  std::vector<std::vector<TaskId>> OnStream(S);
  for (const auto &[Lane, Stream] : StreamOf)
    for (TaskId T = G.laneHead(Lane); T != NoId; T = G.nextOnLane(T))
      if (IsKernel[T]) {
        OnStream[Stream].push_back(T);
        Place[T] = static_cast<uint32_t>(OnStream[Stream].size());
      }
  auto Order = computeCanonicalOrder(G);
  if (!Order) {
    llvm::consumeError(Order.takeError());
    return {};
  }
  const OutEdges Succ(G);
  // Reach[T * S + s]: the place of the last collective on stream s whose
  // end reaches T (0: none). Told[s * S + o]: the last collective on
  // stream o already given an edge into a collective on stream s.
  std::vector<uint32_t> Reach(N * S, 0), Told(S * S, 0);
  std::vector<Edge> Out;
  for (TaskId T : Order->Order) {
    uint32_t *R = &Reach[size_t(T) * S];
    if (IsKernel[T]) {
      const uint32_t Mine = StreamOf.lookup(G.task(T).Lane);
      for (uint32_t O = 0; O != S; ++O)
        if (O != Mine && R[O] > Told[Mine * S + O]) {
          Out.push_back(Edge{OnStream[O][R[O] - 1], T, EdgeKind::CrossStream});
          Told[Mine * S + O] = R[O];
        }
      R[Mine] = std::max(R[Mine], Place[T]);
    }
    auto Pass = [&](TaskId To) {
      uint32_t *Into = &Reach[size_t(To) * S];
      for (size_t O = 0; O != S; ++O)
        Into[O] = std::max(Into[O], R[O]);
    };
    for (uint32_t I = Succ.Begin[T]; I != Succ.Begin[T + 1]; ++I)
      Pass(Succ.Dst[I]);
    if (TaskId Next = G.nextOnLane(T); Next != NoId)
      Pass(Next);
  }
  return Out;
}
