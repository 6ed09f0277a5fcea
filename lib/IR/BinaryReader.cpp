//===- BinaryReader.cpp - Read the binary .ddir form ----------------------===//
//
// The FlatBuffers Verifier bounds-checks every offset before anything is
// read; after that the reader copies the flat arrays into the Graph (the
// task and edge arrays in one block each when their layouts are dd::Task's
// and dd::Edge's, or not at all when the caller lets the graph use them in
// place). Strings are not copied: the string table points into the buffer,
// which the caller keeps alive (readGraph() hands it to the graph).
//
//===----------------------------------------------------------------------===//

#include "Support/FreshMemory.h"
#include "daydream/IR/BinaryFormat.h"
#include "daydream/IR/GraphBuilder.h"
#include "daydream/IR/Verifier.h"
#include "daydream/IR/ddir_generated.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include <tuple>

using namespace dd;
using llvm::Expected;
using llvm::StringRef;

// The in-memory enums are copies of the schema's; keep them in step.
static_assert(unsigned(fb::TaskKind::MAX) + 1 == NumTaskKinds, "");
static_assert(unsigned(fb::EdgeKind::MAX) + 1 == NumEdgeKinds, "");
static_assert(unsigned(fb::LaneKind::MAX) + 1 == NumLaneKinds, "");
static_assert(unsigned(fb::LaneOrder::MAX) + 1 == NumLaneOrders, "");
static_assert(unsigned(fb::Phase::MAX) + 1 == NumPhases, "");
// docs/IR.md gives struct sizes; a schema edit that changes one is a new
// format version.
static_assert(sizeof(fb::MemoryEvent) == 48, "");
static_assert(sizeof(fb::Edge) == 12, "");

namespace {

template <typename... Ts> llvm::Error fail(const char *Fmt, Ts &&...Vals) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv(Fmt, std::forward<Ts>(Vals)...).str());
}

std::string toStd(const flatbuffers::String *S) {
  return S ? S->str() : std::string();
}

void readMetadata(const fb::Metadata *M, Metadata &Out) {
  if (!M)
    return;
  Out.Producer = toStd(M->producer());
  Out.SourceFormat = toStd(M->source_format());
  if (auto *Devs = M->devices())
    for (const fb::Device *D : *Devs) {
      Device Dev;
      Dev.Index = D->index();
      Dev.Name = toStd(D->name());
      Dev.SmCount = D->sm_count();
      Dev.MemoryBytes = D->memory_bytes();
      Dev.PeakFp32Tflops = D->peak_fp32_tflops();
      Dev.PeakFp16Tflops = D->peak_fp16_tflops();
      Dev.PeakBf16Tflops = D->peak_bf16_tflops();
      Dev.MemoryBandwidthGBps = D->memory_bandwidth_gbps();
      Out.Devices.push_back(std::move(Dev));
    }
  if (auto *Ranks = M->ranks())
    for (const fb::Rank *R : *Ranks)
      Out.Ranks.push_back(
          RankInfo{R->rank(), R->world_size(), toStd(R->host()), R->copy_of()});
  if (auto *Runs = M->pipelines())
    for (const fb::PipelineRun *P : *Runs)
      Out.Pipelines.push_back(PipelineRun{toStd(P->pipeline()),
                                          toStd(P->tool()), toStd(P->input())});
}

template <typename T> size_t sizeOf(const flatbuffers::Vector<T> *V) {
  return V ? V->size() : 0;
}

/// The records of a head vector, none if absent.
template <typename T>
llvm::ArrayRef<T> recordsOf(const flatbuffers::Vector<const T *> *V) {
  if (!V)
    return {};
  return llvm::makeArrayRef(reinterpret_cast<const T *>(V->Data()), V->size());
}

/// The sections of a version 4 file, checked as they are taken: each lies
/// within the file, aligned for its records, and apart from the others (a
/// graph may change records where they lie, and one array must not be
/// another's bytes).
class Sections {
public:
  explicit Sections(StringRef Bytes) : Bytes(Bytes) {}

