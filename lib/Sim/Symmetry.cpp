//===- Symmetry.cpp - Simulate one rank of each group of identical ranks --===//
//
// A cheap first look hashes each rank's task times without allocating; when
// no two ranks share a hash, as in any recorded job, nothing more is done.
// Otherwise each rank is described by one flat signature (a vector of
// integers) in a single linear walk: its lanes with their task counts, its
// tasks in lane order, its iterations, and its edges in a canonical order,
// each endpoint written as the task's position within the rank or, for the
// job's own tasks (rank -1), as its id. Ranks are grouped by a hash of the
// signature and a group is joined only after comparing the whole signature with
// the group's first rank, so a hash collision cannot merge different ranks.
// Only one signature per group is kept.
//
//===----------------------------------------------------------------------===//

#include "daydream/Sim/Symmetry.h"

#include "daydream/IR/Graph.h"
#include "daydream/IR/RankCopies.h"
#include "daydream/Sim/Simulator.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <map>
#include <tuple>

using namespace dd;

namespace {

constexpr uint32_t NoRank = ~0u;

class RankSignatures {
public:
  RankSignatures(const Graph &G, const std::vector<uint8_t> &Skip)
      : G(G), Skip(Skip) {}

  /// False if the graph is not a job this reduction applies to.
  bool index();
  size_t numRanks() const { return Lanes.size(); }
  /// The signature of rank index \p R; empty if the rank can match no
  /// other (an edge to another rank).
  std::vector<int64_t> signature(uint32_t R) const;

  const Graph &G;
  const std::vector<uint8_t> &Skip; ///< per lane: a stored copy's
  std::map<int32_t, uint32_t> IndexOfRank;
  std::vector<std::vector<LaneId>> Lanes;     ///< per rank, in id order
  std::vector<std::vector<uint32_t>> Its;     ///< per rank, in graph order
  std::vector<uint32_t> RankOf;               ///< per task slot
  std::vector<uint32_t> LocalOf;              ///< per task slot
  std::vector<std::vector<uint32_t>> EdgesOf; ///< per rank, edge indices
  std::vector<uint8_t> CrossesRanks;          ///< per rank
};

bool RankSignatures::index() {
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    const Lane &Ln = G.lane(L);
    if (Ln.Order != LaneOrder::InOrder)
      return false;
    if (Ln.Rank < 0 || Skip[L])
      continue;
    auto [It, New] = IndexOfRank.try_emplace(Ln.Rank, Lanes.size());
    if (New)
      Lanes.emplace_back();
    Lanes[It->second].push_back(L);
  }
  if (Lanes.size() < 2)
    return false;
  Its.resize(Lanes.size());
  for (uint32_t I = 0; I != G.iterations().size(); ++I) {
    auto It = IndexOfRank.find(G.iterations()[I].Rank);
    if (It != IndexOfRank.end())
      Its[It->second].push_back(I);
  }
  RankOf.assign(G.numTaskSlots(), NoRank);
  LocalOf.assign(G.numTaskSlots(), 0);
  for (uint32_t R = 0; R != Lanes.size(); ++R) {
    uint32_t Local = 0;
    for (LaneId L : Lanes[R])
      for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T)) {
        RankOf[T] = R;
        LocalOf[T] = Local++;
      }
  }
  EdgesOf.resize(Lanes.size());
  CrossesRanks.assign(Lanes.size(), 0);
  llvm::ArrayRef<Edge> Edges = G.edgeSlots();
  for (uint32_t E = 0; E != Edges.size(); ++E) {
    if (!G.isLive(Edges[E]))
      continue;
    uint32_t S = RankOf[Edges[E].Src], D = RankOf[Edges[E].Dst];
    if (S != NoRank && D != NoRank && S != D) {
      CrossesRanks[S] = CrossesRanks[D] = 1;
      continue;
    }
    if (D != NoRank)
      EdgesOf[D].push_back(E);
    else if (S != NoRank)
      EdgesOf[S].push_back(E);
  }
  return true;
}

