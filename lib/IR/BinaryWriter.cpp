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

  /// The strings used, in their new order.
  size_t size() const { return Used.size(); }
  llvm::StringRef str(size_t New) const { return G.str(Used[New]); }
  /// Their bytes, each with its 0 byte.
  uint64_t bytes() const { return Bytes + Used.size(); }

private:
  const Graph &G;
  std::vector<StrId> NewId;
  std::vector<StrId> Used;
  size_t Bytes = 0;
};

/// Where the arrays that grow with the graph lie in the part of the file
/// after the FlatBuffers-built head: the version 4 sections. They are
/// streamed out a chunk at a time after the head rather than built in the
/// builder's buffer: a buffer as large as the file, zeroed by the kernel page
/// by page and then copied into the page cache, was most of the cost of
/// writing a large graph and half of the writer's memory; and their 64-bit
/// offsets let a file pass FlatBuffers' 2 GiB.
class TailLayout {
public:
  /// Places \p Count records of \p Size bytes at the next multiple of 8;
  /// returns where, counted from the tail's start.
  uint64_t add(uint64_t Count, size_t Size) {
    uint64_t At = llvm::alignTo(End, 8);
    End = At + Count * Size;
    return At;
  }

private:
  uint64_t End = 0;
};

/// A tail section: where it lies (from the tail's start) and its records.
struct TailSection {
  uint64_t At = 0, Count = 0;
  /// As written into the head, which is \p HeadBytes long.
  fb::Section in(uint64_t HeadBytes) const {
    return fb::Section(HeadBytes + At, Count);
  }
};

/// Writes the tail's sections in order through a chunk buffer.
class TailWriter {
public:
  explicit TailWriter(llvm::raw_ostream &OS)
      : OS(OS), Chunk(std::make_unique<char[]>(Cap)) {}
  ~TailWriter() { flush(); }

  /// Writes the padding before a section placed by TailLayout::add() at
  /// \p At; its records follow.
  void startSection(uint64_t At) {
    static const char Zeros[8] = {};
    append(Zeros, At - (Written + Used));
  }

  template <typename T> void push(const T &Element) {
    append(&Element, sizeof(T));
  }
  void pushBytes(llvm::StringRef S) { append(S.data(), S.size()); }

private:
  void append(const void *P, size_t N) {
    if (N > Cap) {
      flush();
      OS.write(static_cast<const char *>(P), N);
      Written += N;
      return;
    }
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
  const bool HasOwners = !Owners.empty();
  const TailSection TasksS{Tail.add(C.Order.size(), sizeof(fb::Task)),
                           C.Order.size()};
  const TailSection EdgesS{Tail.add(Edges.size(), sizeof(fb::Edge)),
                           Edges.size()};
  const TailSection MemS{Tail.add(Mem.size(), sizeof(fb::MemoryEvent)),
                         Mem.size()};
  const TailSection OwnersS{
      Tail.add(Owners.size(), sizeof(fb::MemoryEventOwner)), Owners.size()};
  const TailSection AttrsS{Tail.add(Attrs.size(), sizeof(fb::TaskAttrs)),
                           Attrs.size()};
  const TailSection NotesS{Tail.add(Notes.size(), sizeof(fb::TaskNote)),
                           Notes.size()};
  const TailSection StrOffsS{Tail.add(Str.size() + 1, sizeof(uint64_t)),
                             Str.size() + 1};
  const TailSection StrBytesS{Tail.add(Str.bytes(), 1), Str.bytes()};

  // The head, which holds the sections' offsets from the file's start: built
  // once to learn its size, then again with them (its size does not depend
  // on their values).
  auto BuildHead = [&](flatbuffers::FlatBufferBuilder &B, uint64_t HeadBytes) {
    auto Meta = buildMetadata(B, G.metadata());
    auto LanesV = B.CreateVectorOfStructs(Lanes);
    auto LayersV = B.CreateVectorOfStructs(Layers);
    auto ItsV = B.CreateVectorOfStructs(Its);
    fb::GraphBuilder GB(B);
    GB.add_version(BinaryFormatVersion);
    GB.add_metadata(Meta);
    GB.add_lanes(LanesV);
    GB.add_layers(LayersV);
    GB.add_iterations(ItsV);
    const fb::Section TasksF = TasksS.in(HeadBytes),
                      EdgesF = EdgesS.in(HeadBytes), MemF = MemS.in(HeadBytes),
                      OwnersF = OwnersS.in(HeadBytes),
                      AttrsF = AttrsS.in(HeadBytes),
                      NotesF = NotesS.in(HeadBytes),
                      StrOffsF = StrOffsS.in(HeadBytes),
                      StrBytesF = StrBytesS.in(HeadBytes);
    GB.add_task_section(&TasksF);
    GB.add_edge_section(&EdgesF);
    GB.add_memory_event_section(&MemF);
    if (HasOwners)
      GB.add_memory_event_owner_section(&OwnersF);
    GB.add_task_attr_section(&AttrsF);
    GB.add_task_note_section(&NotesF);
    GB.add_string_offset_section(&StrOffsF);
    GB.add_string_byte_section(&StrBytesF);
    auto Root = GB.Finish();
    // The tail's 64-bit records start aligned: the head ends at a
    // multiple of 8.
    B.TrackMinAlign(8);
    fb::FinishGraphBuffer(B, Root);
  };
  flatbuffers::FlatBufferBuilder Probe(4096);
  BuildHead(Probe, 0);
  const uint64_t HeadBytes = Probe.GetSize();
  flatbuffers::FlatBufferBuilder B(HeadBytes);
  BuildHead(B, HeadBytes);
  assert(B.GetSize() == HeadBytes && "the head's size changed with offsets");

  OS.write(reinterpret_cast<const char *>(B.GetBufferPointer()), B.GetSize());
  TailWriter Out(OS);
  Out.startSection(TasksS.At);
  for (TaskId Old : C.Order) {
    const Task &T = G.task(Old);
    Out.push(fb::Task(T.StartNs, T.DurationNs, T.GapNs, Str(T.Name), T.Lane,
                      T.Layer, T.Correlation, AttrOf(T.Attrs),
                      static_cast<fb::TaskKind>(T.Kind),
                      static_cast<fb::Phase>(T.Phase), T.Flags));
  }
  Out.startSection(EdgesS.At);
  for (const Edge &E : Edges)
    Out.push(fb::Edge(E.Src, E.Dst, static_cast<fb::EdgeKind>(E.Kind)));
  Out.startSection(MemS.At);
  for (const fb::MemoryEvent &M : Mem)
    Out.push(M);
  Out.startSection(OwnersS.At);
  for (const fb::MemoryEventOwner &O : Owners)
    Out.push(O);
  Out.startSection(AttrsS.At);
  for (const fb::TaskAttrs &A : Attrs)
    Out.push(A);
  Out.startSection(NotesS.At);
  for (const fb::TaskNote &N : Notes)
    Out.push(N);
  Out.startSection(StrOffsS.At);
  uint64_t Offset = 0;
  Out.push(Offset);
  for (size_t I = 0; I != Str.size(); ++I) {
    Offset += Str.str(I).size() + 1;
    Out.push(Offset);
  }
  Out.startSection(StrBytesS.At);
  for (size_t I = 0; I != Str.size(); ++I) {
    Out.pushBytes(Str.str(I));
    Out.push('\0');
  }
  return llvm::Error::success();
}
