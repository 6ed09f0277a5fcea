//===- Collectives.cpp - The collectives of a graph, for the model --------===//
//
// One pass over the notes and one over the edges find every barrier with
// its members; names are classified once each.
//
//===----------------------------------------------------------------------===//

#include "daydream/Comm/Collectives.h"
#include "daydream/IR/Graph.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <map>

using namespace dd;
using namespace dd::comm;
using llvm::StringRef;

namespace {

enum class NoteKey : uint8_t {
  None,
  Collective,
  Ranks,
  Algorithm,
  ModelledRanks,
  GroupRanks
};

/// The notes of the collective keys, the last of each key per task.
class CollectiveNotes {
public:
  explicit CollectiveNotes(const Graph &G) {
    llvm::DenseMap<StrId, NoteKey> Keys;
    for (const TaskNote &N : G.notes()) {
      if (N.Task >= G.numTaskSlots() || !G.isLive(N.Task))
        continue;
      auto [It, New] = Keys.try_emplace(N.Key, NoteKey::None);
      if (New)
        It->second = classify(G.str(N.Key));
      if (It->second == NoteKey::None)
        continue;
      Entry &E = ByTask[N.Task];
      StringRef V = G.str(N.Value);
      switch (It->second) {
      case NoteKey::Collective:
        E.Kind =
            parseCollectiveKind(V.trim()).getValueOr(CollectiveKind::Other);
        E.HasKind = true;
        break;
      case NoteKey::Algorithm:
        E.Alg = parseAlgorithm(V.trim());
        break;
      case NoteKey::Ranks:
        E.Ranks = parseCount(V);
        break;
      case NoteKey::ModelledRanks:
        E.ModelledRanks = parseCount(V);
        break;
      case NoteKey::GroupRanks:
        E.GroupRanks = N.Value;
        break;
      default:
        break;
      }
    }
  }

  struct Entry {
    bool HasKind = false;
    CollectiveKind Kind = CollectiveKind::Other;
    Algorithm Alg = Algorithm::Default;
    int64_t Ranks = 0, ModelledRanks = 0;
    StrId GroupRanks = NoId;
    int64_t groupSize() const { return ModelledRanks ? ModelledRanks : Ranks; }
  };

  const Entry *find(TaskId T) const {
    auto It = ByTask.find(T);
    return It == ByTask.end() ? nullptr : &It->second;
  }

private:
  static NoteKey classify(StringRef Key) {
    if (Key == CollectiveNote)
      return NoteKey::Collective;
    if (Key == RanksNote)
      return NoteKey::Ranks;
    if (Key == AlgorithmNote)
      return NoteKey::Algorithm;
    if (Key == ModelledRanksNote)
      return NoteKey::ModelledRanks;
    if (Key == GroupRanksNote)
      return NoteKey::GroupRanks;
    return NoteKey::None;
  }
  static int64_t parseCount(StringRef V) {
    int64_t N = 0;
    if (V.trim().getAsInteger(10, N) || N < 0)
      return 0;
    return N;
  }

  std::map<TaskId, Entry> ByTask;
};

/// A send_recv (or unnamed) kernel's kind as the op that launched it says
/// (CollectiveNames.h): the task's layer or one around it. Each layer's
/// answer is kept, as a trace repeats a few ops many times.
class LayerKinds {
public:
  explicit LayerKinds(const Graph &G) : G(G) {}

  CollectiveKind refine(LayerId L, CollectiveKind K) {
    if (!kindNeedsOp(K))
      return K;
    for (unsigned Depth = 0; L != NoId && Depth != MaxCollectiveOpDepth;
         ++Depth) {
      CollectiveKind Op = kindOf(L);
      if (Op != CollectiveKind::Other)
        return Op;
      L = G.layer(L).Parent;
    }
    return K;
  }

private:
  CollectiveKind kindOf(LayerId L) {
    auto [It, New] = ByLayer.try_emplace(L, CollectiveKind::Other);
    if (New)
      It->second = collectiveKindOfOp(G.str(G.layer(L).Name));
    return It->second;
  }

  const Graph &G;
  llvm::DenseMap<LayerId, CollectiveKind> ByLayer;
};

/// Each distinct members list parsed once, shared by its collectives.
class GroupTable {
public:
  explicit GroupTable(const Graph &G) : G(G) {}

  /// The members a note's value lists.
  std::shared_ptr<const GroupMembers> ofNote(StrId Value) {
    auto [It, New] = ByNote.try_emplace(Value);
    if (New)
      It->second = parse(G.str(Value));
    return It->second;
  }

  /// The members a barrier lane's name lists: "collectives pg 3 [0,2]".
  std::shared_ptr<const GroupMembers> ofLane(LaneId L) {
    auto [It, New] = ByLane.try_emplace(L);
    if (New) {
      StringRef Name = G.str(G.lane(L).Name);
      size_t Open = Name.rfind('[');
      if (Name.startswith("collectives pg ") && Open != StringRef::npos)
        It->second = parse(Name.substr(Open));
    }
    return It->second;
  }

private:
  static std::shared_ptr<const GroupMembers> parse(StringRef Text) {
    if (llvm::Optional<GroupMembers> M = parseGroupMembers(Text))
      return std::make_shared<const GroupMembers>(std::move(*M));
    return nullptr;
  }