std::vector<int64_t> RankSignatures::signature(uint32_t R) const {
  std::vector<int64_t> Sig;
  if (CrossesRanks[R])
    return Sig;
  Sig.push_back(int64_t(Lanes[R].size()));
  for (LaneId L : Lanes[R]) {
    const Lane &Ln = G.lane(L);
    Sig.push_back(int64_t(Ln.Kind));
    for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T)) {
      const Task &Tk = G.task(T);
      Sig.insert(Sig.end(), {int64_t(Tk.Kind), Tk.DurationNs, Tk.GapNs,
                             Tk.StartNs, int64_t(Tk.Flags)});
    }
    Sig.push_back(-1); // end of the lane
  }
  for (uint32_t I : Its[R])
    Sig.insert(Sig.end(),
               {G.iterations()[I].StartNs, G.iterations()[I].MeasuredNs});
  // Each edge as (inside?, endpoint inside, kind, other endpoint), sorted:
  // the edge array's order is not part of the graph's meaning.
  std::vector<std::tuple<int64_t, int64_t, int64_t>> Es;
  Es.reserve(EdgesOf[R].size());
  auto Where = [&](TaskId T) {
    return RankOf[T] == R ? int64_t(LocalOf[T]) : -1 - int64_t(T);
  };
  for (uint32_t E : EdgesOf[R]) {
    const Edge &Ed = G.edgeSlots()[E];
    Es.emplace_back(Where(Ed.Src), Where(Ed.Dst), int64_t(Ed.Kind));
  }
  std::sort(Es.begin(), Es.end());
  Sig.push_back(int64_t(Es.size()));
  for (const auto &[A, B, K] : Es)
    Sig.insert(Sig.end(), {A, B, K});
  return Sig;
}

/// Folds \p X into the hash \p H (boost's hash_combine step).
uint64_t mix(uint64_t H, uint64_t X) {
  return H ^ (X + 0x9e3779b97f4a7c15ULL + (H << 6) + (H >> 2));
}

} // namespace

/// rankFilterHashes() of the ranks whose lanes \p Skip does not mark.
static std::map<int32_t, uint64_t>
filterHashes(const Graph &G, const std::vector<uint8_t> &Skip) {
  std::map<int32_t, uint64_t> Hash;
  for (LaneId L = 0; L != G.numLanes(); ++L)
    if (G.lane(L).Rank >= 0 && !Skip[L])
      Hash[G.lane(L).Rank] = 0;
  if (Hash.size() < 2)
    return Hash;
  // Each lane's tasks in lane order, hashed per lane; then each rank's
  // lanes in lane order. A graph as read from a file has its lanes in slot
  // order, so one pass over the task array hashes every lane, without the
  // lane links (8 bytes a task of fresh memory, and a pass of their own,
  // that nothing else in a simulation needs).
  std::vector<uint64_t> LaneHash(G.numLanes(), 0);
  // One mix a task, of its three times multiplied apart: a filter needs no
  // more, and a lane's chain of mixes is the loop's critical path.
  auto Add = [](uint64_t &H, const Task &Tk) {
    H = mix(H, uint64_t(Tk.DurationNs) * 0x9e3779b97f4a7c15ULL +
                   uint64_t(Tk.GapNs) * 0xc2b2ae3d27d4eb4fULL +
                   uint64_t(Tk.StartNs));
  };
  if (G.lanesFollowSlotOrder() && G.numTasks() == G.numTaskSlots()) {
    for (const Task &Tk : G.taskSlots())
      Add(LaneHash[Tk.Lane], Tk);
  } else {
    for (LaneId L = 0; L != G.numLanes(); ++L)
      if (G.lane(L).Rank >= 0 && !Skip[L])
        for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T))
          Add(LaneHash[L], G.task(T));
  }
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    const Lane &Ln = G.lane(L);
    if (Ln.Rank < 0 || Skip[L])
      continue;
    uint64_t &H = Hash[Ln.Rank];
    H = mix(mix(H, uint64_t(Ln.Kind)), LaneHash[L]);
  }
  return Hash;
}

std::map<int32_t, uint64_t> dd::rankFilterHashes(const Graph &G) {
  return filterHashes(G, std::vector<uint8_t>(G.numLanes(), 0));
}

namespace {

/// Whether any two ranks might be identical, from a cheap hash of each
/// rank's tasks (no edges, no allocation per task): most jobs' ranks differ
/// in some duration, and then the full signatures are not worth building.
bool mayHaveTwins(const Graph &G, const std::vector<uint8_t> &Skip,
                  size_t &NumRanks) {
  const std::map<int32_t, uint64_t> Hash = filterHashes(G, Skip);
  NumRanks = Hash.size();
  if (Hash.size() < 2)
    return false;
  llvm::DenseMap<uint64_t, unsigned> Seen;
  for (const auto &KV : Hash)
    if (++Seen[KV.second] == 2)
      return true;
  return false;
}

} // namespace