  /// The \p S's records of type T, or the head vector \p V's: a file has
  /// one or the other (or neither: none).
  template <typename T>
  Expected<llvm::ArrayRef<T>> take(const fb::Section *S,
                                   const flatbuffers::Vector<const T *> *V,
                                   const char *What) {
    if (!S)
      return recordsOf(V);
    if (V)
      return fail("corrupt binary IR: {0}s both in the head and in a section",
                  What);
    return take<T>(S, What);
  }
  /// The same for an array that only a section holds.
  template <typename T>
  Expected<llvm::ArrayRef<T>> take(const fb::Section *S, const char *What) {
    if (!S)
      return llvm::ArrayRef<T>();
    const uint64_t Max = Bytes.size() / sizeof(T);
    if (S->offset() > Bytes.size() || S->count() > Max ||
        S->count() * sizeof(T) > Bytes.size() - S->offset())
      return fail("truncated or corrupt binary IR ({0} bytes): the {1} "
                  "section ({2} records at byte {3}) runs past the end",
                  Bytes.size(), What, S->count(), S->offset());
    const char *At = Bytes.data() + S->offset();
    if (reinterpret_cast<uintptr_t>(At) % alignof(T))
      return fail("corrupt binary IR: the {0} section at byte {1} is "
                  "misaligned",
                  What, S->offset());
    const uint64_t End = S->offset() + S->count() * sizeof(T);
    for (const auto &[From, To, Other] : Taken)
      if (S->count() && From != To && S->offset() < To && From < End)
        return fail("corrupt binary IR: the {0} and {1} sections overlap",
                    Other, What);
    Taken.push_back({S->offset(), End, What});
    return llvm::makeArrayRef(reinterpret_cast<const T *>(At),
                              size_t(S->count()));
  }

private:
  StringRef Bytes;
  std::vector<std::tuple<uint64_t, uint64_t, const char *>> Taken;
};

/// Appends the strings of a version 4 file, \p Text cut at \p Offsets
/// (each string followed by a 0 byte), to \p G's table, unowned.
llvm::Error readStringSections(llvm::ArrayRef<uint64_t> Offsets,
                               llvm::ArrayRef<char> Text, Graph &G) {
  if (Offsets.empty()) {
    if (!Text.empty())
      return fail("corrupt binary IR: string bytes without string offsets");
    return llvm::Error::success();
  }
  if (Offsets.front() != 0 || Offsets.back() != Text.size())
    return fail("corrupt binary IR: string offsets do not span the {0} "
                "string bytes",
                Text.size());
  G.strings().reserve(Offsets.size() - 1);
  for (size_t I = 0; I + 1 != Offsets.size(); ++I) {
    if (Offsets[I + 1] <= Offsets[I] || Offsets[I + 1] > Text.size() ||
        Text[Offsets[I + 1] - 1] != 0)
      return fail("corrupt binary IR: string {0} is not 0-terminated within "
                  "its bounds",
                  I);
    G.strings().appendUnowned(
        StringRef(Text.data() + Offsets[I], Offsets[I + 1] - Offsets[I] - 1));
  }
  return llvm::Error::success();
}

/// The FlatBuffers verifier checks a vector's length prefix but not that its
/// 8-byte structs are 8-byte aligned; reading misaligned ones is undefined.
/// (The builder does not align empty vectors, which is harmless.)
template <typename T> bool isAligned(const flatbuffers::Vector<const T *> *V) {
  return !V || V->size() == 0 ||
         reinterpret_cast<uintptr_t>(V->Data()) % alignof(T) == 0;
}

/// Whether the file's task records are laid out as dd::Task, byte for byte
/// (same field order, widths and padding, and a little-endian host, which
/// FlatBuffers' storage order is): then the task array is taken as it is.
/// Checked on a probe record rather than assumed, so that a schema or
/// struct change falls back to the field-by-field copy instead of reading
/// garbage.
bool sameTaskLayout() {
  static const bool Same = [] {
    if (sizeof(fb::Task) != sizeof(Task))
      return false;
    fb::Task Probe(-1, 2, 3, 4, 5, 6, 7, 8, fb::TaskKind(2), fb::Phase(1),
                   0xABCD);
    Task T;
    std::memcpy(&T, &Probe, sizeof(T));
    return T.StartNs == -1 && T.DurationNs == 2 && T.GapNs == 3 &&
           T.Name == 4 && T.Lane == 5 && T.Layer == 6 && T.Correlation == 7 &&
           T.Attrs == 8 && T.Kind == TaskKind(2) && T.Phase == Phase(1) &&
           T.Flags == 0xABCD;
  }();
  return Same;
}

