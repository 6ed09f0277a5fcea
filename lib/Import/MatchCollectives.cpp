//===- MatchCollectives.cpp - One barrier per collective across ranks -----===//
//
// See MatchCollectives.h for the model. The work is linear: one pass over
// the edges finds each collective kernel's launch and start edges, each
// rank's kernels are sorted by issue, and each position adds 2 tasks per
// rank plus one barrier.
//
//===----------------------------------------------------------------------===//

#include "MatchCollectives.h"

#include "daydream/Comm/CollectiveNames.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace dd;
using namespace dd::import;
using llvm::StringRef;

CollectiveName dd::import::classifyCollective(const Graph &G, TaskId T) {
  comm::KernelCollective K =
      comm::classifyCollectiveName(G.str(G.task(T).Name));
  // A send/recv kernel is whatever the op around it (an enclosing layer
  // such as "nccl:all_to_all") says, by the network model's rule.
  if (comm::kindNeedsOp(K.Kind)) {
    LayerId L = G.task(T).Layer;
    for (unsigned Depth = 0; L != NoId && Depth != comm::MaxCollectiveOpDepth;
         ++Depth, L = G.layer(L).Parent) {
      comm::CollectiveKind Around =
          comm::collectiveKindOfOp(G.str(G.layer(L).Name));
      if (Around != comm::CollectiveKind::Other) {
        K.Kind = Around;
        break;
      }
    }
  }
  CollectiveName N;
  N.Kind = comm::toString(K.Kind);
  if (K.Alg != comm::Algorithm::Default)
    N.Algorithm = comm::toString(K.Alg);
  return N;
}

llvm::Expected<std::vector<int32_t>>
dd::import::parseGroupRanks(StringRef Text) {
  auto Fail = [&](const llvm::Twine &Why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "malformed process group ranks '" + Text +
                                       "': " + Why);
  };
  StringRef S = Text.trim();
  if (!S.consume_front("[") || !S.consume_back("]"))
    return Fail("expected a list such as [0, 1, 2]");
  std::vector<int32_t> Ranks;
  if (S.trim().empty())
    return Fail("no ranks");
  while (!S.empty()) {
    auto [Item, Rest] = S.split(',');
    int32_t R = 0;
    if (Item.trim().getAsInteger(10, R) || R < 0)
      return Fail("'" + Item.trim() + "' is not a rank");
    Ranks.push_back(R);
    if (Rest.empty() && S.size() != Item.size())
      return Fail("a rank is missing after the last ','");
    S = Rest;
  }
  std::sort(Ranks.begin(), Ranks.end());
  auto Dup = std::adjacent_find(Ranks.begin(), Ranks.end());
  if (Dup != Ranks.end())
    return Fail("rank " + llvm::Twine(*Dup) + " is listed twice");
  return std::move(Ranks);
}

namespace {

/// One rank's collective kernels, in order of issue.
struct RankCollectives {
  int32_t Rank = 0;
  std::vector<TaskId> Kernels;
  /// -1, or the rank this one is stored as a copy of (IR/RankCopies.h):
  /// its kernels are that rank's, and it reaches each collective with it.
  int32_t CopyOf = -1;
};

/// A process group and, per member, its collective kernels in order of
/// issue.
struct Group {
  std::string Name;             ///< empty for the world (no group recorded)
  std::vector<int32_t> Members; ///< sorted
  int32_t NamedBy = 0;          ///< the first rank whose trace listed them
  std::vector<std::vector<TaskId>> Kernels;       ///< per member
  std::vector<std::vector<CollectiveName>> Names; ///< per member
  /// Per member: -1, or the member whose kernels it shares, for a rank
  /// stored as a copy (whose own lists stay empty).
  std::vector<int32_t> SameAs;
  LaneId Lane = NoId;