/// Notes in \p S the ranks \p G stores as copies, and marks their lanes in
/// \p Skip.
static void noteStoredCopies(const Graph &G, SymmetryReduction &S,
                             std::vector<uint8_t> &Skip) {
  Skip.assign(G.numLanes(), 0);
  if (!hasRankCopies(G))
    return;
  std::map<int32_t, RankLayout> Ranks = rankLayouts(G);
  for (const auto &[Rank, L] : Ranks) {
    if (L.CopyOf == -1)
      continue;
    const RankLayout &Rep = Ranks.at(L.CopyOf);
    ++S.StoredCopies;
    for (size_t I = 0; I != L.Lanes.size(); ++I) {
      Skip[L.Lanes[I]] = 1;
      S.LaneCopies.emplace_back(L.Lanes[I], Rep.Lanes[I]);
    }
    for (size_t I = 0; I != L.Iterations.size(); ++I)
      S.IterationCopies.emplace_back(L.Iterations[I], Rep.Iterations[I]);
  }
  // What the copies would hold stored whole.
  CopiedWork W = countCopiedWork(G);
  S.RemovedTasks = W.Tasks;
  S.RemovedEdges = W.Edges;
}

SymmetryReduction dd::reduceBySymmetry(Graph &G) {
  SymmetryReduction S;
  if (llvm::any_of(G.lanes(),
                   [](const Lane &L) { return L.Order != LaneOrder::InOrder; }))
    return S; // the caller expands any stored copies
  std::vector<uint8_t> Skip;
  noteStoredCopies(G, S, Skip);
  size_t NumRanks = 0;
  if (!mayHaveTwins(G, Skip, NumRanks)) {
    // Every rank stored whole is a group of its own.
    S.Ranks = NumRanks + S.StoredCopies;
    S.Classes = NumRanks;
    return S;
  }
  RankSignatures Ranks(G, Skip);
  if (!Ranks.index()) {
    S.Ranks = NumRanks + S.StoredCopies;
    S.Classes = NumRanks;
    return S;
  }
  S.Ranks = Ranks.numRanks() + S.StoredCopies;
  // Groups: the hash of a signature leads to the groups with that hash,
  // each kept with its first rank's signature.
  struct Group {
    uint32_t First;
    std::vector<int64_t> Sig;
  };
  std::vector<Group> Groups;
  llvm::DenseMap<uint64_t, std::vector<uint32_t>> ByHash;
  std::vector<uint32_t> Representative(Ranks.numRanks());
  for (uint32_t R = 0; R != Ranks.numRanks(); ++R) {
    Representative[R] = R;
    std::vector<int64_t> Sig = Ranks.signature(R);
    if (Sig.empty()) { // a rank of its own
      Groups.push_back(Group{R, {}});
      continue;
    }
    uint64_t H = 0;
    for (int64_t V : Sig)
      H = mix(H, uint64_t(V));
    std::vector<uint32_t> &Candidates = ByHash[H];
    for (uint32_t Gi : Candidates)
      if (Groups[Gi].Sig == Sig) {
        Representative[R] = Groups[Gi].First;
        break;
      }
    if (Representative[R] == R) {
      Candidates.push_back(Groups.size());
      Groups.push_back(Group{R, std::move(Sig)});
    }
  }
  S.Classes = Groups.size();
  if (S.Classes == Ranks.numRanks())
    return S;
  size_t TasksBefore = G.numTasks(), EdgesBefore = G.countLiveEdges();
  const size_t StoredLanes = S.LaneCopies.size();
  const size_t StoredIts = S.IterationCopies.size();
  for (uint32_t R = 0; R != Ranks.numRanks(); ++R) {
    uint32_t Rep = Representative[R];
    if (Rep == R)
      continue;
    for (size_t I = 0; I != Ranks.Lanes[R].size(); ++I) {
      LaneId L = Ranks.Lanes[R][I];
      S.LaneCopies.emplace_back(L, Ranks.Lanes[Rep][I]);
      G.removeLaneTasks(L);
    }
    for (size_t I = 0; I != Ranks.Its[R].size(); ++I)
      S.IterationCopies.emplace_back(Ranks.Its[R][I], Ranks.Its[Rep][I]);
  }
  // A stored copy's representative may be one of the ranks just left out:
  // it must have its results before the copy takes them.
  std::rotate(S.LaneCopies.begin(), S.LaneCopies.begin() + StoredLanes,
              S.LaneCopies.end());
  std::rotate(S.IterationCopies.begin(), S.IterationCopies.begin() + StoredIts,
              S.IterationCopies.end());
  S.RemovedTasks += TasksBefore - G.numTasks();
  S.RemovedEdges += EdgesBefore - G.countLiveEdges();
  return S;
}

void dd::expandResults(const SymmetryReduction &S, SimResult &R) {
  for (auto [To, From] : S.LaneCopies)
    R.Lanes[To] = R.Lanes[From];
  for (auto [To, From] : S.IterationCopies) {
    IterationResult &I = R.Iterations[To];
    I.PredictedNs = R.Iterations[From].PredictedNs;
    I.PredictedStartNs = R.Iterations[From].PredictedStartNs;
  }
}