  const Graph &G;
  llvm::DenseMap<StrId, std::shared_ptr<const GroupMembers>> ByNote;
  llvm::DenseMap<LaneId, std::shared_ptr<const GroupMembers>> ByLane;
};

bool isBarrier(const Graph &G, TaskId T, const CollectiveNotes &Notes) {
  const Task &Tk = G.task(T);
  if (!G.isLive(T) || Tk.Kind != TaskKind::Collective)
    return false;
  const Lane &L = G.lane(Tk.Lane);
  if (L.Kind != LaneKind::CommChannel || L.Rank != -1)
    return false;
  const CollectiveNotes::Entry *E = Notes.find(T);
  return E && E->HasKind;
}

uint64_t bytesOf(const Graph &G, TaskId T) {
  const TaskAttrs *A = G.attrs(T);
  return A ? A->Bytes : 0;
}

} // namespace

std::vector<CollectiveInfo> comm::findCollectives(const Graph &G) {
  CollectiveNotes Notes(G);
  LayerKinds Layers(G);
  GroupTable Groups(G);
  std::vector<CollectiveInfo> Found;
  std::vector<uint32_t> Index(G.numTaskSlots(), NoId);
  for (TaskId T = 0; T != G.numTaskSlots(); ++T) {
    if (!isBarrier(G, T, Notes))
      continue;
    const CollectiveNotes::Entry *E = Notes.find(T);
    CollectiveInfo C;
    C.Task = T;
    C.IsBarrier = true;
    C.Kind = Layers.refine(G.task(T).Layer, E->Kind);
    C.Alg = E->Alg;
    C.Bytes = bytesOf(G, T);
    C.Ranks = E->groupSize();
    C.Group = E->GroupRanks != NoId ? Groups.ofNote(E->GroupRanks)
                                    : Groups.ofLane(G.task(T).Lane);
    Index[T] = uint32_t(Found.size());
    Found.push_back(std::move(C));
  }
  if (Found.empty())
    return Found;
  for (const Edge &Ed : G.edgeSlots()) {
    if (!G.isLive(Ed))
      continue;
    if (Ed.Kind == EdgeKind::Comm && Index[Ed.Dst] != NoId)
      Found[Index[Ed.Dst]].Arrivals.push_back(Ed.Src);
    else if (Ed.Kind == EdgeKind::Sync && Index[Ed.Src] != NoId)
      Found[Index[Ed.Src]].Members.push_back(Ed.Dst);
  }
  for (CollectiveInfo &C : Found)
    if (C.Ranks == 0)
      C.Ranks = int64_t(C.Arrivals.size());
  return Found;
}

std::vector<CollectiveInfo> comm::findCollectiveKernels(const Graph &G,
                                                        int64_t DefaultRanks) {
  CollectiveNotes Notes(G);
  LayerKinds Layers(G);
  GroupTable Groups(G);
  // Kernels a barrier joins wait for it through a sync edge.
  std::vector<bool> Joined(G.numTaskSlots(), false);
  for (const Edge &E : G.edgeSlots())
    if (E.Kind == EdgeKind::Sync && G.isLive(E) && isBarrier(G, E.Src, Notes))
      Joined[E.Dst] = true;
  llvm::DenseMap<StrId, KernelCollective> ByName;
  llvm::DenseMap<StrId, bool> NcclName;
  std::vector<CollectiveInfo> Found;
  for (TaskId T = 0; T != G.numTaskSlots(); ++T) {
    if (!G.isLive(T) || Joined[T])
      continue;
    const Task &Tk = G.task(T);
    if (G.lane(Tk.Lane).Kind != LaneKind::GpuStream)
      continue;
    if (Tk.Kind != TaskKind::Collective) {
      if (Tk.Kind != TaskKind::Kernel || Tk.Name == NoId)
        continue;
      auto [It, New] = NcclName.try_emplace(Tk.Name, false);
      if (New) {
        std::string Lower = G.str(Tk.Name).lower();
        It->second = StringRef(Lower).contains("nccl") ||
                     StringRef(Lower).contains("rccl");
      }
      if (!It->second)
        continue;
    }
    KernelCollective KC;
    if (Tk.Name != NoId) {
      auto [It, New] = ByName.try_emplace(Tk.Name);
      if (New)
        It->second = classifyCollectiveName(G.str(Tk.Name));
      KC = It->second;
    }
    CollectiveInfo C;
    C.Task = T;
    C.Kind = Layers.refine(Tk.Layer, KC.Kind);
    C.Alg = KC.Alg;
    C.Bytes = bytesOf(G, T);
    C.Ranks = DefaultRanks;
    if (const CollectiveNotes::Entry *E = Notes.find(T)) {
      if (E->HasKind)
        C.Kind = E->Kind;
      if (E->Alg != Algorithm::Default)
        C.Alg = E->Alg;
      // The kernel's own group (2024+ traces) before the world's size.
      if (E->GroupRanks != NoId)
        C.Group = Groups.ofNote(E->GroupRanks);
      if (C.Group)
        C.Ranks = int64_t(C.Group->Ranks.size());
      if (E->groupSize())
        C.Ranks = E->groupSize();
    }
    Found.push_back(std::move(C));
  }
  return Found;
}

