//===- Verifier.cpp - Semantic checks of a trace graph --------------------===//
//
// Checks run in an order that makes later ones safe: ids in range first, then
// lane lists, then acyclicity. All checks are linear in the graph's size,
// except cycle reporting, which only runs when there is a cycle.
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/Verifier.h"
#include "daydream/IR/CanonicalOrder.h"
#include "daydream/IR/Graph.h"
#include "daydream/IR/RankCopies.h"
#include "daydream/IR/TaskFieldBounds.h"

#include "TextLexer.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cassert>
#include <vector>

using namespace dd;
using llvm::Error;
using llvm::formatv;

namespace {

template <typename... Ts> Error fail(const char *Fmt, Ts &&...Vals) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 formatv(Fmt, std::forward<Ts>(Vals)...).str());
}

Error checkLanesAndLayers(const Graph &G) {
  size_t NumStrings = G.strings().size();
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    const Lane &Ln = G.lane(L);
    if (Ln.Name >= NumStrings)
      return fail("lane @{0}: name {1} out of range ({2} strings)", L, Ln.Name,
                  NumStrings);
    if (unsigned(Ln.Kind) >= NumLaneKinds)
      return fail("lane @{0}: unknown lane kind {1}", L, unsigned(Ln.Kind));
    if (unsigned(Ln.Order) >= NumLaneOrders)
      return fail("lane @{0}: unknown lane order {1}", L, unsigned(Ln.Order));
  }
  for (LayerId L = 0; L != G.numLayers(); ++L) {
    const Layer &Ly = G.layer(L);
    if (Ly.Name >= NumStrings)
      return fail("layer #{0}: name {1} out of range ({2} strings)", L, Ly.Name,
                  NumStrings);
    // Parents come first, so the hierarchy cannot loop.
    if (Ly.Parent != NoId && Ly.Parent >= L)
      return fail("layer #{0}: parent #{1} is not an earlier layer", L,
                  Ly.Parent);
  }
  for (const Iteration &It : G.iterations()) {
    if (It.Name >= NumStrings)
      return fail("iteration: name {0} out of range ({1} strings)", It.Name,
                  NumStrings);
    if (It.MeasuredNs < -1)
      return fail("iteration '{0}': negative measured duration {1}",
                  G.str(It.Name), It.MeasuredNs);
    if (It.MeasuredNs > MaxTaskNs || !validStartNs(It.StartNs))
      return fail("iteration '{0}': start {1} or measured duration {2} ns is "
                  "past the limits (+-2^61, 2^60)",
                  G.str(It.Name), It.StartNs, It.MeasuredNs);
    if (It.Rank < -1)
      return fail("iteration '{0}': rank {1} (expected -1 or a rank)",
                  G.str(It.Name), It.Rank);
  }
  return Error::success();
}

/// Every string is UTF-8: the text form, the timeline's JSON and the plot's
/// SVG are UTF-8 documents, and a name that is not would make them
/// ill-formed. The importers repair what a trace gives them
/// (llvm::json::fixUTF8), so only a hand-made or damaged graph fails here.
Error checkStrings(const Graph &G) {
  // What names V in the message; a Twine, so nothing is built for a string
  // that passes.
  auto Check = [](const llvm::Twine &What, llvm::StringRef V) -> Error {
    size_t At = 0;
    if (LLVM_LIKELY(llvm::json::isUTF8(V, &At)))
      return Error::success();
    return fail("{0} {1} is not valid UTF-8 (at byte {2})", What.str(),
                quoteForMessage(V), At);
  };
  const StringTable &Strings = G.strings();
  for (StrId S = 0, N = Strings.size(); S != N; ++S)
    if (Error E = Check("string #" + llvm::Twine(S), Strings.get(S)))
      return E;
  const Metadata &M = G.metadata();
  if (Error E = Check("producer", M.Producer))
    return E;
  if (Error E = Check("source", M.SourceFormat))
    return E;
  for (const Device &D : M.Devices)
    if (Error E = Check("device name", D.Name))
      return E;
  for (const RankInfo &R : M.Ranks)
    if (Error E = Check("host", R.Host))
      return E;
  for (const PipelineRun &P : M.Pipelines)
    for (const std::string *S : {&P.Pipeline, &P.Tool, &P.Input})
      if (Error E = Check("pipeline", *S))
        return E;
  return Error::success();
}