  bool isWorld() const { return Name.empty(); }
  bool isCopy(size_t Member) const { return SameAs[Member] >= 0; }
  const std::vector<TaskId> &kernels(size_t Member) const {
    return Kernels[isCopy(Member) ? SameAs[Member] : Member];
  }
  const std::vector<CollectiveName> &names(size_t Member) const {
    return Names[isCopy(Member) ? SameAs[Member] : Member];
  }
  size_t memberIndex(int32_t Rank) const {
    auto M = std::lower_bound(Members.begin(), Members.end(), Rank);
    return M != Members.end() && *M == Rank ? size_t(M - Members.begin())
                                            : Members.size();
  }
  std::string membersText(llvm::StringRef Sep) const {
    std::vector<std::string> S;
    for (int32_t R : Members)
      S.push_back(std::to_string(R));
    return llvm::join(S, Sep);
  }
  /// "process group 3 [0,2]", for messages.
  std::string label() const {
    return "process group " + Name + " [" + membersText(",") + "]";
  }
};

class Matcher {
public:
  Matcher(Graph &G, const std::map<int32_t, std::string> &Names,
          CollectiveStats &Stats, std::vector<std::string> &Warnings)
      : G(G), Names(Names), Stats(Stats), Warnings(Warnings) {}

  llvm::Error run();

private:
  std::string rankName(int32_t Rank) const {
    auto It = Names.find(Rank);
    std::string S = "rank " + std::to_string(Rank);
    if (It != Names.end() && !It->second.empty())
      S += " (" + It->second + ")";
    return S;
  }
  static StringRef kindOf(const Group &Gr, size_t Member, size_t Pos) {
    return Gr.names(Member)[Pos].Kind;
  }
  /// classifyCollective() of kernel \p K, once per name and layer: a job's
  /// thousands of collective kernels have a few names.
  const CollectiveName &classified(TaskId K);
  void collect();
  llvm::Error assignGroups();
  llvm::Error checkCounts(const Group &Gr) const;
  llvm::Error checkKinds(const Group &Gr, size_t Pos) const;
  void checkGroupSize(const Group &Gr, size_t Pos, llvm::StringRef Kind);
  void join(const Group &Gr, size_t Pos);

