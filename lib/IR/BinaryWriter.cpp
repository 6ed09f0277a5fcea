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

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstring>
#include <memory>
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

/// Where the arrays that grow with the graph (tasks, edges, memory events)
/// lie in the part of the file after the FlatBuffers-built head. They are
/// streamed out a chunk at a time after the head rather than built in the
/// builder's buffer: a buffer as large as the file, zeroed by the kernel page
/// by page and then copied into the page cache, was most of the cost of
/// writing a large graph and half of the writer's memory.
class TailLayout {
public:
  /// Places a vector of \p Length elements of \p Size bytes aligned to
  /// \p Align, as FlatBuffers lays vectors out (a 32-bit length just before
  /// the elements), and returns the offset of its length from the tail's start.
  uint64_t add(uint64_t Length, size_t Size, size_t Align) {
    size_t A = std::max<size_t>(Align, sizeof(flatbuffers::uoffset_t));
    uint64_t At = llvm::alignTo(End, sizeof(flatbuffers::uoffset_t));
    while ((At + sizeof(flatbuffers::uoffset_t)) % A)
      At += sizeof(flatbuffers::uoffset_t);
    End = At + sizeof(flatbuffers::uoffset_t) + Length * Size;
    return At;
  }
  uint64_t size() const { return End; }

private:
  uint64_t End = 0;
};

/// A FlatBufferBuilder for the head: everything but the tail's arrays, to
/// which its table fields refer forward, past the head's end.
class HeadBuilder : public flatbuffers::FlatBufferBuilder {
public:
  using FlatBufferBuilder::FlatBufferBuilder;

  /// Adds table field \p Field referring to the vector at \p TailAt in the
  /// tail. A FlatBuffers offset counts from the field to its target; the
  /// field lands GetSize() + 4 bytes before the head's end (sizes count from
  /// the end, the builder writing backwards), and the target lies TailAt
  /// bytes past the head's end. An offset past 4 GiB wraps here, but such a
  /// file is refused before anything is written (writeBinaryGraph()).
  void addTailOffset(flatbuffers::voffset_t Field, uint64_t TailAt) {
    Align(sizeof(flatbuffers::uoffset_t));
    AddElement<flatbuffers::uoffset_t>(
        Field, static_cast<flatbuffers::uoffset_t>(
                   GetSize() + sizeof(flatbuffers::uoffset_t) + TailAt));
  }

  /// Makes the head's size a multiple of 8, so that the tail, which follows
  /// it, starts aligned for its 64-bit fields.
  void alignEndForTail() { TrackMinAlign(8); }
};

/// Writes the tail's vectors in order through a chunk buffer.
class TailWriter {
public:
  explicit TailWriter(llvm::raw_ostream &OS)
      : OS(OS), Chunk(std::make_unique<char[]>(Cap)) {}
  ~TailWriter() { flush(); }

  /// Writes the padding and the length of a vector placed at \p At by
  /// TailLayout::add() with the same \p Length; its elements follow.
  void startVector(uint64_t At, uint64_t Length) {
    static const char Zeros[8] = {};
    append(Zeros, At - (Written + Used));
    auto L = static_cast<flatbuffers::uoffset_t>(Length);
    append(&L, sizeof(L));
  }

  template <typename T> void push(const T &Element) {
    append(&Element, sizeof(T));
  }

private:
  void append(const void *P, size_t N) {
    if (Used + N > Cap)
      flush();
    std::memcpy(Chunk.get() + Used, P, N);
    Used += N;
  }
  void flush() {
    OS.write(Chunk.get(), Used);
    Written += Used;
    Used = 0;
  }