/// The file's tasks as dd::Tasks: the array itself when the layouts agree
/// (no copy here; Graph::appendTasks() makes the one copy), else a copy
/// converted field by field.
llvm::ArrayRef<Task> asGraphTasks(llvm::ArrayRef<fb::Task> In,
                                  std::vector<Task> &Converted) {
  if (sameTaskLayout())
    return llvm::makeArrayRef(reinterpret_cast<const Task *>(In.data()),
                              In.size());
  Converted.reserve(In.size());
  for (const fb::Task &Rec : In) {
    const fb::Task *T = &Rec;
    Task Tk;
    Tk.StartNs = T->start_ns();
    Tk.DurationNs = T->duration_ns();
    Tk.GapNs = T->gap_ns();
    Tk.Name = T->name();
    Tk.Lane = T->lane();
    Tk.Layer = T->layer();
    Tk.Correlation = T->correlation();
    Tk.Attrs = T->attrs();
    Tk.Kind = static_cast<TaskKind>(T->kind());
    Tk.Phase = static_cast<Phase>(T->phase());
    Tk.Flags = T->flags();
    Converted.push_back(Tk);
  }
  return Converted;
}

/// Whether the file's edge records (version 3) are laid out as dd::Edge,
/// as sameTaskLayout() asks of tasks; the three bytes of padding are not
/// read.
bool sameEdgeLayout() {
  static const bool Same = [] {
    if (sizeof(fb::Edge) != sizeof(Edge) || alignof(fb::Edge) != alignof(Edge))
      return false;
    fb::Edge Probe(0x01020304, 0x05060708, fb::EdgeKind(3));
    Edge E;
    std::memcpy(&E, &Probe, sizeof(E));
    return E.Src == 0x01020304 && E.Dst == 0x05060708 && E.Kind == EdgeKind(3);
  }();
  return Same;
}

/// Reads the edges of \p In, a version-2 file: three parallel arrays.
llvm::Error readEdgeArrays(const fb::Graph &In, Graph &G) {
  auto *Src = In.edge_src();
  auto *Dst = In.edge_dst();
  auto *Kinds = In.edge_kind();
  size_t NumEdges = sizeOf(Src);
  if (sizeOf(Dst) != NumEdges || sizeOf(Kinds) != NumEdges)
    return fail("edge arrays disagree in length (src {0}, dst {1}, kind {2})",
                NumEdges, sizeOf(Dst), sizeOf(Kinds));
  if (In.edges())
    return fail("version 2 file with a version 3 edge array");
  for (size_t I = 0; I != NumEdges; ++I)
    G.addEdge(Src->Get(I), Dst->Get(I), static_cast<EdgeKind>(Kinds->Get(I)));
  return llvm::Error::success();
}

/// Copies \p Records, a file's records, into the graph in runs of a few
/// megabytes with \p Append (which returns NoId or the index of a record
/// it refused). With \p Drop the records lie in a read-only mapping of the
/// file, and each run's pages are handed back to the kernel once copied
/// (the file still holds them): the records are then resident once, in the
/// graph, rather than twice. Returns NoId or the index of the record
/// refused.
template <typename T, typename AppendFn>
uint32_t copyRecords(llvm::ArrayRef<T> Records, bool Drop, AppendFn Append) {
  constexpr size_t Run = (size_t(4) << 20) / sizeof(T);
  for (size_t At = 0; At < Records.size(); At += Run) {
    llvm::ArrayRef<T> Part =
        Records.slice(At, std::min(Run, Records.size() - At));
    if (uint32_t Bad = Append(Part); Bad != NoId)
      return uint32_t(At) + Bad;
    // The pages wholly copied so far; one that a later run shares is
    // dropped with that run.
    if (Drop)
      dropFilePages(Records.data(), Part.data() + Part.size());
  }
  return NoId;
}

/// Room for passes that insert records after \p N read: without it the
/// first insertion copies every record into fresh memory (a third of such
/// a pass's time on a million tasks, half of it on ten million). Half as
/// many again: a recomputed forward (activation-checkpointing of every
/// layer) adds a third of the tasks; edges get as much, since removing a
/// task adds the edges that bypass it. Room never used is never touched,
/// so it costs address space, not memory.
size_t withRoom(size_t N) { return N + N / 2; }