/// What checkTasks() learns on its way about the shape of the graph, so
/// that the linked lists and acyclicity need no walk of their own in the
/// common case.
struct Shape {
  /// Every slot is live, and every lane link goes forward (to a higher id)
  /// and is consistent: the lists then cannot loop, and checkLaneLists()
  /// would pass.
  bool ForwardLanes = true;
};

/// The lane-list half of checkLaneLists(), judged locally at task \p T in
/// slot order (cheap: no pointer chase across the task array), for a graph
/// whose links all go forward. Links going forward cannot form a cycle, so
/// every task sits on a chain from a task without a predecessor, which must
/// be its lane's head, to one without a successor, its lane's tail: the
/// lists are exactly what checkLaneLists() demands.
bool forwardLinksAt(const Graph &G, TaskId T, LaneId L) {
  const size_t N = G.numTaskSlots();
  const TaskId Nx = G.nextOnLane(T), Pv = G.prevOnLane(T);
  if (Nx == NoId
          ? G.laneTail(L) != T
          : Nx <= T || Nx >= N || G.prevOnLane(Nx) != T || G.task(Nx).Lane != L)
    return false;
  return Pv == NoId ? G.laneHead(L) == T : Pv < T && G.nextOnLane(Pv) == T;
}

} // namespace

Error dd::describeBadTask(const Graph &G, TaskId T, const Task &Tk) {
  const size_t NumStrings = G.strings().size();
  if (Tk.Name >= NumStrings)
    return fail("task %{0}: name {1} out of range ({2} strings)", T, Tk.Name,
                NumStrings);
  if (Tk.Lane >= G.numLanes())
    return fail("task %{0} '{1}': lane {2} out of range ({3} lanes)", T,
                G.str(Tk.Name), Tk.Lane, G.numLanes());
  if (Tk.Layer != NoId && Tk.Layer >= G.numLayers())
    return fail("task %{0} '{1}': layer {2} out of range ({3} layers)", T,
                G.str(Tk.Name), Tk.Layer, G.numLayers());
  if (Tk.Attrs != NoId && Tk.Attrs >= G.attrSlots().size())
    return fail("task %{0} '{1}': attributes {2} out of range ({3} entries)", T,
                G.str(Tk.Name), Tk.Attrs, G.attrSlots().size());
  if (unsigned(Tk.Kind) >= NumTaskKinds)
    return fail("task %{0} '{1}': unknown task kind {2}", T, G.str(Tk.Name),
                unsigned(Tk.Kind));
  if (unsigned(Tk.Phase) >= NumPhases)
    return fail("task %{0} '{1}': unknown phase {2}", T, G.str(Tk.Name),
                unsigned(Tk.Phase));
  if (Tk.Flags & ~KnownTaskFlags)
    return fail("task %{0} '{1}': unknown flags {2:x}", T, G.str(Tk.Name),
                unsigned(Tk.Flags & ~KnownTaskFlags));
  if (Tk.DurationNs < 0)
    return fail("task %{0} '{1}': negative duration {2}", T, G.str(Tk.Name),
                Tk.DurationNs);
  if (Tk.GapNs < 0)
    return fail("task %{0} '{1}': negative gap {2}", T, G.str(Tk.Name),
                Tk.GapNs);
  if (Tk.DurationNs > MaxTaskNs || Tk.GapNs > MaxTaskNs)
    return fail("task %{0} '{1}': duration {2} or gap {3} ns is past the "
                "limit of 2^60 ns",
                T, G.str(Tk.Name), Tk.DurationNs, Tk.GapNs);
  if (!validStartNs(Tk.StartNs))
    return fail("task %{0} '{1}': start {2} ns is past the limit of +-2^61 ns",
                T, G.str(Tk.Name), Tk.StartNs);
  return fail("task %{0} '{1}': the durations and gaps of the tasks up to "
              "this one add up to more than the limit of 2^61 ns",
              T, G.str(Tk.Name));
}