  static constexpr size_t Cap = 1 << 20;
  llvm::raw_ostream &OS;
  std::unique_ptr<char[]> Chunk;
  size_t Used = 0;
  uint64_t Written = 0;
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
    Ranks.push_back(fb::CreateRank(B, R.Rank, R.WorldSize,
                                   B.CreateString(R.Host), R.CopyOf));
  // Left out when empty, so a graph as recorded is written as before.
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::PipelineRun>>>
      Pipelines;
  if (!M.Pipelines.empty()) {
    std::vector<flatbuffers::Offset<fb::PipelineRun>> Runs;
    for (const PipelineRun &P : M.Pipelines)
      Runs.push_back(fb::CreatePipelineRun(B, B.CreateString(P.Pipeline),
                                           B.CreateString(P.Tool),
                                           B.CreateString(P.Input)));
    Pipelines = B.CreateVector(Runs);
  }
  return fb::CreateMetadata(
      B, B.CreateString(M.Producer), B.CreateString(M.SourceFormat),
      B.CreateVector(Devs), B.CreateVector(Ranks), Pipelines);
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
                           TA.CopyKind, TA.DType);
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
  std::vector<fb::MemoryEventOwner> Owners;
  for (const MemoryEvent &E : canonicalMemoryEvents(G, C)) {
    Mem.emplace_back(E.TimeNs, E.Bytes, E.TotalAllocated, E.TotalReserved,
                     E.Address, E.Lane, E.Device);
    Owners.emplace_back(E.Task, E.Category, E.Flags);
  }
  // Recorded events only (the common case): the field stays absent, and
  // the file is as it was before passes could own events.
  if (llvm::all_of(Owners, [](const fb::MemoryEventOwner &O) {
        return O.task() == NoId && O.category() == CategoryByRule &&
               O.flags() == 0;
      }))
    Owners.clear();

  // The tail's layout first: the head refers to it.
  TailLayout Tail;
  uint64_t TasksAt = Tail.add(C.Order.size(), sizeof(fb::Task),
                              flatbuffers::AlignOf<fb::Task>());
  uint64_t EdgesAt = Tail.add(Edges.size(), sizeof(fb::Edge),
                              flatbuffers::AlignOf<fb::Edge>());
  uint64_t MemAt = Tail.add(Mem.size(), sizeof(fb::MemoryEvent),
                            flatbuffers::AlignOf<fb::MemoryEvent>());

  HeadBuilder B(4096 + Attrs.size() * sizeof(fb::TaskAttrs) +
                Notes.size() * sizeof(fb::TaskNote) + Str.bytes());
  auto Meta = buildMetadata(B, G.metadata());
  auto Strings = Str.build(B);
  auto LanesV = B.CreateVectorOfStructs(Lanes);
  auto LayersV = B.CreateVectorOfStructs(Layers);
  auto ItsV = B.CreateVectorOfStructs(Its);
  auto AttrsV = B.CreateVectorOfStructs(Attrs);
  auto NotesV = B.CreateVectorOfStructs(Notes);
  flatbuffers::Offset<flatbuffers::Vector<const fb::MemoryEventOwner *>>
      OwnersV;
  if (!Owners.empty())
    OwnersV = B.CreateVectorOfStructs(Owners);
  flatbuffers::uoffset_t Table = B.StartTable();
  if (!Owners.empty())
    B.AddOffset(fb::Graph::VT_MEMORY_EVENT_OWNERS, OwnersV);
  B.addTailOffset(fb::Graph::VT_EDGES, EdgesAt);
  B.addTailOffset(fb::Graph::VT_MEMORY_EVENTS, MemAt);
  B.AddOffset(fb::Graph::VT_TASK_NOTES, NotesV);
  B.AddOffset(fb::Graph::VT_TASK_ATTRS, AttrsV);
  B.addTailOffset(fb::Graph::VT_TASKS, TasksAt);
  B.AddOffset(fb::Graph::VT_ITERATIONS, ItsV);
  B.AddOffset(fb::Graph::VT_LAYERS, LayersV);
  B.AddOffset(fb::Graph::VT_LANES, LanesV);
  B.AddOffset(fb::Graph::VT_STRINGS, Strings);
  B.AddOffset(fb::Graph::VT_METADATA, Meta);
  B.AddElement<uint32_t>(fb::Graph::VT_VERSION, BinaryFormatVersion, 0);
  flatbuffers::Offset<fb::Graph> Root(B.EndTable(Table));
  B.alignEndForTail();
  fb::FinishGraphBuffer(B, Root);

  // FlatBuffers offsets are 32 bits, and readers verify at most 2 GiB.
  uint64_t FileBytes = B.GetSize() + Tail.size();
  static_assert(BinaryFormatMaxBytes == FLATBUFFERS_MAX_BUFFER_SIZE, "");
  if (FileBytes > BinaryFormatMaxBytes)
    return llvm::createStringError(
        std::errc::file_too_large,
        "graph too large for the binary .ddir format: %llu tasks and %llu "
        "edges take %llu bytes, over its limit of 2 GiB; split the trace by "
        "iteration or write the text form (-S)",
        static_cast<unsigned long long>(C.Order.size()),
        static_cast<unsigned long long>(Edges.size()),
        static_cast<unsigned long long>(FileBytes));

  OS.write(reinterpret_cast<const char *>(B.GetBufferPointer()), B.GetSize());
  TailWriter Out(OS);
  Out.startVector(TasksAt, C.Order.size());
  for (TaskId Old : C.Order) {
    const Task &T = G.task(Old);
    Out.push(fb::Task(T.StartNs, T.DurationNs, T.GapNs, Str(T.Name), T.Lane,
                      T.Layer, T.Correlation, AttrOf(T.Attrs),
                      static_cast<fb::TaskKind>(T.Kind),
                      static_cast<fb::Phase>(T.Phase), T.Flags));
  }
  Out.startVector(EdgesAt, Edges.size());
  for (const Edge &E : Edges)
    Out.push(fb::Edge(E.Src, E.Dst, static_cast<fb::EdgeKind>(E.Kind)));
  Out.startVector(MemAt, Mem.size());
  for (const fb::MemoryEvent &M : Mem)
    Out.push(M);
  return llvm::Error::success();
}