/// Where a graph uses \p Count records of type T that lie at \p At in
/// \p Bytes in place: mapped again with room after them (\p Room is set)
/// where \p MapWithRoom does so, else where they lie in \p Writable.
template <typename T>
T *recordsInPlace(StringRef Bytes, char *Writable, const void *At, size_t Count,
                  MapWithRoomFn MapWithRoom,
                  std::unique_ptr<GrowableFileMapping> &Room) {
  const size_t Offset = static_cast<const char *>(At) - Bytes.data();
  if (MapWithRoom)
    Room = MapWithRoom(Offset, Count * sizeof(T), withRoom(Count) * sizeof(T));
  return reinterpret_cast<T *>(Room ? Room->data() : Writable + Offset);
}

/// Reads the edges of \p In, a version 3 or 4 file: \p Es, one array of
/// structs, used in place when \p Writable (the same bytes as \p Bytes,
/// writable) is given (recordsInPlace()), else copied (with \p Drop, as
/// copyRecords() says).
llvm::Error readEdgeStructs(const fb::Graph &In, llvm::ArrayRef<fb::Edge> Es,
                            StringRef Bytes, char *Writable,
                            MapWithRoomFn MapWithRoom, bool Drop, Graph &G) {
  if (In.edge_src() || In.edge_dst() || In.edge_kind())
    return fail("version 3 file with version 2 edge arrays");
  if (Es.empty())
    return llvm::Error::success();
  if (!sameEdgeLayout()) {
    for (const fb::Edge &E : Es)
      G.addEdge(E.src(), E.dst(), static_cast<EdgeKind>(E.kind()));
    return llvm::Error::success();
  }
  const char *At = reinterpret_cast<const char *>(Es.data());
  if (Writable) {
    std::unique_ptr<GrowableFileMapping> Room;
    Edge *First =
        recordsInPlace<Edge>(Bytes, Writable, At, Es.size(), MapWithRoom, Room);
    GraphBuilder(G).adoptEdges({First, Es.size()}, std::move(Room));
  } else
    copyRecords(
        llvm::ArrayRef<Edge>(reinterpret_cast<const Edge *>(At), Es.size()),
        Drop, [&](llvm::ArrayRef<Edge> Part) {
          GraphBuilder(G).appendEdges(Part);
          return uint32_t(NoId);
        });
  return llvm::Error::success();
}

} // namespace