  Graph &G;
  const std::map<int32_t, std::string> &Names;
  CollectiveStats &Stats;
  std::vector<std::string> &Warnings;
  std::vector<RankCollectives> Ranks;
  std::vector<Group> Groups;
  /// Each collective kernel's incoming start edges, copied to its marker.
  llvm::DenseMap<TaskId, std::vector<Edge>> StartEdges;
  /// The "Group size" each kernel's trace recorded (note `group-size`).
  llvm::DenseMap<TaskId, int64_t> RecordedSize;
  /// The first collective whose recorded group size disagrees, described.
  std::string FirstSizeMismatch;
  llvm::DenseMap<std::pair<StrId, LayerId>, CollectiveName> Classified;
};

const CollectiveName &Matcher::classified(TaskId K) {
  const Task &T = G.task(K);
  auto [It, New] = Classified.try_emplace({T.Name, T.Layer});
  if (New)
    It->second = classifyCollective(G, K);
  return It->second;
}

void Matcher::collect() {
  std::map<int32_t, size_t> Index;
  for (const RankInfo &R : G.metadata().Ranks)
    if (!Index.count(R.Rank)) {
      Index[R.Rank] = Ranks.size();
      Ranks.push_back(RankCollectives{R.Rank, {}, R.CopyOf});
    }
  std::vector<uint8_t> IsMember(G.numTaskSlots());
  for (TaskId T = 0; T != G.numTaskSlots(); ++T) {
    if (!G.isLive(T) || G.task(T).Kind != TaskKind::Collective)
      continue;
    const Lane &L = G.lane(G.task(T).Lane);
    auto It = Index.find(L.Rank);
    if (L.Kind != LaneKind::GpuStream || It == Index.end())
      continue;
    Ranks[It->second].Kernels.push_back(T);
    IsMember[T] = 1;
  }
  // Issue order: when the launching call started (the kernel's own start
  // where no launch was recorded).
  std::vector<int64_t> Issued(G.numTaskSlots(), INT64_MAX);
  for (const Edge &E : G.edgeSlots()) {
    if (!G.isLive(E) || !IsMember[E.Dst] || E.Kind == EdgeKind::Sync)
      continue;
    StartEdges[E.Dst].push_back(E);
    if (E.Kind == EdgeKind::Launch)
      Issued[E.Dst] = std::min(Issued[E.Dst], G.task(E.Src).StartNs);
  }
  for (RankCollectives &R : Ranks) {
    auto Key = [&](TaskId T) {
      int64_t At = Issued[T] != INT64_MAX ? Issued[T] : G.task(T).StartNs;
      return std::make_tuple(At, G.task(T).StartNs, T);
    };
    std::sort(R.Kernels.begin(), R.Kernels.end(),
              [&](TaskId A, TaskId B) { return Key(A) < Key(B); });
  }
}

/// Puts every rank's kernels into their groups, checking what the traces
/// say of each group against the job and each other.
llvm::Error Matcher::assignGroups() {
  // The group notes the lowering left on the kernels.
  llvm::DenseMap<TaskId, std::pair<StrId, StrId>> NoteOf;
  for (const TaskNote &N : G.notes()) {
    if (N.Task >= G.numTaskSlots() ||
        G.task(N.Task).Kind != TaskKind::Collective)
      continue;
    StringRef Key = G.str(N.Key);
    if (Key == "group")
      NoteOf.try_emplace(N.Task, NoId, NoId).first->second.first = N.Value;
    else if (Key == "group-ranks")
      NoteOf.try_emplace(N.Task, NoId, NoId).first->second.second = N.Value;
    else if (Key == "group-size") {
      int64_t Size = 0;
      if (!G.str(N.Value).getAsInteger(10, Size) && Size > 0)
        RecordedSize[N.Task] = Size;
    }
  }
  std::vector<int32_t> Job;
  for (const RankCollectives &R : Ranks)
    Job.push_back(R.Rank);
  std::sort(Job.begin(), Job.end());
  std::map<std::string, size_t> ByKey;
  auto Fail = [](const llvm::Twine &Msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
  };
  for (const RankCollectives &R : Ranks) {
    for (size_t Pos = 0; Pos != R.Kernels.size(); ++Pos) {
      TaskId K = R.Kernels[Pos];
      std::string Name, RanksText;
      auto NIt = NoteOf.find(K);
      if (NIt != NoteOf.end()) {
        if (NIt->second.first != NoId)
          Name = G.str(NIt->second.first).str();
        if (NIt->second.second != NoId)
          RanksText = G.str(NIt->second.second).str();
      }
      // A group without a name is known by its members.
      std::string Key = !Name.empty()        ? "n:" + Name
                        : !RanksText.empty() ? "r:" + RanksText
                                             : std::string();
      std::vector<int32_t> Members = Job;
      if (!RanksText.empty()) {
        auto Parsed = parseGroupRanks(RanksText);
        if (!Parsed)
          return Fail(llvm::formatv(
              "{0}: collective kernel '{1}' of process group {2}: {3}",
              rankName(R.Rank), G.str(G.task(K).Name), Name,
              llvm::toString(Parsed.takeError())));
        Members = std::move(*Parsed);
      } else if (!Name.empty()) {
        // A name without members: those another kernel listed for it, or
        // else the world's.
        auto Known = ByKey.find(Key);
        if (Known != ByKey.end())
          Members = Groups[Known->second].Members;
      }
      auto [It, New] = ByKey.try_emplace(Key, Groups.size());
      if (New) {
        Group Gr;
        Gr.Name = Name.empty() && !RanksText.empty() ? std::string("?") : Name;
        Gr.Members = std::move(Members);
        Gr.NamedBy = R.Rank;
        Gr.Kernels.resize(Gr.Members.size());
        Gr.Names.resize(Gr.Members.size());
        Gr.SameAs.assign(Gr.Members.size(), -1);
        std::vector<std::string> Outside;
        for (int32_t M : Gr.Members)
          if (!std::binary_search(Job.begin(), Job.end(), M))
            Outside.push_back(std::to_string(M));
        if (!Outside.empty())
          return Fail(llvm::formatv(
              "{0} (named by {1}): rank(s) {2} of the group are not in the "
              "job; give every member's trace (the others wait for them at "
              "each of its collectives)",
              Gr.label(), rankName(R.Rank), llvm::join(Outside, ", ")));
        Groups.push_back(std::move(Gr));
      } else if (!RanksText.empty() && Groups[It->second].Members != Members) {
        Group Other;
        Other.Name = Groups[It->second].Name;
        Other.Members = Members;
        return Fail(llvm::formatv(
            "process group {0} is not the same on every rank: {1} lists "
            "ranks [{2}], {3} lists [{4}]",
            Other.Name, rankName(Groups[It->second].NamedBy),
            Groups[It->second].membersText(", "), rankName(R.Rank),
            Other.membersText(", ")));
      }
      Group &Gr = Groups[It->second];
      auto M = std::lower_bound(Gr.Members.begin(), Gr.Members.end(), R.Rank);
      if (M == Gr.Members.end() || *M != R.Rank)
        return Fail(llvm::formatv(
            "{0} is not a member of {1} but issued a collective on it: its "
            "collective kernel #{2}, {3} '{4}'",
            rankName(R.Rank), Gr.label(), Pos, classifyCollective(G, K).Kind,
            G.str(G.task(K).Name)));
      size_t Member = M - Gr.Members.begin();
      Gr.Kernels[Member].push_back(K);
      Gr.Names[Member].push_back(classified(K));
    }
  }
  // A rank stored as a copy issued what its representative did, on the same
  // groups, so it shares the representative's lists there.
  for (const RankCollectives &R : Ranks) {
    if (R.CopyOf == -1)
      continue;
    for (Group &Gr : Groups) {
      size_t Rep = Gr.memberIndex(R.CopyOf);
      if (Rep == Gr.Members.size() || Gr.Kernels[Rep].empty())
        continue;
      size_t Member = Gr.memberIndex(R.Rank);
      if (Member == Gr.Members.size())
        return Fail(llvm::formatv(
            "{0} is not a member of {1}, but as a copy of rank {2} it issued "
            "rank {2}'s collectives on it",
            rankName(R.Rank), Gr.label(), R.CopyOf));
      Gr.SameAs[Member] = int32_t(Rep);
    }
  }
  return llvm::Error::success();
}

llvm::Error Matcher::checkCounts(const Group &Gr) const {
  size_t Most = 0, Fewest = 0;
  for (size_t I = 0; I != Gr.Members.size(); ++I) {
    if (Gr.kernels(I).size() > Gr.kernels(Most).size())
      Most = I;
    if (Gr.kernels(I).size() < Gr.kernels(Fewest).size())
      Fewest = I;
  }
  size_t Pos = Gr.kernels(Fewest).size();
  if (Gr.kernels(Most).size() == Pos)
    return llvm::Error::success();
  std::string Where =
      Gr.isWorld() ? "across ranks" : "across the ranks of " + Gr.label();
  std::string On = Gr.isWorld() ? "" : " on it";
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("collectives do not match {7}: {0} issued {1} "
                    "collective kernels{8}, {2} issued {3}; the first without "
                    "a match is #{4}, {5} '{6}' on {2}",
                    rankName(Gr.Members[Fewest]), Pos,
                    rankName(Gr.Members[Most]), Gr.kernels(Most).size(), Pos,
                    kindOf(Gr, Most, Pos),
                    G.str(G.task(Gr.kernels(Most)[Pos]).Name), Where, On)
          .str());
}

