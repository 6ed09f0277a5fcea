//===- CanonicalOrder.cpp - The order in which graphs are written ---------===//
//
// Kahn's algorithm with a min-heap, so the order is deterministic and leaves
// an already topological numbering untouched. A linear pre-check skips the
// heap altogether for graphs that are already in order (every graph freshly
// read from a file), which keeps writing and simulating them O(V + E).
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/CanonicalOrder.h"
#include "daydream/IR/Graph.h"
#include "daydream/IR/OutEdges.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <functional>
#include <queue>

using namespace dd;
using llvm::Expected;

namespace {

/// True if slot order is already a topological order of a graph without
/// dead tasks.
bool isAlreadyCanonical(const Graph &G) {
  if (G.numTasks() != G.numTaskSlots())
    return false;
  // Lanes known to follow slot order need no look (nor links built).
  for (TaskId T = 0, E = G.numTaskSlots(); !G.lanesFollowSlotOrder() && T != E;
       ++T) {
    TaskId N = G.nextOnLane(T);
    if (N != NoId && N < T)
      return false;
  }
  for (const Edge &E : G.edgeSlots())
    if (E.Src >= E.Dst)
      return false;
  return true;
}

std::string describeTask(const Graph &G, TaskId T) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << '%' << T;
  // Called before the verifier has checked names, too.
  StrId Name = G.task(T).Name;
  if (Name < G.strings().size())
    OS << " '" << G.str(Name) << "'";
  return OS.str();
}

/// Finds one cycle among the tasks that Kahn's algorithm could not order
/// (every one of them has a predecessor among them).
std::vector<TaskId> cycleAmong(const Graph &G,
                               const std::vector<uint32_t> &InDeg) {
  // Predecessor lists restricted to the unordered tasks.
  std::vector<std::vector<TaskId>> Preds(G.numTaskSlots());
  auto Stuck = [&](TaskId T) { return G.isLive(T) && InDeg[T] > 0; };
  for (const Edge &E : G.edgeSlots())
    if (G.isLive(E) && Stuck(E.Src) && Stuck(E.Dst))
      Preds[E.Dst].push_back(E.Src);
  TaskId Start = NoId;
  for (TaskId T = 0, E = G.numTaskSlots(); T != E; ++T) {
    if (!Stuck(T))
      continue;
    if (Start == NoId)
      Start = T;
    TaskId P = G.prevOnLane(T);
    if (P != NoId && Stuck(P))
      Preds[T].push_back(P);
  }
  // Walk predecessors until a task repeats; the walk from there is a cycle.
  std::vector<uint32_t> Seen(G.numTaskSlots(), NoId);
  std::vector<TaskId> Path;
  TaskId T = Start;
  while (Seen[T] == NoId) {
    Seen[T] = Path.size();
    Path.push_back(T);
    T = Preds[T].front();
  }
  std::vector<TaskId> Cycle(Path.begin() + Seen[T], Path.end());
  std::reverse(Cycle.begin(), Cycle.end()); // walked backwards
  // Start at the smallest id, so the result does not depend on the walk.
  std::rotate(Cycle.begin(), std::min_element(Cycle.begin(), Cycle.end()),
              Cycle.end());
  return Cycle;
}

std::string describeCycle(const Graph &G, const std::vector<TaskId> &Cycle) {
  // A long cycle is named by its first and last few tasks, so that the
  // error stays one readable line (a 200,000-task cycle was 4 MB).
  constexpr size_t Shown = 8;
  std::string S =
      "dependency cycle of " + std::to_string(Cycle.size()) + " tasks: ";
  if (Cycle.size() <= 2 * Shown)
    S = "dependency cycle: ";
  for (size_t I = 0; I != Cycle.size(); ++I) {
    if (Cycle.size() > 2 * Shown && I == Shown) {
      S += "... -> ";
      I = Cycle.size() - Shown;
    }
    S += describeTask(G, Cycle[I]) + " -> ";
  }
  S += describeTask(G, Cycle.front());
  return S;
}

/// Kahn's algorithm; returns the in-degrees left over (non-zero only on and
/// behind cycles).
std::vector<uint32_t> kahn(const Graph &G, CanonicalOrder &C) {
  size_t N = G.numTaskSlots();
  OutEdges Out(G);
  std::vector<uint32_t> InDeg(N, 0);
  for (TaskId T = 0; T != N; ++T) {
    if (!G.isLive(T))
      continue;
    for (uint32_t I = Out.Begin[T]; I != Out.Begin[T + 1]; ++I)
      ++InDeg[Out.Dst[I]];
    if (G.nextOnLane(T) != NoId)
      ++InDeg[G.nextOnLane(T)];
  }
  // The smallest ready task, when known, is kept out of the heap: in a
  // nearly topological numbering it is mostly one just released, which is
  // then taken next without a push and a pop.
  std::priority_queue<TaskId, std::vector<TaskId>, std::greater<TaskId>> Ready;
  TaskId Min = NoId; // below everything in Ready
  auto Push = [&](TaskId S) {
    if (Min == NoId ? !Ready.empty() && S > Ready.top() : S > Min) {
      Ready.push(S);
      return;
    }
    if (Min != NoId)
      Ready.push(Min);
    Min = S;
  };
  for (TaskId T = 0; T != N; ++T)
    if (G.isLive(T) && InDeg[T] == 0)
      Push(T);
  C.Order.reserve(G.numTasks());
  auto Release = [&](TaskId S) {
    if (--InDeg[S] == 0)
      Push(S);
  };
  while (Min != NoId || !Ready.empty()) {
    TaskId T = Min;
    if (T != NoId) {
      Min = NoId;
    } else {
      T = Ready.top();
      Ready.pop();
    }
    C.NewId[T] = C.Order.size();
    C.Order.push_back(T);
    for (uint32_t I = Out.Begin[T]; I != Out.Begin[T + 1]; ++I)
      Release(Out.Dst[I]);
    if (G.nextOnLane(T) != NoId)
      Release(G.nextOnLane(T));
  }
  return InDeg;
}

