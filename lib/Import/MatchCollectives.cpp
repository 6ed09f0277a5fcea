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

namespace {

/// One rank's collective kernels, in order of issue.
struct RankCollectives {
  int32_t Rank = 0;
  std::vector<TaskId> Kernels;
  /// Each kernel's kind and algorithm, read once.
  std::vector<CollectiveName> Names;
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
  static StringRef kindOf(const RankCollectives &R, size_t Pos) {
    return R.Names[Pos].Kind;
  }
  void collect();
  llvm::Error checkCounts() const;
  llvm::Error checkKinds(size_t Pos) const;
  void join(size_t Pos);

  Graph &G;
  const std::map<int32_t, std::string> &Names;
  CollectiveStats &Stats;
  std::vector<std::string> &Warnings;
  std::vector<RankCollectives> Ranks;
  /// Each collective kernel's incoming start edges, copied to its marker.
  llvm::DenseMap<TaskId, std::vector<Edge>> StartEdges;
  LaneId Barriers = NoId;
};

void Matcher::collect() {
  std::map<int32_t, size_t> Index;
  for (const RankInfo &R : G.metadata().Ranks)
    if (!Index.count(R.Rank)) {
      Index[R.Rank] = Ranks.size();
      Ranks.push_back(RankCollectives{R.Rank, {}});
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
    for (TaskId T : R.Kernels)
      R.Names.push_back(classifyCollective(G, T));
  }
}

llvm::Error Matcher::checkCounts() const {
  const RankCollectives *Most = &Ranks.front(), *Fewest = &Ranks.front();
  for (const RankCollectives &R : Ranks) {
    if (R.Kernels.size() > Most->Kernels.size())
      Most = &R;
    if (R.Kernels.size() < Fewest->Kernels.size())
      Fewest = &R;
  }
  if (Most->Kernels.size() == Fewest->Kernels.size())
    return llvm::Error::success();
  size_t Pos = Fewest->Kernels.size();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("collectives do not match across ranks: {0} issued {1} "
                    "collective kernels, {2} issued {3}; the first without a "
                    "match is #{4}, {5} '{6}' on {2}",
                    rankName(Fewest->Rank), Fewest->Kernels.size(),
                    rankName(Most->Rank), Most->Kernels.size(), Pos,
                    kindOf(*Most, Pos), G.str(G.task(Most->Kernels[Pos]).Name))
          .str());
}

llvm::Error Matcher::checkKinds(size_t Pos) const {
  StringRef First = kindOf(Ranks.front(), Pos);
  for (const RankCollectives &R : Ranks) {
    StringRef Kind = kindOf(R, Pos);
    if (Kind == First)
      continue;
    std::vector<std::string> Same;
    for (const RankCollectives &S : Ranks)
      if (kindOf(S, Pos) == First)
        Same.push_back(std::to_string(S.Rank));
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("collective #{0} does not match across ranks: {1} on "
                      "rank(s) {2}, but {3} ('{4}') on {5}",
                      Pos, First, llvm::join(Same, ", "), Kind,
                      G.str(G.task(R.Kernels[Pos]).Name), rankName(R.Rank))
            .str());
  }
  return llvm::Error::success();
}

void Matcher::join(size_t Pos) {
  // Copies, not references: adding tasks may move the task array.
  const Task First = G.task(Ranks.front().Kernels[Pos]);
  const CollectiveName &CN = Ranks.front().Names[Pos];
  int64_t Arrival = INT64_MIN, Transfer = INT64_MAX;
  uint64_t Bytes = 0;
  bool SizesDiffer = false;
  for (const RankCollectives &R : Ranks) {
    const Task &T = G.task(R.Kernels[Pos]);
    Arrival = std::max(Arrival, T.StartNs);
    Transfer = std::min(Transfer, T.DurationNs);
    const TaskAttrs *A = G.attrs(R.Kernels[Pos]);
    uint64_t B = A ? A->Bytes : 0;
    if (B && Bytes && B != Bytes)
      SizesDiffer = true;
    Bytes = std::max(Bytes, B);
  }
  if (SizesDiffer && CN.Kind != "all_to_all" && CN.Kind != "send_recv") {
    if (Stats.SizeMismatches++ == 0)
      Warnings.push_back(llvm::formatv("collective #{0} ({1}): the ranks "
                                       "recorded different message sizes; "
                                       "the largest is kept",
                                       Pos, CN.Kind)
                             .str());
  }

  Task B;
  B.StartNs = Arrival;
  B.DurationNs = std::max<int64_t>(0, Transfer);
  B.Name = G.intern(CN.Kind);
  B.Lane = Barriers;
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
  G.addNote(Barrier, "ranks", std::to_string(Ranks.size()));
  if (!CN.Algorithm.empty())
    G.addNote(Barrier, "algorithm", CN.Algorithm);

  llvm::SmallString<32> ArriveName("arrive ");
  ArriveName += CN.Kind;
  StrId Arrive = G.intern(ArriveName);
  for (const RankCollectives &R : Ranks) {
    TaskId K = R.Kernels[Pos];
    Task M;
    M.StartNs = G.task(K).StartNs;
    M.GapNs = G.task(K).GapNs;
    M.Name = Arrive;
    M.Layer = G.task(K).Layer;
    M.Kind = TaskKind::Marker;
    M.Phase = G.task(K).Phase;
    TaskId Marker = G.insertTaskBefore(K, M);
    for (const Edge &E : StartEdges.lookup(K))
      G.addEdge(E.Src, Marker, E.Kind);
    G.addEdge(Marker, Barrier, EdgeKind::Comm);
    G.addEdge(Barrier, K, EdgeKind::Sync);
    Task &Kernel = G.task(K);
    Kernel.GapNs = 0;
    Kernel.DurationNs = 0;
    ++Stats.Members;
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
  if (llvm::Error E = checkCounts())
    return E;
  const size_t N = Ranks.front().Kernels.size();
  for (size_t Pos = 0; Pos != N; ++Pos)
    if (llvm::Error E = checkKinds(Pos))
      return E;
  // Room for a marker per member and a barrier per collective, and their
  // edges, at once: growing the task arrays would copy them.
  size_t Copied = 0;
  for (const auto &KV : StartEdges)
    Copied += KV.second.size();
  G.reserve(G.numTaskSlots() + N * (Ranks.size() + 1),
            G.edgeSlots().size() + Copied + 2 * N * Ranks.size(), N);
  Lane L;
  L.Name = G.intern("collectives world");
  L.Kind = LaneKind::CommChannel;
  L.Rank = -1;
  Barriers = G.addLane(L);
  for (size_t Pos = 0; Pos != N; ++Pos)
    join(Pos);
  return llvm::Error::success();
}

} // namespace

llvm::Error dd::import::matchCollectives(
    Graph &Job, const std::map<int32_t, std::string> &RankNames,
    CollectiveStats &Stats, std::vector<std::string> &Warnings) {
  return Matcher(Job, RankNames, Stats, Warnings).run();
}