llvm::Error Matcher::checkKinds(const Group &Gr, size_t Pos) const {
  StringRef First = kindOf(Gr, 0, Pos);
  for (size_t I = 0; I != Gr.Members.size(); ++I) {
    if (Gr.isCopy(I)) // as its representative
      continue;
    StringRef Kind = kindOf(Gr, I, Pos);
    if (Kind == First)
      continue;
    std::vector<std::string> Same;
    for (size_t S = 0; S != Gr.Members.size(); ++S)
      if (kindOf(Gr, S, Pos) == First)
        Same.push_back(std::to_string(Gr.Members[S]));
    std::string Which =
        Gr.isWorld()
            ? llvm::formatv("collective #{0}", Pos).str()
            : llvm::formatv("collective #{0} of {1}", Pos, Gr.label()).str();
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("{0} does not match across ranks: {1} on "
                      "rank(s) {2}, but {3} ('{4}') on {5}",
                      Which, First, llvm::join(Same, ", "), Kind,
                      G.str(G.task(Gr.kernels(I)[Pos]).Name),
                      rankName(Gr.Members[I]))
            .str());
  }
  return llvm::Error::success();
}

/// A member's trace that says its collective had another number of ranks
/// than it was matched across: most likely a rank's trace missing from a
/// group the job's metadata does not describe, or members listed wrongly.
/// Counted, and the first described; the matched ranks are what the
/// barrier models.
void Matcher::checkGroupSize(const Group &Gr, size_t Pos, StringRef Kind) {
  if (RecordedSize.empty())
    return;
  const int64_t Matched = int64_t(Gr.Members.size());
  std::map<int64_t, std::vector<std::string>> Saying; // size -> ranks
  for (size_t I = 0; I != Gr.Members.size(); ++I) {
    auto It = RecordedSize.find(Gr.kernels(I)[Pos]);
    if (It != RecordedSize.end() && It->second != Matched)
      Saying[It->second].push_back(rankName(Gr.Members[I]));
  }
  if (Saying.empty())
    return;
  if (Stats.GroupSizeMismatches++ != 0)
    return;
  std::vector<std::string> Parts;
  Parts.reserve(Saying.size());
  for (const auto &[Size, Ranks] : Saying)
    Parts.push_back(
        llvm::formatv("'Group size' {0} on {1}", Size, llvm::join(Ranks, ", "))
            .str());
  FirstSizeMismatch =
      llvm::formatv("collective #{0} ({1}){2}: {3}, but it was matched "
                    "across {4} ranks ({5})",
                    Pos, Kind,
                    Gr.isWorld() ? std::string() : " of " + Gr.label(),
                    llvm::join(Parts, "; "), Matched, Gr.membersText(", "))
          .str();
}