namespace {

TaskFieldBounds boundsOf(const Graph &G) {
  return {G.strings().size(), G.numLanes(), G.numLayers(),
          G.attrSlots().size()};
}

/// With \p AsRead, the graph is as the binary reader builds it: each task
/// checked against the graph's bounds and linked at its lane's end, in slot
/// order, neither of which is done again.
Error checkTasks(const Graph &G, Shape &Sh, bool AsRead) {
  Sh.ForwardLanes = G.numTasks() == G.numTaskSlots();
  const bool AllLive = Sh.ForwardLanes;
  const TaskFieldBounds Bounds = boundsOf(G);
  const Task *Tasks = G.taskSlots().data();
  // Lanes whose lists are their tasks in slot order (lanesFollowSlotOrder())
  // have no links to check, and asking for one would build them all: only
  // each lane's ends can disagree with its tasks, so those are checked.
  const bool Derived = AllLive && G.lanesFollowSlotOrder() && !AsRead;
  std::vector<TaskId> First, Last;
  if (Derived) {
    First.assign(G.numLanes(), NoId);
    Last.assign(G.numLanes(), NoId);
  }
  TimeTotal Total;
  for (TaskId T = 0, E = AsRead ? 0 : G.numTaskSlots(); T != E; ++T) {
    if (!AllLive && !G.isLive(T))
      continue;
    const bool InTotal = Total.add(Tasks[T]);
    if (LLVM_UNLIKELY(!(Bounds.valid(Tasks[T]) && InTotal)))
      return describeBadTask(G, T, Tasks[T]);
    const LaneId L = Tasks[T].Lane;
    if (Derived) {
      if (First[L] == NoId)
        First[L] = T;
      Last[L] = T;
    } else if (Sh.ForwardLanes) {
      Sh.ForwardLanes = forwardLinksAt(G, T, L);
    }
  }
  // Ends that disagree leave the lists to checkLaneLists(), which names
  // where.
  for (LaneId L = 0; Derived && L != G.numLanes(); ++L)
    if (G.laneHead(L) != First[L] || G.laneTail(L) != Last[L])
      Sh.ForwardLanes = false;
  const size_t NumStrings = G.strings().size();
  for (const TaskNote &N : G.notes()) {
    if (N.Task >= G.numTaskSlots())
      return fail("note on task %{0}: task out of range ({1} tasks)", N.Task,
                  G.numTaskSlots());
    if (N.Key >= NumStrings || N.Value >= NumStrings)
      return fail("note on task %{0}: string out of range ({1} strings)",
                  N.Task, NumStrings);
  }
  return Error::success();
}

/// Also says whether every edge goes forward (to a higher id).
Error checkEdges(const Graph &G, bool &Forward) {
  size_t N = G.numTaskSlots();
  Forward = true;
  for (const Edge &E : G.edgeSlots()) {
    Forward &= E.Src < E.Dst;
    if (E.Src >= N || E.Dst >= N)
      return fail("edge %{0} -> %{1}: dangling (graph has {2} tasks)", E.Src,
                  E.Dst, N);
    if (unsigned(E.Kind) >= NumEdgeKinds)
      return fail("edge %{0} -> %{1}: unknown edge kind {2}", E.Src, E.Dst,
                  unsigned(E.Kind));
    if (E.Src == E.Dst && G.isLive(E))
      return fail("edge %{0} -> %{0}: a task cannot depend on itself", E.Src);
  }
  return Error::success();
}

/// Ranks and devices: each declared once, a rank within its world, and a
/// lane's or memory event's rank and device declared wherever the graph
/// declares any (a single-rank, hand-written graph may declare none).
Error checkMetadata(const Graph &G) {
  const Metadata &M = G.metadata();
  // Keyed wider than the ids: DenseMapInfo<int32_t> reserves INT32_MAX and
  // INT32_MIN + 1 as its empty and tombstone keys.
  llvm::SmallDenseSet<int64_t, 8> Ranks, Devices;
  for (const RankInfo &R : M.Ranks) {
    if (R.Rank < 0)
      return fail("rank {0}: negative rank", R.Rank);
    if (!Ranks.insert(R.Rank).second)
      return fail("rank {0}: declared twice", R.Rank);
    if (R.WorldSize < 0 || (R.WorldSize > 0 && R.Rank >= R.WorldSize))
      return fail("rank {0}: not a rank of a world of {1}", R.Rank,
                  R.WorldSize);
  }
  for (const Device &D : M.Devices) {
    if (D.Index < 0)
      return fail("device {0}: negative index", D.Index);
    if (!Devices.insert(D.Index).second)
      return fail("device {0}: declared twice", D.Index);
  }
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    const Lane &Ln = G.lane(L);
    if (Ln.Rank < -1)
      return fail("lane @{0}: rank {1} (expected -1 or a rank)", L, Ln.Rank);
    if (Ln.Rank >= 0 && !Ranks.empty() && !Ranks.count(Ln.Rank))
      return fail("lane @{0}: rank {1} is not declared", L, Ln.Rank);
    if (Ln.Device < -1)
      return fail("lane @{0}: device {1} (expected -1 or a device)", L,
                  Ln.Device);
    if (Ln.Device >= 0 && !Devices.empty() && !Devices.count(Ln.Device))
      return fail("lane @{0}: device {1} is not declared", L, Ln.Device);
  }
  for (const auto &It : llvm::enumerate(G.memoryEvents()))
    if (It.value().Device >= 0 && !Devices.empty() &&
        !Devices.count(It.value().Device))
      return fail("memory event {0} at {1}: device {2} is not declared",
                  It.index(), It.value().TimeNs, It.value().Device);
  return Error::success();
}

