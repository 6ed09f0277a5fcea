//===- Fusion.cpp - What the fusion passes share
//---------------------------===//
//
// See Fusion.h.
//
//===----------------------------------------------------------------------===//

#include "Fusion.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <cmath>

using namespace dd;
using llvm::ArrayRef;
using llvm::Error;
using llvm::StringRef;

static Error fusionError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

namespace dd {
namespace fusion {

/// Where a fused kernel must stop. A kernel that something else waits on
/// (a synchronize, another stream) cannot hand its result over mid-kernel,
/// and one that waits on other work would hold back the members before it.
/// Stopping there also keeps the graph acyclic: the only edge that leaves a
/// chain then leaves its last member, and nothing can lead from after the
/// last member back into the chain.
std::vector<char> findChainBarriers(const Graph &G) {
  std::vector<char> Barriers(G.numTaskSlots(), 0);
  for (const Edge &E : G.edgeSlots()) {
    if (!G.isLive(E))
      continue;
    Barriers[E.Src] |= EndsChain;
    if (E.Kind != EdgeKind::Launch)
      Barriers[E.Dst] |= StartsChain;
  }
  return Barriers;
}

/// Whether \p Next, the lane successor of \p Prev, may join a fused kernel
/// that \p Prev is in: both kernels of one phase, no barrier between them.
bool canChain(const Graph &G, const std::vector<char> &Barriers, TaskId Prev,
              TaskId Next) {
  const Task &P = G.task(Prev), &N = G.task(Next);
  return P.Kind == TaskKind::Kernel && N.Kind == TaskKind::Kernel &&
         P.Phase == N.Phase && !(Barriers[Prev] & EndsChain) &&
         !(Barriers[Next] & StartsChain);
}

/// Maximal runs of tasks for which \p Eligible holds that follow one
/// another on a GPU stream and canChain(), cut every \p MaxLength members
/// (0: no limit), of at least \p MinLength members. Linear in the tasks.
std::vector<std::vector<TaskId>>
findKernelRuns(const Graph &G, const std::vector<char> &Barriers,
               llvm::function_ref<bool(TaskId)> Eligible, size_t MinLength,
               size_t MaxLength) {
  std::vector<std::vector<TaskId>> Runs;
  std::vector<TaskId> Run;
  auto Flush = [&] {
    if (Run.size() >= MinLength && !Run.empty())
      Runs.push_back(Run);
    Run.clear();
  };
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    if (G.lane(L).Kind != LaneKind::GpuStream)
      continue;
    for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T)) {
      if (!Eligible(T)) {
        Flush();
        continue;
      }
      bool Joins = !Run.empty() && canChain(G, Barriers, Run.back(), T) &&
                   (MaxLength == 0 || Run.size() < MaxLength);
      if (!Joins)
        Flush();
      Run.push_back(T);
    }
    Flush();
  }
  return Runs;
}

/// max(longest member, Keep x summed duration), rounded to the nanosecond:
/// the fused kernel still moves at least the bytes of its largest member.
int64_t fusedDuration(const Graph &G, ArrayRef<TaskId> Members, double Keep) {
  int64_t Sum = 0, Longest = 0;
  for (TaskId T : Members) {
    Sum += G.task(T).DurationNs;
    Longest = std::max(Longest, G.task(T).DurationNs);
  }
  return std::max(Longest, int64_t(std::llround(double(Sum) * Keep)));
}

/// "fused(a+b+c)", or "fused(a +2 more)" when the joined names would be
/// long (real kernel names are, and three of them make a name nobody
/// reads). The full list goes into the "fused" note either way.
static std::string fusedName(const Graph &G, ArrayRef<TaskId> Members) {
  constexpr size_t MaxJoined = 120;
  std::string Joined;
  for (TaskId T : Members) {
    if (!Joined.empty())
      Joined += '+';
    Joined += G.str(G.task(T).Name).str();
  }
  if (Joined.size() <= MaxJoined)
    return "fused(" + Joined + ")";
  return "fused(" + G.str(G.task(Members.front()).Name).str() + " +" +
         std::to_string(Members.size() - 1) + " more)";
}