void Matcher::join(const Group &Gr, size_t Pos) {
  // Copies, not references: adding tasks may move the task array.
  const Task First = G.task(Gr.kernels(0)[Pos]);
  const CollectiveName &CN = Gr.names(0)[Pos];
  int64_t Arrival = INT64_MIN, Transfer = INT64_MAX;
  uint64_t Bytes = 0;
  bool SizesDiffer = false;
  // A copy arrives, moves and sends what its representative does.
  for (const std::vector<TaskId> &Kernels : Gr.Kernels) {
    if (Kernels.empty())
      continue;
    const Task &T = G.task(Kernels[Pos]);
    Arrival = std::max(Arrival, T.StartNs);
    Transfer = std::min(Transfer, T.DurationNs);
    const TaskAttrs *A = G.attrs(Kernels[Pos]);
    uint64_t B = A ? A->Bytes : 0;
    if (B && Bytes && B != Bytes)
      SizesDiffer = true;
    Bytes = std::max(Bytes, B);
  }
  checkGroupSize(Gr, Pos, CN.Kind);
  if (SizesDiffer && CN.Kind != "all_to_all" && CN.Kind != "send_recv") {
    if (Stats.SizeMismatches++ == 0) {
      // Each member's size, the first few.
      std::vector<std::string> Sizes;
      for (size_t I = 0; I != Gr.Members.size() && I != 8; ++I) {
        const TaskAttrs *A = G.attrs(Gr.kernels(I)[Pos]);
        Sizes.push_back(llvm::formatv("rank {0}: {1}", Gr.Members[I],
                                      A && A->Bytes ? A->Bytes : 0)
                            .str());
      }
      if (Gr.Members.size() > 8)
        Sizes.push_back("...");
      Warnings.push_back(
          llvm::formatv("collective #{0} ({1}){2}: the ranks recorded "
                        "different message sizes (bytes, {3}); the largest "
                        "is kept",
                        Pos, CN.Kind,
                        Gr.isWorld() ? std::string() : " of " + Gr.label(),
                        llvm::join(Sizes, ", "))
              .str());
    }
  }

  Task B;
  B.StartNs = Arrival;
  B.DurationNs = std::max<int64_t>(0, Transfer);
  B.Name = G.intern(CN.Kind);
  B.Lane = Gr.Lane;
  B.Layer = First.Layer;
  B.Kind = TaskKind::Collective;
  B.Phase = First.Phase;
  TaskId Barrier = G.addTask(B);
  if (Bytes) {
    TaskAttrs A;
    A.Bytes = Bytes;
    G.setAttrs(Barrier, A);
  }
  G.addNote(Barrier, "collective", CN.Kind);
  G.addNote(Barrier, "ranks", std::to_string(Gr.Members.size()));
  if (!CN.Algorithm.empty())
    G.addNote(Barrier, "algorithm", CN.Algorithm);
  if (!Gr.isWorld()) {
    G.addNote(Barrier, "group", Gr.Name);
    G.addNote(Barrier, "group-ranks", Gr.membersText(","));
  }

  llvm::SmallString<32> ArriveName("arrive ");
  ArriveName += CN.Kind;
  StrId Arrive = G.intern(ArriveName);
  for (size_t Member = 0; Member != Gr.Members.size(); ++Member) {
    ++Stats.Members;
    // A copy's marker and kernel are its representative's.
    if (Gr.isCopy(Member))
      continue;
    TaskId K = Gr.Kernels[Member][Pos];
    Task M;
    M.StartNs = G.task(K).StartNs;
    M.GapNs = G.task(K).GapNs;
    M.Name = Arrive;
    M.Layer = G.task(K).Layer;
    M.Kind = TaskKind::Marker;
    M.Phase = G.task(K).Phase;
    TaskId Marker = G.insertTaskBefore(K, M);
    if (auto It = StartEdges.find(K); It != StartEdges.end())
      for (const Edge &E : It->second)
        G.addEdge(E.Src, Marker, E.Kind);
    G.addEdge(Marker, Barrier, EdgeKind::Comm);
    G.addEdge(Barrier, K, EdgeKind::Sync);
    Task &Kernel = G.task(K);
    Kernel.GapNs = 0;
    Kernel.DurationNs = 0;
  }
  ++Stats.Matched;
}