Error checkMemoryEvents(const Graph &G) {
  // Reported by position in the graph's list, which for a graph read from a
  // file is the position in the file.
  for (const auto &It : llvm::enumerate(G.memoryEvents())) {
    const MemoryEvent &E = It.value();
    if (E.Lane != NoId && E.Lane >= G.numLanes())
      return fail("memory event {0} at {1}: lane {2} out of range ({3} lanes)",
                  It.index(), E.TimeNs, E.Lane, G.numLanes());
    if (E.Device < -1)
      return fail("memory event {0} at {1}: device {2} is neither a device "
                  "nor -1 (host)",
                  It.index(), E.TimeNs, E.Device);
    if (E.Bytes == 0)
      return fail("memory event {0} at {1}: zero bytes (neither an "
                  "allocation nor a free)",
                  It.index(), E.TimeNs);
    if (!validStartNs(E.TimeNs))
      return fail("memory event {0}: time {1} ns is past the limit of "
                  "+-2^61 ns",
                  It.index(), E.TimeNs);
    if (E.Task != NoId && E.Task >= G.numTaskSlots())
      return fail("memory event {0} at {1}: task %{2} out of range ({3} "
                  "tasks)",
                  It.index(), E.TimeNs, E.Task, G.numTaskSlots());
    if (E.Category != CategoryByRule && E.Category >= NumMemoryCategories)
      return fail("memory event {0} at {1}: unknown memory category {2}",
                  It.index(), E.TimeNs, unsigned(E.Category));
    if (E.Flags & ~KnownMemoryEventFlags)
      return fail("memory event {0} at {1}: unknown flags {2}", It.index(),
                  E.TimeNs, unsigned(E.Flags));
    if ((E.Flags & MEF_Modelled) && (E.Flags & MEF_Replaced))
      return fail("memory event {0} at {1}: both modelled and replaced",
                  It.index(), E.TimeNs);
    if (E.TotalAllocated < -1 || E.TotalReserved < -1)
      return fail("memory event {0} at {1}: negative running total "
                  "(allocated {2}, reserved {3})",
                  It.index(), E.TimeNs, E.TotalAllocated, E.TotalReserved);
  }
  return Error::success();
}