/// parseBinaryGraph(), adopting the task records in place when \p Writable
/// (the same bytes as \p Bytes, writable) is given (recordsInPlace()), else
/// copying them, and with \p Drop handing the copied pages of \p Bytes, a
/// read-only mapping of a file, back to the kernel (copyRecords()).
static Expected<Graph> parse(StringRef Bytes, char *Writable,
                             MapWithRoomFn MapWithRoom, bool Drop) {
  const auto *Data = reinterpret_cast<const uint8_t *>(Bytes.data());
  if (Bytes.size() < 8 || !fb::GraphBufferHasIdentifier(Data))
    return fail("not a binary .ddir file (no 'DDIR' identifier)");
  // Depth and table limits are generous for metadata; the hot arrays are
  // vectors of structs, which the verifier checks in O(1) each. A version 4
  // file may pass FlatBuffers' 2 GiB: its head lies in the first bytes,
  // and its sections are checked below.
  flatbuffers::Verifier V(
      Data, std::min<size_t>(Bytes.size(), FLATBUFFERS_MAX_BUFFER_SIZE - 1),
      /*max_depth=*/16,
      /*max_tables=*/1u << 24);
  if (!fb::VerifyGraphBuffer(V))
    return fail("truncated or corrupt binary IR ({0} bytes): FlatBuffers "
                "verification failed",
                Bytes.size());
  const fb::Graph *In = fb::GetGraph(Data);
  if (!isAligned(In->tasks()) || !isAligned(In->task_attrs()) ||
      !isAligned(In->lanes()) || !isAligned(In->iterations()) ||
      !isAligned(In->memory_events()) || !isAligned(In->edges()))
    return fail("corrupt binary IR: misaligned array");
  const uint32_t Version = In->version();
  if (Version < OldestBinaryFormatVersion || Version > BinaryFormatVersion)
    return fail("unsupported format version {0} (this build reads versions "
                "{1} to {2})",
                Version, OldestBinaryFormatVersion, BinaryFormatVersion);
  if (Version < 4 &&
      (In->task_section() || In->edge_section() || In->memory_event_section() ||
       In->memory_event_owner_section() || In->task_attr_section() ||
       In->task_note_section() || In->string_offset_section() ||
       In->string_byte_section()))
    return fail("corrupt binary IR: version {0} file with version 4 "
                "sections",
                Version);

  // Each array from its section (version 4) or its head vector.
  Sections Sect(Bytes);
  auto TasksOr = Sect.take(In->task_section(), In->tasks(), "task");
  if (!TasksOr)
    return TasksOr.takeError();
  auto EdgesOr = Sect.take(In->edge_section(), In->edges(), "edge");
  if (!EdgesOr)
    return EdgesOr.takeError();
  auto MemOr = Sect.take(In->memory_event_section(), In->memory_events(),
                         "memory event");
  if (!MemOr)
    return MemOr.takeError();
  auto OwnersOr = Sect.take(In->memory_event_owner_section(),
                            In->memory_event_owners(), "memory event owner");
  if (!OwnersOr)
    return OwnersOr.takeError();
  auto AttrsOr =
      Sect.take(In->task_attr_section(), In->task_attrs(), "task attribute");
  if (!AttrsOr)
    return AttrsOr.takeError();
  auto NotesOr =
      Sect.take(In->task_note_section(), In->task_notes(), "task note");
  if (!NotesOr)
    return NotesOr.takeError();
  auto StrOffsOr =
      Sect.take<uint64_t>(In->string_offset_section(), "string offset");
  if (!StrOffsOr)
    return StrOffsOr.takeError();
  auto StrBytesOr = Sect.take<char>(In->string_byte_section(), "string byte");
  if (!StrBytesOr)
    return StrBytesOr.takeError();
  const llvm::ArrayRef<fb::Task> TaskRecs = *TasksOr;
  const llvm::ArrayRef<fb::MemoryEvent> Mem = *MemOr;
  const llvm::ArrayRef<fb::MemoryEventOwner> Owners = *OwnersOr;
  const bool HasMem = In->memory_events() || In->memory_event_section();
  const bool HasOwners =
      In->memory_event_owners() || In->memory_event_owner_section();

  Graph G;
  readMetadata(In->metadata(), G.metadata());

  if (In->string_offset_section() || In->string_byte_section()) {
    if (In->strings())
      return fail("corrupt binary IR: strings both in the head and in a "
                  "section");
    if (llvm::Error E = readStringSections(*StrOffsOr, *StrBytesOr, G))
      return std::move(E);
  } else if (auto *Strs = In->strings()) {
    G.strings().reserve(Strs->size());
    for (const flatbuffers::String *S : *Strs)
      G.strings().appendUnowned(S ? StringRef(S->c_str(), S->size())
                                  : StringRef());
  }
  if (auto *Lanes = In->lanes())
    for (const fb::Lane *L : *Lanes)
      G.addLane(Lane{L->native_id(), L->name(), L->rank(), L->device(),
                     static_cast<LaneKind>(L->kind()),
                     static_cast<LaneOrder>(L->order())});
  if (auto *Layers = In->layers())
    for (const fb::Layer *L : *Layers)
      G.addLayer(Layer{L->name(), L->parent()});
  if (auto *Its = In->iterations())
    for (const fb::Iteration *I : *Its)
      G.iterationsMut().push_back(
          Iteration{I->start_ns(), I->measured_ns(), I->name(), I->rank()});

  const size_t NumEdges =
      Version == 2 ? sizeOf(In->edge_src()) : EdgesOr->size();
  // Records used in place borrow their room instead (TaskStore.h).
  G.reserve(withRoom(TaskRecs.size()), withRoom(NumEdges));
  if (!TaskRecs.empty()) {
    // The verifier's checks of each task, made while the task is linked
    // (verifyAsRead() then skips them): strings, lanes and layers are read,
    // and the attribute records are counted.
    const TaskFieldBounds Bounds{G.strings().size(), G.numLanes(),
                                 G.numLayers(), AttrsOr->size()};
    std::vector<Task> Converted;
    llvm::ArrayRef<Task> Records;
    uint32_t Bad;
    if (Writable && sameTaskLayout()) {
      std::unique_ptr<GrowableFileMapping> Room;
      Task *First = recordsInPlace<Task>(Bytes, Writable, TaskRecs.data(),
                                         TaskRecs.size(), MapWithRoom, Room);
      Records = {First, TaskRecs.size()};
      Bad = GraphBuilder(G).adoptTasks({First, TaskRecs.size()}, &Bounds,
                                       std::move(Room));
    } else {
      Records = asGraphTasks(TaskRecs, Converted);
      // Converted records are the reader's own memory: nothing to drop.
      Bad = copyRecords(Records, Drop && Converted.empty(),
                        [&](llvm::ArrayRef<Task> Part) {
                          return GraphBuilder(G).appendTasks(Part, &Bounds);
                        });
    }
    if (Bad != NoId) {
      const Task &Tk = Records[Bad];
      if (Tk.Lane >= G.numLanes())
        return fail("task %{0}: lane {1} out of range ({2} lanes)", Bad,
                    Tk.Lane, G.numLanes());
      return describeBadTask(G, Bad, Tk);
    }
  }
  for (const fb::TaskAttrs &A : *AttrsOr) {
    TaskAttrs TA;
    TA.Bytes = A.bytes();
    TA.Flops = A.flops();
    TA.Grid[0] = A.grid_x();
    TA.Grid[1] = A.grid_y();
    TA.Grid[2] = A.grid_z();
    TA.Block[0] = A.block_x();
    TA.Block[1] = A.block_y();
    TA.Block[2] = A.block_z();
    TA.SharedMemBytes = A.shared_mem_bytes();
    TA.RegistersPerThread = A.registers_per_thread();
    TA.CopyKind = A.copy_kind();
    TA.DType = A.dtype();
    GraphBuilder(G).addAttrSlot(TA);
  }
  for (const fb::TaskNote &N : *NotesOr)
    G.addNote(TaskNote{N.task(), N.key(), N.value()});
  if (llvm::Error E = Version == 2
                          ? readEdgeArrays(*In, G)
                          : readEdgeStructs(*In, *EdgesOr, Bytes, Writable,
                                            MapWithRoom, Drop, G))
    return std::move(E);
  // Absent in files written before memory events existed: those have none.
  // Lanes are checked by the semantic verifier, as nothing here needs them.
  if (HasMem) {
    G.reserveMemoryEvents(Mem.size());
    for (const fb::MemoryEvent &E : Mem)
      G.addMemoryEvent(MemoryEvent{E.time_ns(), E.bytes(), E.total_allocated(),
                                   E.total_reserved(), E.address(), E.lane(),
                                   E.device()});
    // What passes said of the events, where any did; the tasks and
    // categories are checked by the semantic verifier.
    if (HasOwners) {
      if (Owners.size() != Mem.size())
        return fail("{0} memory event owners for {1} memory events",
                    Owners.size(), Mem.size());
      llvm::MutableArrayRef<MemoryEvent> Events = G.memoryEventsMut();
      for (size_t I = 0; I != Events.size(); ++I) {
        Events[I].Task = Owners[I].task();
        Events[I].Category = Owners[I].category();
        Events[I].Flags = Owners[I].flags();
      }
    }
  } else if (HasOwners) {
    return fail("memory event owners without memory events");
  }
  return std::move(G);
}

Expected<Graph> dd::parseBinaryGraph(StringRef Bytes) {
  return parse(Bytes, nullptr, nullptr, /*Drop=*/false);
}

Expected<Graph> dd::parseBinaryGraphInPlace(llvm::MutableArrayRef<char> Bytes,
                                            MapWithRoomFn MapWithRoom) {
  return parse(StringRef(Bytes.data(), Bytes.size()), Bytes.data(), MapWithRoom,
               /*Drop=*/false);
}

Expected<Graph> dd::parseMappedBinaryGraph(StringRef Bytes) {
  return parse(Bytes, nullptr, nullptr, /*Drop=*/true);
}