llvm::Error Matcher::run() {
  collect();
  if (Ranks.size() < 2)
    return llvm::Error::success();
  if (std::all_of(Ranks.begin(), Ranks.end(),
                  [](const RankCollectives &R) { return R.Kernels.empty(); }))
    return llvm::Error::success();
  if (llvm::Error E = assignGroups())
    return E;
  // A group of one rank waits for no one: its kernels stay as recorded.
  Groups.erase(
      std::remove_if(Groups.begin(), Groups.end(),
                     [](const Group &Gr) { return Gr.Members.size() < 2; }),
      Groups.end());
  size_t Barriers = 0, Markers = 0;
  for (const Group &Gr : Groups) {
    if (llvm::Error E = checkCounts(Gr))
      return E;
    const size_t N = Gr.kernels(0).size();
    for (size_t Pos = 0; Pos != N; ++Pos)
      if (llvm::Error E = checkKinds(Gr, Pos))
        return E;
    Barriers += N;
    Markers += N * Gr.Members.size();
    if (!Gr.isWorld())
      ++Stats.Groups;
  }
  // Room for a marker per member and a barrier per collective, and their
  // edges, at once: growing the task arrays would copy them.
  size_t Copied = 0;
  for (const auto &KV : StartEdges)
    Copied += KV.second.size();
  G.reserve(G.numTaskSlots() + Markers + Barriers,
            G.edgeSlots().size() + Copied + 2 * Markers, Barriers);
  for (Group &Gr : Groups) {
    Lane L;
    L.Name = G.intern(Gr.isWorld() ? std::string("collectives world")
                                   : "collectives pg " + Gr.Name + " [" +
                                         Gr.membersText(",") + "]");
    L.Kind = LaneKind::CommChannel;
    L.Rank = -1;
    Gr.Lane = G.addLane(L);
  }
  for (const Group &Gr : Groups)
    for (size_t Pos = 0, N = Gr.kernels(0).size(); Pos != N; ++Pos)
      join(Gr, Pos);
  if (uint64_t N = Stats.GroupSizeMismatches)
    Warnings.push_back(
        llvm::formatv("{0} collective{1} recorded a 'Group size' other than "
                      "the number of ranks {2} matched across (the matched "
                      "ranks are modelled; is a rank's trace missing?); the "
                      "first: {3}",
                      N, N == 1 ? "" : "s", N == 1 ? "it was" : "they were",
                      FirstSizeMismatch)
            .str());
  return llvm::Error::success();
}

} // namespace

llvm::Error dd::import::matchCollectives(
    Graph &Job, const std::map<int32_t, std::string> &RankNames,
    CollectiveStats &Stats, std::vector<std::string> &Warnings) {
  return Matcher(Job, RankNames, Stats, Warnings).run();
}