auto edgeKey(const Edge &E) {
  return std::make_tuple(E.Src, E.Dst, static_cast<unsigned>(E.Kind));
}

bool edgeLess(const Edge &A, const Edge &B) { return edgeKey(A) < edgeKey(B); }

/// Sorts \p Edges, whose sources are below \p NumTasks, by edgeKey: a
/// counting sort by source (a dense id), then each source's few edges by
/// destination and kind. Linear, where sorting all edges by comparison is not.
void sortEdges(std::vector<Edge> &Edges, size_t NumTasks) {
  std::vector<uint32_t> Begin(NumTasks + 1, 0);
  for (const Edge &E : Edges)
    ++Begin[E.Src + 1];
  for (size_t T = 0; T != NumTasks; ++T)
    Begin[T + 1] += Begin[T];
  std::vector<Edge> Sorted(Edges.size());
  std::vector<uint32_t> Fill(Begin.begin(), Begin.end() - 1);
  for (const Edge &E : Edges)
    Sorted[Fill[E.Src]++] = E;
  for (size_t T = 0; T != NumTasks; ++T)
    if (Begin[T + 1] - Begin[T] > 1)
      std::sort(Sorted.begin() + Begin[T], Sorted.begin() + Begin[T + 1],
                edgeLess);
  Edges.swap(Sorted);
}

} // namespace

Expected<CanonicalOrder> dd::computeCanonicalOrder(const Graph &G) {
  CanonicalOrder C;
  size_t N = G.numTaskSlots();
  C.NewId.assign(N, NoId);
  if (isAlreadyCanonical(G)) {
    C.Order.resize(N);
    for (TaskId T = 0; T != N; ++T)
      C.Order[T] = C.NewId[T] = T;
    C.IsIdentity = true;
    return C;
  }
  std::vector<uint32_t> InDeg = kahn(G, C);
  if (C.Order.size() != G.numTasks())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   describeCycle(G, cycleAmong(G, InDeg)));
  C.IsIdentity = C.Order.size() == N &&
                 llvm::all_of(llvm::enumerate(C.Order), [](const auto &P) {
                   return P.value() == P.index();
                 });
  return C;
}

bool dd::isInCanonicalOrder(const Graph &G) { return isAlreadyCanonical(G); }

std::vector<TaskId> dd::findCycle(const Graph &G) {
  if (isAlreadyCanonical(G))
    return {};
  CanonicalOrder C;
  C.NewId.assign(G.numTaskSlots(), NoId);
  std::vector<uint32_t> InDeg = kahn(G, C);
  if (C.Order.size() == G.numTasks())
    return {};
  return cycleAmong(G, InDeg);
}

std::vector<Edge> dd::canonicalEdges(const Graph &G, const CanonicalOrder &C) {
  std::vector<Edge> Out;
  Out.reserve(G.edgeSlots().size());
  for (const Edge &E : G.edgeSlots())
    if (G.isLive(E))
      Out.push_back(Edge{C.NewId[E.Src], C.NewId[E.Dst], E.Kind});
  if (!std::is_sorted(Out.begin(), Out.end(), edgeLess))
    sortEdges(Out, C.Order.size());
  auto Same = [](const Edge &A, const Edge &B) {
    return edgeKey(A) == edgeKey(B);
  };
  Out.erase(std::unique(Out.begin(), Out.end(), Same), Out.end());
  return Out;
}

std::vector<MemoryEvent> dd::canonicalMemoryEvents(const Graph &G,
                                                   const CanonicalOrder &C) {
  std::vector<MemoryEvent> Out(G.memoryEvents().begin(),
                               G.memoryEvents().end());
  for (MemoryEvent &E : Out)
    if (E.Task != NoId)
      E.Task = E.Task < C.NewId.size() ? C.NewId[E.Task] : NoId;
  auto Earlier = [](const MemoryEvent &A, const MemoryEvent &B) {
    return A.TimeNs < B.TimeNs;
  };
  // A graph read from a file is already sorted: no need for stable_sort and
  // its temporary buffer.
  if (!std::is_sorted(Out.begin(), Out.end(), Earlier))
    std::stable_sort(Out.begin(), Out.end(), Earlier);
  return Out;
}
