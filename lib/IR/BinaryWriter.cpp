//===- BinaryWriter.cpp - Write the binary .ddir form ---------------------===//
//
// Writes a graph in canonical order (CanonicalOrder.h) with its string table
// and attribute table compacted to what live tasks use (attributes
// deduplicated by value), in order of first use,
// and its memory events sorted by time, so that the bytes depend only on the
// graph and never on how it was built.
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/BinaryFormat.h"
#include "daydream/IR/CanonicalOrder.h"
#include "daydream/IR/ddir_generated.h"

#include <algorithm>
#include <unordered_map>

using namespace dd;

namespace {

/// Renumbers strings in order of first use.
class StringRemap {
public:
  explicit StringRemap(const Graph &G)
      : G(G), NewId(G.strings().size(), NoId) {}

  StrId operator()(StrId Old) {
    if (Old == NoId || Old >= NewId.size())
      return Old;
    if (NewId[Old] == NoId) {
      NewId[Old] = Used.size();
      Used.push_back(Old);
      Bytes += G.str(Old).size();
    }
    return NewId[Old];
  }

  /// What the strings used so far take in the buffer, about.
  size_t bytes() const { return Bytes + Used.size() * 12; }

  flatbuffers::Offset<
      flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>>
  build(flatbuffers::FlatBufferBuilder &B) const {
    std::vector<flatbuffers::Offset<flatbuffers::String>> Offs;
    Offs.reserve(Used.size());
    for (StrId Old : Used) {
      llvm::StringRef S = G.str(Old);
      Offs.push_back(B.CreateString(S.data(), S.size()));
    }
    return B.CreateVector(Offs);
  }

private:
  const Graph &G;
  std::vector<StrId> NewId;
  std::vector<StrId> Used;
  size_t Bytes = 0;
};

/// A FlatBufferBuilder that lets a vector of structs be written in place,
/// laid out as CreateVectorOfStructs lays it out, so that the task array
/// (most of the file) is never built twice.
class OutputBuilder : public flatbuffers::FlatBufferBuilder {
public:
  using FlatBufferBuilder::FlatBufferBuilder;

  template <typename T>
  flatbuffers::Offset<flatbuffers::Vector<const T *>>
  createUninitializedStructs(size_t Len, T **Out) {
    StartVector(Len * sizeof(T) / flatbuffers::AlignOf<T>(),
                flatbuffers::AlignOf<T>());
    *Out = reinterpret_cast<T *>(buf_.make_space(Len * sizeof(T)));
    return flatbuffers::Offset<flatbuffers::Vector<const T *>>(EndVector(Len));
  }
};

flatbuffers::Offset<fb::Metadata>
buildMetadata(flatbuffers::FlatBufferBuilder &B, const Metadata &M) {
  std::vector<flatbuffers::Offset<fb::Device>> Devs;
  for (const Device &D : M.Devices)
    Devs.push_back(fb::CreateDevice(B, D.Index, B.CreateString(D.Name),
                                    D.SmCount, D.MemoryBytes, D.PeakFp32Tflops,
                                    D.PeakFp16Tflops, D.PeakBf16Tflops,
                                    D.MemoryBandwidthGBps));
  std::vector<flatbuffers::Offset<fb::Rank>> Ranks;
  for (const RankInfo &R : M.Ranks)
    Ranks.push_back(
        fb::CreateRank(B, R.Rank, R.WorldSize, B.CreateString(R.Host)));
  return fb::CreateMetadata(B, B.CreateString(M.Producer),
                            B.CreateString(M.SourceFormat),
                            B.CreateVector(Devs), B.CreateVector(Ranks));
}

} // namespace