/// Attribute entries whose dtype no reader knows would print as
/// "<invalid>" and pick no peak.
Error checkAttrs(const Graph &G) {
  for (const auto &It : llvm::enumerate(G.attrSlots()))
    if (It.value().DType >= NumDTypes)
      return fail("attributes {0}: unknown dtype {1}", It.index(),
                  unsigned(It.value().DType));
  return Error::success();
}

/// Every live task is on exactly the list of its lane, and the lists are
/// well linked.
Error checkLaneLists(const Graph &G) {
  size_t Seen = 0;
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    TaskId Prev = NoId;
    for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T)) {
      if (T >= G.numTaskSlots() || !G.isLive(T) || G.task(T).Lane != L ||
          G.prevOnLane(T) != Prev || ++Seen > G.numTasks())
        return fail("lane @{0}: task list is inconsistent at %{1}", L, T);
      Prev = T;
    }
    if (G.laneTail(L) != Prev)
      return fail("lane @{0}: task list tail is inconsistent", L);
  }
  if (Seen != G.numTasks())
    return fail("{0} tasks are on no lane list", G.numTasks() - Seen);
  return Error::success();
}

} // namespace

/// verifyGraph(); see verifyAsRead() for \p AsRead.
static Error verify(const Graph &G, bool AsRead) {
  Shape Sh;
  bool ForwardEdges = false;
  if (Error E = checkStrings(G))
    return E;
  if (Error E = checkLanesAndLayers(G))
    return E;
  if (Error E = checkTasks(G, Sh, AsRead))
    return E;
  if (Error E = checkEdges(G, ForwardEdges))
    return E;
  if (Error E = checkMetadata(G))
    return E;
  if (Error E = checkMemoryEvents(G))
    return E;
  if (Error E = checkAttrs(G))
    return E;
  if (Error E = checkRankCopies(G))
    return E;
  // A lane's ends must be its own tasks; for a lane with no task, the
  // per-task checks saw nothing of them.
  auto OwnEnd = [&](TaskId T, LaneId L) {
    return T < G.numTaskSlots() && G.task(T).Lane == L;
  };
  for (LaneId L = 0; Sh.ForwardLanes && L != G.numLanes(); ++L)
    Sh.ForwardLanes = G.laneHead(L) == NoId ? G.laneTail(L) == NoId
                                            : OwnEnd(G.laneHead(L), L) &&
                                                  OwnEnd(G.laneTail(L), L);
  if (!Sh.ForwardLanes)
    if (Error E = checkLaneLists(G))
      return E;
  // Every link forward in slot order (every graph read from a file): slot
  // order is topological, so there is no cycle to look for.
  if (Sh.ForwardLanes && ForwardEdges)
    return Error::success();
  // findCycle() proves a graph in canonical order acyclic with one linear
  // sweep and no allocation, where computeCanonicalOrder() would build two
  // arrays of a task id each only to throw them away. Only a cyclic graph
  // pays for the order, whose error names the cycle.
  if (findCycle(G).empty())
    return Error::success();
  return computeCanonicalOrder(G).takeError();
}

Error dd::verifyGraph(const Graph &G) { return verify(G, false); }

Error dd::verifyAsRead(const Graph &G) { return verify(G, true); }