int64_t comm::recordedWorldSize(const Graph &G) {
  int64_t World = 0;
  for (const RankInfo &R : G.metadata().Ranks)
    World = std::max<int64_t>(World, R.WorldSize);
  return World;
}

int64_t comm::recordedGpusPerNode(const Graph &G) {
  int64_t World = recordedWorldSize(G);
  std::map<int32_t, std::string> HostOf;
  for (const RankInfo &R : G.metadata().Ranks) {
    if (R.Host.empty())
      return 0;
    HostOf[R.Rank] = R.Host;
  }
  if (World == 0 || int64_t(HostOf.size()) != World)
    return 0;
  std::map<std::string, int64_t> PerHost;
  for (const auto &[Rank, Host] : HostOf)
    ++PerHost[Host];
  if (PerHost.size() < 2)
    return 0;
  int64_t Most = 0;
  for (const auto &[Host, N] : PerHost)
    Most = std::max(Most, N);
  return Most;
}

StringRef comm::graphGpuName(const Graph &G) {
  for (const Device &D : G.metadata().Devices)
    if (!D.Name.empty())
      return D.Name;
  return "";
}

llvm::Optional<GroupMembers> comm::parseGroupMembers(StringRef Text) {
  StringRef S = Text.trim();
  if (S.consume_front("[") && !S.consume_back("]"))
    return llvm::None;
  GroupMembers M;
  llvm::SmallVector<StringRef, 16> Items;
  S.split(Items, ',');
  for (StringRef Item : Items) {
    int32_t R = 0;
    if (Item.trim().getAsInteger(10, R) || R < 0)
      return llvm::None;
    M.Ranks.push_back(R);
  }
  std::sort(M.Ranks.begin(), M.Ranks.end());
  if (std::adjacent_find(M.Ranks.begin(), M.Ranks.end()) != M.Ranks.end())
    return llvm::None;
  if (M.Ranks.size() >= 2) {
    M.Stride = M.Ranks[1] - M.Ranks[0];
    for (size_t I = 2; I < M.Ranks.size() && M.Stride; ++I)
      if (M.Ranks[I] - M.Ranks[I - 1] != M.Stride)
        M.Stride = 0;
  }
  return std::move(M);
}

Placement comm::groupPlacement(const CollectiveInfo &C, int64_t Ranks,
                               int64_t GpusPerNode) {
  if (C.Group && !C.Group->Ranks.empty()) {
    if (int64_t(C.Group->Ranks.size()) == Ranks)
      return placementOf(C.Group->Ranks, GpusPerNode);
    if (C.Group->Stride > 0)
      return stridedPlacement(C.Group->Ranks.front(), C.Group->Stride, Ranks,
                              GpusPerNode);
  }
  return consecutivePlacement(Ranks, GpusPerNode);
}

double comm::retimeNs(double RecordedNs, CollectiveKind K, Algorithm A,
                      uint64_t Bytes, int64_t OldRanks, const Topology &Old,
                      int64_t NewRanks, const Topology &New) {
  return retimeNs(RecordedNs, K, A, Bytes,
                  consecutivePlacement(OldRanks, Old.GpusPerNode), Old,
                  consecutivePlacement(NewRanks, New.GpusPerNode), New);
}

double comm::retimeNs(double RecordedNs, CollectiveKind K, Algorithm A,
                      uint64_t Bytes, const Placement &OldP,
                      const Topology &Old, const Placement &NewP,
                      const Topology &New) {
  double B = double(Bytes);
  if (Bytes == 0) {
    // The model is linear in the size: latency + size x (time a byte).
    CostTerms PerByte = costTerms(K, A, 1, OldP);
    double LatencyNs =
        timeNs({PerByte.IntraHops, 0, PerByte.InterHops, 0}, Old);
    double ByteNs = timeNs({0, PerByte.IntraBytes, 0, PerByte.InterBytes}, Old);
    B = ByteNs > 0 && RecordedNs > LatencyNs ? (RecordedNs - LatencyNs) / ByteNs
                                             : 0;
  }
  double OldNs = collectiveTimeNs(K, A, B, OldP, Old);
  double NewNs = collectiveTimeNs(K, A, B, NewP, New);
  if (!(OldNs > 0))
    return NewNs;
  return RecordedNs * (NewNs / OldNs);
}