llvm::Error dd::writeBinaryGraph(const Graph &G, llvm::raw_ostream &OS) {
  auto OrderOr = computeCanonicalOrder(G);
  if (!OrderOr)
    return OrderOr.takeError();
  const CanonicalOrder &C = *OrderOr;
  StringRemap Str(G);

  std::vector<fb::Lane> Lanes;
  Lanes.reserve(G.numLanes());
  for (const Lane &L : G.lanes())
    Lanes.emplace_back(L.NativeId, Str(L.Name), L.Rank, L.Device,
                       static_cast<fb::LaneKind>(L.Kind),
                       static_cast<fb::LaneOrder>(L.Order), 0);
  std::vector<fb::Layer> Layers;
  for (const Layer &L : G.layers())
    Layers.emplace_back(Str(L.Name), L.Parent);
  std::vector<fb::Iteration> Its;
  for (const Iteration &I : G.iterations())
    Its.emplace_back(I.StartNs, I.MeasuredNs, Str(I.Name), I.Rank);

  // Attributes are stored once per distinct value: kernels of repeated
  // layers and iterations share their launch shapes. An entry shared by
  // tasks (as importers and readers share them) is looked up once.
  std::vector<fb::TaskAttrs> Attrs;
  std::unordered_map<TaskAttrs, AttrId, TaskAttrsHash> AttrIndex;
  std::vector<AttrId> NewAttr(G.attrSlots().size(), NoId);
  auto AttrOf = [&](AttrId Slot) -> AttrId {
    if (Slot == NoId)
      return NoId;
    if (NewAttr[Slot] == NoId) {
      const TaskAttrs &TA = G.attrSlots()[Slot];
      auto [It, New] = AttrIndex.try_emplace(TA, Attrs.size());
      if (New)
        Attrs.emplace_back(TA.Bytes, TA.Flops, TA.Grid[0], TA.Grid[1],
                           TA.Grid[2], TA.Block[0], TA.Block[1], TA.Block[2],
                           TA.SharedMemBytes, TA.RegistersPerThread,
                           TA.CopyKind, 0);
      NewAttr[Slot] = It->second;
    }
    return NewAttr[Slot];
  };
  // Numbers the tasks' names and attributes in order of first use now; the
  // tasks themselves are written straight into the output buffer below,
  // which saves a copy of the largest array.
  for (TaskId Old : C.Order) {
    const Task &T = G.task(Old);
    Str(T.Name);
    AttrOf(T.Attrs);
  }

  std::vector<fb::TaskNote> Notes;
  for (const TaskNote &N : G.notes())
    if (N.Task < G.numTaskSlots() && G.isLive(N.Task))
      Notes.emplace_back(C.NewId[N.Task], N.Key, N.Value);
  std::stable_sort(Notes.begin(), Notes.end(),
                   [](const fb::TaskNote &A, const fb::TaskNote &B) {
                     return A.task() < B.task();
                   });
  for (fb::TaskNote &N : Notes)
    N = fb::TaskNote(N.task(), Str(N.key()), Str(N.value()));

  std::vector<Edge> Edges = canonicalEdges(G, C);

  std::vector<fb::MemoryEvent> Mem;
  Mem.reserve(G.memoryEvents().size());
  for (const MemoryEvent &E : canonicalMemoryEvents(G))
    Mem.emplace_back(E.TimeNs, E.Bytes, E.TotalAllocated, E.TotalReserved,
                     E.Address, E.Lane, E.Device);

  OutputBuilder B(1024 + C.Order.size() * sizeof(fb::Task) +
                  Edges.size() * 9 + Mem.size() * sizeof(fb::MemoryEvent) +
                  Attrs.size() * sizeof(fb::TaskAttrs) + Str.bytes());
  auto Meta = buildMetadata(B, G.metadata());
  auto Strings = Str.build(B);
  auto LanesV = B.CreateVectorOfStructs(Lanes);
  auto LayersV = B.CreateVectorOfStructs(Layers);
  auto ItsV = B.CreateVectorOfStructs(Its);
  fb::Task *TaskOut = nullptr;
  auto TasksV = B.createUninitializedStructs(C.Order.size(), &TaskOut);
  for (TaskId Old : C.Order) {
    const Task &T = G.task(Old);
    *TaskOut++ = fb::Task(T.StartNs, T.DurationNs, T.GapNs, Str(T.Name),
                          T.Lane, T.Layer, T.Correlation, AttrOf(T.Attrs),
                          static_cast<fb::TaskKind>(T.Kind),
                          static_cast<fb::Phase>(T.Phase), T.Flags);
  }
  auto AttrsV = B.CreateVectorOfStructs(Attrs);
  auto NotesV = B.CreateVectorOfStructs(Notes);
  uint32_t *SrcOut = nullptr, *DstOut = nullptr;
  uint8_t *KindOut = nullptr;
  auto SrcV = B.CreateUninitializedVector(Edges.size(), &SrcOut);
  for (const Edge &E : Edges)
    *SrcOut++ = E.Src;
  auto DstV = B.CreateUninitializedVector(Edges.size(), &DstOut);
  for (const Edge &E : Edges)
    *DstOut++ = E.Dst;
  auto KindV = B.CreateUninitializedVector(Edges.size(), &KindOut);
  for (const Edge &E : Edges)
    *KindOut++ = static_cast<uint8_t>(E.Kind);
  auto Root = fb::CreateGraph(
      B, BinaryFormatVersion, Meta, Strings, LanesV, LayersV, ItsV, TasksV,
      AttrsV, NotesV, SrcV, DstV,
      flatbuffers::Offset<flatbuffers::Vector<fb::EdgeKind>>(KindV.o),
      B.CreateVectorOfStructs(Mem));
  fb::FinishGraphBuffer(B, Root);
  OS.write(reinterpret_cast<const char *>(B.GetBufferPointer()), B.GetSize());
  return llvm::Error::success();
}
