//===- Fusion.cpp - What the fusion passes share
//---------------------------===//
//
// See Fusion.h.
//
//===----------------------------------------------------------------------===//

#include "Fusion.h"

#include "daydream/IR/TaskFieldBounds.h"
#include "daydream/Pass/PassOptions.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cmath>

using namespace dd;
using llvm::ArrayRef;
using llvm::Error;
using llvm::StringRef;

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

/// Calls \p OnRun on each maximal run of tasks for which \p Eligible holds
/// that follow one another on a GPU stream and canChain(), cut every
/// \p MaxLength members (0: no limit), of at least \p MinLength members,
/// as soon as the run ends, while its tasks are still in cache. Linear in
/// the tasks.
void forEachKernelRun(const Graph &G, const std::vector<char> &Barriers,
                      llvm::function_ref<bool(TaskId)> Eligible,
                      size_t MinLength, size_t MaxLength,
                      llvm::function_ref<void(ArrayRef<TaskId>)> OnRun) {
  llvm::SmallVector<TaskId, 16> Run;
  auto Flush = [&] {
    if (Run.size() >= MinLength && !Run.empty())
      OnRun(Run);
    Run.clear();
  };
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    if (G.lane(L).Kind != LaneKind::GpuStream)
      continue;
    for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T)) {
      // Lanes of a trace mostly run in id order: ask the cache for the
      // tasks ahead, since this walk is the first to touch them.
      if (T + 32 < G.numTaskSlots())
        __builtin_prefetch(&G.task(T + 32));
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
}

/// max(longest member, Keep x summed duration), rounded to the nanosecond:
/// the fused kernel still moves at least the bytes of its largest member.
int64_t fusedDuration(const Graph &G, ArrayRef<TaskId> Members, double Keep) {
  int64_t Sum = 0, Longest = 0;
  for (TaskId T : Members) {
    Sum += G.task(T).DurationNs;
    Longest = std::max(Longest, G.task(T).DurationNs);
  }
  return std::max(Longest, roundNs(double(Sum) * Keep));
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

/// Runtime calls whose every launch edge goes into a merged-away member of
/// \p Groups: the calls that launched only what fusion removes. A call that
/// also launched surviving work (a graph launch, the first member's launch)
/// stays. One pass over the edges; the state of a task is a few bits in one
/// byte, so that the pass touches one small array.
static std::vector<TaskId> launchesOnlyOf(const Graph &G,
                                          const MergeGroupList &Groups) {
  enum : char { MergedAway = 1, OnlyMergedAway = 2, AlsoSurvivors = 4 };
  std::vector<char> State(G.numTaskSlots(), 0);
  for (size_t I = 0; I != Groups.size(); ++I)
    for (TaskId T : Groups.tasks(I).drop_front())
      State[T] |= MergedAway;
  std::vector<TaskId> Candidates;
  for (const Edge &E : G.edgeSlots()) {
    if (E.Kind != EdgeKind::Launch || !G.isLive(E))
      continue;
    char &S = State[E.Src];
    if (!(State[E.Dst] & MergedAway)) {
      S |= AlsoSurvivors;
    } else if (!(S & (OnlyMergedAway | AlsoSurvivors))) {
      S |= OnlyMergedAway;
      Candidates.push_back(E.Src);
    }
  }
  // Only runtime calls count. Their kind is looked up here, for the few
  // candidates, asking for each task a few ahead: in the sweep, a lookup
  // per launch waits on memory every time.
  std::vector<TaskId> Launches;
  Launches.reserve(Candidates.size());
  for (size_t I = 0; I != Candidates.size(); ++I) {
    if (I + 8 < Candidates.size())
      __builtin_prefetch(&G.task(Candidates[I + 8]));
    TaskId T = Candidates[I];
    if (!(State[T] & AlsoSurvivors) && G.task(T).Kind == TaskKind::Runtime)
      Launches.push_back(T);
  }
  return Launches;
}

/// The fused name and the "fused" note of each distinct sequence of member
/// names. Groups repeat the same kernels every layer and step, so each
/// sequence is named once; the few sequences are found through their first
/// name, which costs less than hashing each group's names.
class FusedNamer {
public:
  explicit FusedNamer(Graph &G) : G(G), ByFirstName(G.strings().size(), NoId) {}

  std::pair<StrId, StrId> nameAndNote(ArrayRef<TaskId> Members) {
    StrId First = G.task(Members.front()).Name;
    if (First >= ByFirstName.size())
      ByFirstName.resize(G.strings().size(), NoId);
    uint32_t *Link = &ByFirstName[First];
    for (; *Link != NoId; Link = &Sequences[*Link].Next)
      if (sameNames(Sequences[*Link], Members))
        return {Sequences[*Link].Name, Sequences[*Link].Note};
    *Link = uint32_t(Sequences.size());
    Sequence New{uint32_t(Names.size()), uint32_t(Members.size()), NoId, NoId,
                 NoId};
    for (TaskId T : Members)
      Names.push_back(G.task(T).Name);
    std::string Note;
    for (TaskId T : Members)
      Note += (Note.empty() ? "" : "\n") + G.str(G.task(T).Name).str();
    New.Name = G.intern(fusedName(G, Members));
    New.Note = G.intern(Note);
    Sequences.push_back(New);
    return {New.Name, New.Note};
  }

private:
  struct Sequence {
    uint32_t Begin, Size; ///< in Names
    StrId Name, Note;
    uint32_t Next; ///< the next sequence with the same first name
  };

  bool sameNames(const Sequence &S, ArrayRef<TaskId> Members) const {
    if (S.Size != Members.size())
      return false;
    for (size_t I = 0; I != Members.size(); ++I)
      if (Names[S.Begin + I] != G.task(Members[I]).Name)
        return false;
    return true;
  }

  Graph &G;
  std::vector<uint32_t> ByFirstName; ///< by StrId: first of its sequences
  std::vector<Sequence> Sequences;
  std::vector<StrId> Names;
};

KernelFuser::KernelFuser(Graph &G)
    : G(G), Namer(std::make_unique<FusedNamer>(G)) {}

KernelFuser::~KernelFuser() = default;

void KernelFuser::add(ArrayRef<TaskId> Members, int64_t DurationNs) {
  ++NumRuns;
  NumKernels += Members.size();
  // Interned with the first group: a pass that fuses nothing leaves the
  // string table alone.
  if (FusedNoteKey == NoId)
    FusedNoteKey = G.intern("fused");
  auto [Name, Note] = Namer->nameAndNote(Members);
  TaskId Survivor = Members.front();
  G.task(Survivor).Name = Name;
  G.task(Survivor).Flags |= TF_Synthetic;
  G.addNote(TaskNote{Survivor, FusedNoteKey, Note});
  Groups.add(Members, DurationNs);
}

/// The launch calls of the others go after the merge, as removeTasks()
/// removes them. With \p DropLaunchGaps the untraced CPU time before each
/// removed call (the framework's dispatch of a fused-away op) goes too;
/// otherwise it moves to the next task on the thread.
void KernelFuser::fuse(bool DropLaunchGaps) {
  std::vector<TaskId> Launches = launchesOnlyOf(G, Groups);
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
      return optionError("unknown kernel class '" + P.trim() + "'");
    Out.push_back(*C);
  }
  if (Out.empty())
    return optionError("expected at least one kernel class");
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