/// Runtime calls whose every launch edge goes into \p MergedAway work: the
/// calls that launched only what fusion removes. A call that also launched
/// surviving work (a graph launch, the first member's launch) stays.
static std::vector<TaskId> launchesOnlyOf(const Graph &G,
                                          const std::vector<char> &MergedAway) {
  enum : char { None, OnlyMergedAway, AlsoSurvivors };
  std::vector<char> State(G.numTaskSlots(), None);
  for (const Edge &E : G.edgeSlots()) {
    if (!G.isLive(E) || E.Kind != EdgeKind::Launch ||
        G.task(E.Src).Kind != TaskKind::Runtime)
      continue;
    char &S = State[E.Src];
    if (!MergedAway[E.Dst])
      S = AlsoSurvivors;
    else if (S == None)
      S = OnlyMergedAway;
  }
  std::vector<TaskId> Launches;
  for (TaskId T = 0; T != State.size(); ++T)
    if (State[T] == OnlyMergedAway)
      Launches.push_back(T);
  return Launches;
}

/// Merges each group (kernels consecutive on one stream, chosen with
/// canChain()) into its first kernel, which is renamed, marked synthetic
/// and noted with the members' names; then removes the launch calls of the
/// others, keeping the ordering constraints through them. With
/// \p DropLaunchGaps the untraced CPU time before each removed call (the
/// framework's dispatch of a fused-away op) goes too; otherwise it moves to
/// the next task on the thread, as removeTasks() does.
void fuseKernelGroups(Graph &G, ArrayRef<MergeGroup> Groups,
                      bool DropLaunchGaps) {
  std::vector<char> MergedAway(G.numTaskSlots(), 0);
  for (const MergeGroup &Gr : Groups)
    for (TaskId T : ArrayRef<TaskId>(Gr.Tasks).drop_front())
      MergedAway[T] = 1;
  std::vector<TaskId> Launches = launchesOnlyOf(G, MergedAway);
  StrId FusedNoteKey = G.intern("fused");

  // Groups repeat the same kernels every layer and step: name each distinct
  // sequence of member names once.
  llvm::StringMap<std::pair<StrId, StrId>> NameAndNote;
  std::vector<StrId> Key;
  for (const MergeGroup &Gr : Groups) {
    TaskId Survivor = Gr.Tasks.front();
    Key.clear();
    for (TaskId T : Gr.Tasks)
      Key.push_back(G.task(T).Name);
    StringRef KeyBytes(reinterpret_cast<const char *>(Key.data()),
                       Key.size() * sizeof(StrId));
    auto [It, New] = NameAndNote.try_emplace(KeyBytes);
    if (New) {
      std::string Members;
      for (TaskId T : Gr.Tasks)
        Members += (Members.empty() ? "" : "\n") + G.str(G.task(T).Name).str();
      It->second = {G.intern(fusedName(G, Gr.Tasks)), G.intern(Members)};
    }
    G.task(Survivor).Name = It->second.first;
    G.task(Survivor).Flags |= TF_Synthetic;
    G.addNoteRaw(TaskNote{Survivor, FusedNoteKey, It->second.second});
  }
  mergeTasks(G, Groups);
  if (DropLaunchGaps)
    for (TaskId L : Launches)
      G.task(L).GapNs = 0;
  removeTasks(G, Launches);
}

/// Parses "a,b,c" kernel class names (and "all" when \p AllowAll, read as
/// the empty list).
Error parseClassList(StringRef S, std::vector<KernelClass> &Out,
                     bool AllowAll) {
  Out.clear();
  if (AllowAll && S == "all")
    return Error::success();
  llvm::SmallVector<StringRef, 8> Parts;
  S.split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef P : Parts) {
    llvm::Optional<KernelClass> C = parseKernelClass(P.trim());
    if (!C)
      return fusionError("unknown kernel class '" + P.trim() + "'");
    Out.push_back(*C);
  }
  if (Out.empty())
    return fusionError("expected at least one kernel class");
  return Error::success();
}

void printClassList(llvm::raw_ostream &OS, ArrayRef<KernelClass> Classes) {
  if (Classes.empty())
    OS << "all";
  for (size_t I = 0; I != Classes.size(); ++I)
    OS << (I ? "," : "") << toString(Classes[I]);
}

} // namespace fusion
} // namespace dd
