//===- BinaryFormatTest.cpp - Binary .ddir round trip and rejection -------===//

#include "daydream/IR/BinaryFormat.h"
#include "GraphBuilder.h"
#include "IRTestUtil.h"
#include "daydream/IR/IRReader.h"
#include "daydream/IR/TextFormat.h"
#include "daydream/IR/Verifier.h"
#include "daydream/IR/ddir_generated.h"

#include "gtest/gtest.h"

#include <functional>

#include <fcntl.h>
#include <unistd.h>

using namespace dd;
using namespace dd::test;

namespace {

std::string parseError(llvm::StringRef Bytes) {
  auto G = parseBinaryGraph(Bytes);
  return G ? "ok" : llvm::toString(G.takeError());
}

/// A graph that uses every field of the format. \p ShuffleMemory adds the
/// same memory events in another order.
Graph richGraph(bool ShuffleMemory = false) {
  Graph G;
  Metadata &M = G.metadata();
  M.Producer = "unit test";
  M.SourceFormat = "synthetic";
  Device D;
  D.Index = 1;
  D.Name = "GPU";
  D.SmCount = 108;
  D.MemoryBytes = 1ull << 35;
  D.PeakFp32Tflops = 19.5;
  D.PeakFp16Tflops = 312;
  D.PeakBf16Tflops = 312;
  D.MemoryBandwidthGBps = 1555.5;
  M.Devices.push_back(D);
  M.Ranks.push_back(RankInfo{0, 2, "host-a"});
  LaneId Cpu = addLane(G, "cpu");
  Lane Gpu;
  Gpu.Name = G.intern("stream 7");
  Gpu.Kind = LaneKind::GpuStream;
  Gpu.Order = LaneOrder::ByPriority;
  Gpu.NativeId = 7;
  Gpu.Rank = 0;
  Gpu.Device = 1;
  LaneId S = G.addLane(Gpu);
  LayerId L0 = G.addLayer(Layer{G.intern("model"), NoId});
  LayerId L1 = G.addLayer(Layer{G.intern("model.fc"), L0});
  G.iterationsMut().push_back(Iteration{100, 5000, G.intern("step#1")});
  TaskId Launch =
      addTask(G, Cpu, "cudaLaunchKernel", 100, 5, TaskKind::Runtime, 3);
  TaskId K = addTask(G, S, "gemm", 110, 50, TaskKind::Kernel);
  G.task(K).Layer = L1;
  G.task(K).Phase = Phase::Backward;
  G.task(K).Correlation = 77;
  G.task(K).Flags = TF_Synthetic;
  G.task(Launch).Correlation = 77;
  TaskAttrs A;
  A.Bytes = 1 << 20;
  A.Flops = 1ull << 40;
  A.Grid[0] = 4;
  A.Block[0] = 256;
  A.SharedMemBytes = 4096;
  A.RegistersPerThread = 64;
  A.CopyKind = 0;
  G.setAttrs(K, A);
  G.addNote(K, "shape", "[1,2]");
  TaskId Sync =
      addTask(G, Cpu, "cudaDeviceSynchronize", 120, 1, TaskKind::Sync);
  G.addEdge(Launch, K, EdgeKind::Launch);
  G.addEdge(K, Sync, EdgeKind::Sync);
  // Out of time order, so that writing has to sort them; the two at 105
  // must keep the order they were added in.
  MemoryEvent Free{130, -4096, 0, 1 << 20, 0x7f0000, Cpu, 1};
  MemoryEvent Alloc{105, 4096, 4096, 1 << 20, 0x7f0000, Cpu, 1};
  MemoryEvent Host{105, 64, -1, -1, 0x1000, NoId, -1};
  for (const MemoryEvent &E : ShuffleMemory
                                  ? std::vector<MemoryEvent>{Alloc, Host, Free}
                                  : std::vector<MemoryEvent>{Free, Alloc, Host})
    G.addMemoryEvent(E);
  return G;
}

TEST(BinaryFormatTest, RoundTripIsByteExact) {
  Graph G = richGraph();
  std::string B1 = toBinary(G);
  auto G2 = parseBinaryGraph(B1);
  ASSERT_TRUE(bool(G2)) << llvm::toString(G2.takeError());
  EXPECT_FALSE(bool(verifyGraph(*G2)));
  EXPECT_EQ(toBinary(*G2), B1);
  EXPECT_EQ(toText(*G2), toText(G));
}

TEST(BinaryFormatTest, FieldsSurvive) {
  Graph G = richGraph();
  std::string B = toBinary(G);
  auto G2 = parseBinaryGraph(B);
  ASSERT_TRUE(bool(G2));
  const Metadata &M = G2->metadata();
  EXPECT_EQ(M.Producer, "unit test");
  ASSERT_EQ(M.Devices.size(), 1u);
  EXPECT_EQ(M.Devices[0].MemoryBandwidthGBps, 1555.5);
  EXPECT_EQ(M.Ranks[0].Host, "host-a");
  EXPECT_EQ(G2->lane(1).Order, LaneOrder::ByPriority);
  EXPECT_EQ(G2->layer(1).Parent, 0u);
  EXPECT_EQ(G2->iterations()[0].MeasuredNs, 5000);
  const Task &K = G2->task(1);
  EXPECT_EQ(G2->str(K.Name), "gemm");
  EXPECT_EQ(K.Phase, Phase::Backward);
  EXPECT_EQ(K.Flags, TF_Synthetic);
  ASSERT_NE(G2->attrs(1), nullptr);
  EXPECT_EQ(G2->attrs(1)->RegistersPerThread, 64);
  EXPECT_EQ(G2->task(0).GapNs, 3);
  ASSERT_EQ(G2->edgeSlots().size(), 2u);
  EXPECT_EQ(G2->edgeSlots()[1].Kind, EdgeKind::Sync);
  ASSERT_EQ(G2->memoryEvents().size(), 3u);
  EXPECT_EQ(G2->memoryEvents()[0],
            (MemoryEvent{105, 4096, 4096, 1 << 20, 0x7f0000, 0, 1}));
  EXPECT_EQ(G2->memoryEvents()[1],
            (MemoryEvent{105, 64, -1, -1, 0x1000, NoId, -1}));
  EXPECT_EQ(G2->memoryEvents()[2],
            (MemoryEvent{130, -4096, 0, 1 << 20, 0x7f0000, 0, 1}));
}

TEST(BinaryFormatTest, MemoryEventOrderDoesNotDependOnInsertion) {
  EXPECT_EQ(toBinary(richGraph(/*ShuffleMemory=*/true)), toBinary(richGraph()));
  EXPECT_EQ(toText(richGraph(/*ShuffleMemory=*/true)), toText(richGraph()));
}

TEST(BinaryFormatTest, MemoryEventWithBadLaneFailsVerification) {
  flatbuffers::FlatBufferBuilder FB;
  std::vector<fb::MemoryEvent> Mem = {
      fb::MemoryEvent(10, 256, -1, -1, 0, NoId, 0),
      fb::MemoryEvent(20, -256, -1, -1, 0, /*lane=*/9, 0)};
  std::vector<flatbuffers::Offset<flatbuffers::String>> Strs = {
      FB.CreateString("t")};
  std::vector<fb::Lane> Lanes = {fb::Lane(1, 0, -1, -1, fb::LaneKind::CpuThread,
                                          fb::LaneOrder::InOrder, 0)};
  fb::FinishGraphBuffer(
      FB, fb::CreateGraph(FB, BinaryFormatVersion, 0, FB.CreateVector(Strs),
                          FB.CreateVectorOfStructs(Lanes), 0, 0, 0, 0, 0, 0, 0,
                          0, FB.CreateVectorOfStructs(Mem)));
  std::string B(reinterpret_cast<const char *>(FB.GetBufferPointer()),
                FB.GetSize());
  auto G = parseBinaryGraph(B);
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  llvm::Error E = verifyGraph(*G);
  ASSERT_TRUE(bool(E));
  EXPECT_EQ(llvm::toString(std::move(E)),
            "memory event 1 at 20: lane 9 out of range (1 lanes)");
}

TEST(BinaryFormatTest, FilesWithoutMemoryEventsStillRead) {
  // What a writer from before memory events produced: no such field.
  flatbuffers::FlatBufferBuilder FB;
  fb::FinishGraphBuffer(FB, fb::CreateGraph(FB, BinaryFormatVersion));
  std::string B(reinterpret_cast<const char *>(FB.GetBufferPointer()),
                FB.GetSize());
  auto G = parseBinaryGraph(B);
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  EXPECT_TRUE(G->memoryEvents().empty());
  EXPECT_FALSE(bool(verifyGraph(*G)));
}

TEST(BinaryFormatTest, RemovedTasksAreCompactedAway) {
  Graph G = richGraph();
  G.removeTask(2);
  const std::string Bytes = toBinary(G); // G2's strings point into it
  auto G2 = parseBinaryGraph(Bytes);
  ASSERT_TRUE(bool(G2));
  EXPECT_EQ(G2->numTaskSlots(), 2u);
  EXPECT_EQ(G2->edgeSlots().size(), 1u);
  // The name of the removed task is no longer in the string table.
  for (size_t I = 0; I != G2->strings().size(); ++I)
    EXPECT_NE(G2->str(I), "cudaDeviceSynchronize");
}

TEST(BinaryFormatTest, RejectsMissingIdentifier) {
  EXPECT_EQ(parseError("hello world, this is not ddir"),
            "not a binary .ddir file (no 'DDIR' identifier)");
}

TEST(BinaryFormatTest, RejectsEveryTruncation) {
  std::string B = toBinary(richGraph());
  for (size_t Len = 8; Len < B.size(); ++Len) {
    std::string Cut = B.substr(0, Len); // aligned copy
    auto G = parseBinaryGraph(Cut);
    if (G) {
      // A prefix that still verifies must at least not break the verifier.
      llvm::consumeError(verifyGraph(*G));
      continue;
    }
    llvm::consumeError(G.takeError());
  }
  std::string Half = B.substr(0, B.size() / 2);
  EXPECT_NE(parseError(Half).find("truncated or corrupt binary IR"),
            std::string::npos);
}

TEST(BinaryFormatTest, RejectsWrongVersion) {
  flatbuffers::FlatBufferBuilder FB;
  fb::FinishGraphBuffer(FB, fb::CreateGraph(FB, /*version=*/99));
  std::string B(reinterpret_cast<const char *>(FB.GetBufferPointer()),
                FB.GetSize());
  EXPECT_EQ(parseError(B), "unsupported format version 99 (this build reads "
                           "versions 2 to " +
                               std::to_string(BinaryFormatVersion) + ")");
}

TEST(BinaryFormatTest, RejectsMismatchedEdgeArrays) {
  // Version 2's three edge arrays.
  flatbuffers::FlatBufferBuilder FB;
  std::vector<uint32_t> Two = {0, 1}, One = {1};
  std::vector<fb::EdgeKind> Kinds = {fb::EdgeKind::Data, fb::EdgeKind::Data};
  fb::FinishGraphBuffer(FB, fb::CreateGraph(FB, /*version=*/2, 0, 0, 0, 0, 0, 0,
                                            0, 0, FB.CreateVector(Two),
                                            FB.CreateVector(One),
                                            FB.CreateVector(Kinds)));
  std::string B(reinterpret_cast<const char *>(FB.GetBufferPointer()),
                FB.GetSize());
  EXPECT_EQ(parseError(B),
            "edge arrays disagree in length (src 2, dst 1, kind 2)");
}

TEST(BinaryFormatTest, RejectsTaskOnMissingLane) {
  flatbuffers::FlatBufferBuilder FB;
  std::vector<fb::Task> Tasks = {fb::Task(0, 1, 0, 0, /*lane=*/5, NoId, 0, NoId,
                                          fb::TaskKind::Kernel,
                                          fb::Phase::Other, 0)};
  fb::FinishGraphBuffer(FB,
                        fb::CreateGraph(FB, BinaryFormatVersion, 0, 0, 0, 0, 0,
                                        FB.CreateVectorOfStructs(Tasks)));
  std::string B(reinterpret_cast<const char *>(FB.GetBufferPointer()),
                FB.GetSize());
  EXPECT_EQ(parseError(B), "task %0: lane 5 out of range (0 lanes)");
}

// The reader checks each task's fields as it links the task, with the
// verifier's messages (verifyAsRead() then does not look again): a graph
// the verifier rejects for a task field is rejected by the reader, whether
// the tasks are copied or used in place. The writer takes valid graphs
// only, so the field is broken in the written bytes, where the task records
// lie as dd::Task (what reading in place relies on too).
TEST(BinaryFormatTest, RejectsBadTaskFieldsAsTheVerifierDoes) {
  auto Make = [] {
    Graph G;
    LaneId L = addLane(G, "cpu");
    addTask(G, L, "a", 0, 10);
    addTask(G, L, "b", 10, 10);
    return G;
  };
  const std::string Bytes = toBinary(Make());
  const size_t At = fb::GetGraph(Bytes.data())->task_section()->offset();
  const std::pair<const char *, std::function<void(Task &)>> Cases[] = {
      {"task %1 'b': layer 3 out of range (0 layers)",
       [](Task &T) { T.Layer = 3; }},
      {"task %1 'b': attributes 0 out of range (0 entries)",
       [](Task &T) { T.Attrs = 0; }},
      {"task %1 'b': negative duration -4", [](Task &T) { T.DurationNs = -4; }},
      {"task %1 'b': negative gap -1", [](Task &T) { T.GapNs = -1; }},
      {"task %1 'b': unknown phase 9", [](Task &T) { T.Phase = Phase(9); }},
      {"task %1 'b': unknown task kind 8",
       [](Task &T) { T.Kind = TaskKind(8); }},
      {"task %1: name 99 out of range (3 strings)",
       [](Task &T) { T.Name = 99; }},
  };
  for (const auto &[Message, Break] : Cases) {
    SCOPED_TRACE(Message);
    Graph G = Make();
    Break(G.task(1));
    llvm::Error V = verifyGraph(G);
    ASSERT_TRUE(bool(V));
    EXPECT_EQ(llvm::toString(std::move(V)), Message);
    std::string Bad = Bytes;
    Break(reinterpret_cast<Task *>(&Bad[At])[1]);
    EXPECT_EQ(parseError(Bad), Message);
    llvm::Expected<Graph> InPlace = parseBinaryGraphInPlace(
        llvm::MutableArrayRef<char>(&Bad[0], Bad.size()));
    ASSERT_FALSE(bool(InPlace));
    EXPECT_EQ(llvm::toString(InPlace.takeError()), Message);
  }
  // Unbroken, it reads and passes the rest of the checks.
  llvm::Expected<Graph> R = parseBinaryGraph(Bytes);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  llvm::Error V = verifyAsRead(*R);
  EXPECT_FALSE(bool(V)) << llvm::toString(std::move(V));
}

} // namespace

namespace {

TEST(BinaryFormatTest, EqualAttributesAreStoredOnce) {
  Graph G;
  LaneId S = addLane(G, "stream", LaneKind::GpuStream);
  TaskAttrs A;
  A.Grid[0] = 8;
  A.Block[0] = 128;
  TaskAttrs B = A;
  B.RegistersPerThread = 32;
  for (const TaskAttrs *Each : {&A, &B, &A, &A})
    G.setAttrs(addTask(G, S, "k", 0, 1, TaskKind::Kernel), *Each);
  const std::string Bytes = toBinary(G); // G2's strings point into it
  auto G2 = parseBinaryGraph(Bytes);
  ASSERT_TRUE(bool(G2));
  EXPECT_EQ(G2->attrSlots().size(), 2u);
  EXPECT_EQ(*G2->attrs(0), A);
  EXPECT_EQ(*G2->attrs(1), B);
  EXPECT_EQ(*G2->attrs(3), A);
  EXPECT_EQ(G2->task(0).Attrs, G2->task(3).Attrs);
}

} // namespace

namespace {

/// One lane, two tasks and an edge between them, with the edge stored as
/// version \p Version stores edges (2: three arrays, 3: structs), or both
/// ways with \p Both.
std::string twoTaskFile(uint32_t Version, bool Both = false,
                        fb::EdgeKind Kind = fb::EdgeKind::Launch) {
  flatbuffers::FlatBufferBuilder FB;
  std::vector<flatbuffers::Offset<flatbuffers::String>> Strs = {
      FB.CreateString("t")};
  std::vector<fb::Lane> Lanes = {fb::Lane(1, 0, -1, -1, fb::LaneKind::CpuThread,
                                          fb::LaneOrder::InOrder, 0)};
  std::vector<fb::Task> Tasks;
  for (int64_t I = 0; I != 2; ++I)
    Tasks.emplace_back(10 * I, 5, 0, 0, 0, NoId, 0, NoId, fb::TaskKind::CpuOp,
                       fb::Phase::Other, 0);
  std::vector<uint32_t> Src = {0}, Dst = {1};
  std::vector<fb::EdgeKind> Kinds = {Kind};
  std::vector<fb::Edge> Edges = {fb::Edge(0, 1, Kind)};
  const bool Old = Version == 2 || Both, New = Version == 3 || Both;
  fb::FinishGraphBuffer(
      FB, fb::CreateGraph(FB, Version, 0, FB.CreateVector(Strs),
                          FB.CreateVectorOfStructs(Lanes), 0, 0,
                          FB.CreateVectorOfStructs(Tasks), 0, 0,
                          Old ? FB.CreateVector(Src) : 0,
                          Old ? FB.CreateVector(Dst) : 0,
                          Old ? FB.CreateVector(Kinds) : 0, 0,
                          New ? FB.CreateVectorOfStructs(Edges) : 0));
  return std::string(reinterpret_cast<const char *>(FB.GetBufferPointer()),
                     FB.GetSize());
}

TEST(BinaryFormatTest, Version2FilesStillRead) {
  for (uint32_t Version : {2u, 3u}) {
    const std::string File = twoTaskFile(Version); // G's strings point here
    auto G = parseBinaryGraph(File);
    ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
    EXPECT_FALSE(bool(verifyGraph(*G)));
    ASSERT_EQ(G->edgeSlots().size(), 1u);
    EXPECT_EQ(G->edgeSlots()[0].Src, 0u);
    EXPECT_EQ(G->edgeSlots()[0].Dst, 1u);
    EXPECT_EQ(G->edgeSlots()[0].Kind, EdgeKind::Launch);
  }
  // Written back, a version-2 graph is a version-4 file like any other.
  // The graphs' strings point into the buffers they were parsed from.
  const std::string OldFile = twoTaskFile(2), NewFile = twoTaskFile(3);
  auto Old = parseBinaryGraph(OldFile);
  auto New = parseBinaryGraph(NewFile);
  ASSERT_TRUE(Old && New);
  std::string Bytes = toBinary(*Old);
  EXPECT_EQ(Bytes, toBinary(*New));
  EXPECT_EQ(fb::GetGraph(Bytes.data())->version(), BinaryFormatVersion);
}

TEST(BinaryFormatTest, RejectsEdgesStoredBothWays) {
  EXPECT_EQ(parseError(twoTaskFile(2, /*Both=*/true)),
            "version 2 file with a version 3 edge array");
  EXPECT_EQ(parseError(twoTaskFile(3, /*Both=*/true)),
            "version 3 file with version 2 edge arrays");
}

TEST(BinaryFormatTest, UnknownEdgeKindFailsVerification) {
  const std::string File = twoTaskFile(3, false, fb::EdgeKind(200));
  auto G = parseBinaryGraph(File);
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  llvm::Error E = verifyGraph(*G);
  ASSERT_TRUE(bool(E));
  EXPECT_EQ(llvm::toString(std::move(E)),
            "edge %0 -> %1: unknown edge kind 200");
}

TEST(BinaryFormatTest, EdgesAreUsedInPlaceUntilOneIsAdded) {
  std::string Bytes = toBinary(richGraph());
  std::vector<char> Mine(Bytes.begin(), Bytes.end());
  auto G = parseBinaryGraphInPlace(Mine);
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  ASSERT_EQ(G->edgeSlots().size(), 2u);
  const char *At = reinterpret_cast<const char *>(G->edgeSlots().data());
  EXPECT_TRUE(At >= Mine.data() && At < Mine.data() + Mine.size());
  EXPECT_EQ(toBinary(*G), Bytes);
  // Adding an edge copies them out first; the buffer is left as it was.
  G->addEdge(0, 2, EdgeKind::ProgramOrder);
  EXPECT_NE(reinterpret_cast<const char *>(G->edgeSlots().data()), At);
  ASSERT_EQ(G->edgeSlots().size(), 3u);
  EXPECT_EQ(G->edgeSlots()[1].Kind, EdgeKind::Sync);
  EXPECT_EQ(std::string(Mine.begin(), Mine.end()), Bytes);
}

} // namespace

// Version 4: the arrays that grow with the graph lie in sections after the
// FlatBuffers head, at 64-bit offsets.
namespace {

/// \p Bytes's head, to change a section's place in a test; the generated
/// accessors are read-only, and a Section is a plain struct in the buffer.
fb::Section *section(std::string &Bytes,
                     const fb::Section *(fb::Graph::*Which)() const) {
  return const_cast<fb::Section *>((fb::GetGraph(Bytes.data())->*Which)());
}

/// \p G as a version 3 writer laid it out: every array a vector inside the
/// FlatBuffers buffer. \p G is as read, so in canonical order already.
std::string toVersion3(const Graph &G) {
  flatbuffers::FlatBufferBuilder FB;
  std::vector<flatbuffers::Offset<flatbuffers::String>> Strs;
  for (size_t I = 0; I != G.strings().size(); ++I)
    Strs.push_back(FB.CreateString(G.str(I).str()));
  std::vector<fb::Lane> Lanes;
  for (const Lane &L : G.lanes())
    Lanes.emplace_back(L.NativeId, L.Name, L.Rank, L.Device,
                       fb::LaneKind(L.Kind), fb::LaneOrder(L.Order), 0);
  std::vector<fb::Layer> Layers;
  for (const Layer &L : G.layers())
    Layers.emplace_back(L.Name, L.Parent);
  std::vector<fb::Iteration> Its;
  for (const Iteration &I : G.iterations())
    Its.emplace_back(I.StartNs, I.MeasuredNs, I.Name, I.Rank);
  std::vector<fb::Task> Tasks;
  for (const Task &T : G.taskSlots())
    Tasks.emplace_back(T.StartNs, T.DurationNs, T.GapNs, T.Name, T.Lane,
                       T.Layer, T.Correlation, T.Attrs, fb::TaskKind(T.Kind),
                       fb::Phase(T.Phase), T.Flags);
  std::vector<fb::TaskAttrs> Attrs;
  for (const TaskAttrs &A : G.attrSlots())
    Attrs.emplace_back(A.Bytes, A.Flops, A.Grid[0], A.Grid[1], A.Grid[2],
                       A.Block[0], A.Block[1], A.Block[2], A.SharedMemBytes,
                       A.RegistersPerThread, A.CopyKind, A.DType);
  std::vector<fb::TaskNote> Notes;
  for (const TaskNote &N : G.notes())
    Notes.emplace_back(N.Task, N.Key, N.Value);
  std::vector<fb::Edge> Edges;
  for (const Edge &E : G.edgeSlots())
    Edges.emplace_back(E.Src, E.Dst, fb::EdgeKind(E.Kind));
  std::vector<fb::MemoryEvent> Mem;
  for (const MemoryEvent &E : G.memoryEvents())
    Mem.emplace_back(E.TimeNs, E.Bytes, E.TotalAllocated, E.TotalReserved,
                     E.Address, E.Lane, E.Device);
  const Metadata &M = G.metadata();
  std::vector<flatbuffers::Offset<fb::Device>> Devs;
  for (const Device &D : M.Devices)
    Devs.push_back(fb::CreateDevice(FB, D.Index, FB.CreateString(D.Name),
                                    D.SmCount, D.MemoryBytes, D.PeakFp32Tflops,
                                    D.PeakFp16Tflops, D.PeakBf16Tflops,
                                    D.MemoryBandwidthGBps));
  std::vector<flatbuffers::Offset<fb::Rank>> Ranks;
  for (const RankInfo &R : M.Ranks)
    Ranks.push_back(fb::CreateRank(FB, R.Rank, R.WorldSize,
                                   FB.CreateString(R.Host), R.CopyOf));
  auto Meta = fb::CreateMetadata(FB, FB.CreateString(M.Producer),
                                 FB.CreateString(M.SourceFormat),
                                 FB.CreateVector(Devs), FB.CreateVector(Ranks));
  fb::FinishGraphBuffer(
      FB, fb::CreateGraph(
              FB, /*version=*/3, Meta, FB.CreateVector(Strs),
              FB.CreateVectorOfStructs(Lanes), FB.CreateVectorOfStructs(Layers),
              FB.CreateVectorOfStructs(Its), FB.CreateVectorOfStructs(Tasks),
              FB.CreateVectorOfStructs(Attrs), FB.CreateVectorOfStructs(Notes),
              0, 0, 0, FB.CreateVectorOfStructs(Mem),
              FB.CreateVectorOfStructs(Edges)));
  return std::string(reinterpret_cast<const char *>(FB.GetBufferPointer()),
                     FB.GetSize());
}

TEST(BinarySectionsTest, Version3FilesStillRead) {
  const std::string Bytes = toBinary(richGraph());
  auto G = parseBinaryGraph(Bytes);
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  const std::string Old = toVersion3(*G);
  ASSERT_EQ(fb::GetGraph(Old.data())->task_section(), nullptr);
  auto FromOld = parseBinaryGraph(Old);
  ASSERT_TRUE(bool(FromOld)) << llvm::toString(FromOld.takeError());
  EXPECT_FALSE(bool(verifyGraph(*FromOld)));
  EXPECT_EQ(toText(*FromOld), toText(richGraph()));
  // Written back, it is the version 4 file.
  EXPECT_EQ(toBinary(*FromOld), Bytes);
}

TEST(BinarySectionsTest, EveryGrowingArrayIsASection) {
  const std::string Bytes = toBinary(richGraph());
  const fb::Graph *H = fb::GetGraph(Bytes.data());
  EXPECT_EQ(H->version(), 4u);
  EXPECT_EQ(H->tasks(), nullptr);
  EXPECT_EQ(H->edges(), nullptr);
  EXPECT_EQ(H->strings(), nullptr);
  EXPECT_EQ(H->memory_events(), nullptr);
  EXPECT_EQ(H->task_attrs(), nullptr);
  EXPECT_EQ(H->task_notes(), nullptr);
  ASSERT_NE(H->task_section(), nullptr);
  EXPECT_EQ(H->task_section()->count(), 3u);
  EXPECT_EQ(H->edge_section()->count(), 2u);
  EXPECT_EQ(H->memory_event_section()->count(), 3u);
  EXPECT_EQ(H->task_attr_section()->count(), 1u);
  EXPECT_EQ(H->task_note_section()->count(), 1u);
  EXPECT_EQ(H->memory_event_owner_section(), nullptr); // recorded events only
  auto G = parseBinaryGraph(Bytes);
  ASSERT_TRUE(bool(G));
  EXPECT_EQ(H->string_offset_section()->count(), G->strings().size() + 1);
  // Each section starts at a multiple of 8, past the head.
  for (const fb::Section *S :
       {H->task_section(), H->edge_section(), H->memory_event_section(),
        H->task_attr_section(), H->task_note_section(),
        H->string_offset_section(), H->string_byte_section()}) {
    EXPECT_EQ(S->offset() % 8, 0u);
    EXPECT_LE(S->offset(), Bytes.size());
  }
}

// A section may lie past FlatBuffers' 2 GiB: here the strings at 3 GiB, in
// a sparse file (a hole before them), read the three ways tools read.
TEST(BinarySectionsTest, SectionsPast2GiBAreRead) {
  std::string Bytes = toBinary(richGraph());
  fb::Section *Strings = section(Bytes, &fb::Graph::string_byte_section);
  const std::string Text = Bytes.substr(Strings->offset(), Strings->count());
  const uint64_t Far = uint64_t(3) << 30;
  *Strings = fb::Section(Far, Text.size());
  const std::string Path = writeTempFile(Bytes, "far", "ddir");
  int FD = ::open(Path.c_str(), O_WRONLY);
  ASSERT_GE(FD, 0);
  ASSERT_EQ(::pwrite(FD, Text.data(), Text.size(), off_t(Far)),
            ssize_t(Text.size()));
  ::close(FD);
  for (GraphUse Use :
       {GraphUse::Copy, GraphUse::ReadInPlace, GraphUse::Change}) {
    llvm::Expected<Graph> G = readGraphFile(Path, Use);
    ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
    EXPECT_EQ(toText(*G), toText(richGraph()));
  }
  llvm::sys::fs::remove(Path);
}

TEST(BinarySectionsTest, RejectsSectionsPastTheEnd) {
  std::string Bytes = toBinary(richGraph());
  fb::Section *Tasks = section(Bytes, &fb::Graph::task_section);
  *Tasks = fb::Section(Bytes.size() - 40, 1);
  EXPECT_EQ(parseError(Bytes),
            "truncated or corrupt binary IR (" + std::to_string(Bytes.size()) +
                " bytes): the task section (1 records at byte " +
                std::to_string(Bytes.size() - 40) + ") runs past the end");
  // A count so large that its bytes overflow 64 bits.
  *Tasks = fb::Section(8, uint64_t(1) << 60);
  EXPECT_NE(parseError(Bytes).find("the task section"), std::string::npos);
  // Every truncation of a file is refused or reads as a smaller graph.
  const std::string Whole = toBinary(richGraph());
  for (size_t Len = 8; Len < Whole.size(); Len += 8) {
    std::string Cut = Whole.substr(0, Len);
    auto G = parseBinaryGraph(Cut);
    if (G)
      llvm::consumeError(verifyGraph(*G));
    else
      llvm::consumeError(G.takeError());
  }
}

TEST(BinarySectionsTest, RejectsMisalignedAndOverlappingSections) {
  std::string Bytes = toBinary(richGraph());
  fb::Section *Tasks = section(Bytes, &fb::Graph::task_section);
  const fb::Section Was = *Tasks;
  *Tasks = fb::Section(Was.offset() + 4, Was.count());
  EXPECT_EQ(parseError(Bytes), "corrupt binary IR: the task section at byte " +
                                   std::to_string(Was.offset() + 4) +
                                   " is misaligned");
  *Tasks = Was;
  fb::Section *Edges = section(Bytes, &fb::Graph::edge_section);
  *Edges = fb::Section(Was.offset() + 8, Edges->count());
  EXPECT_EQ(parseError(Bytes),
            "corrupt binary IR: the task and edge sections overlap");
}

TEST(BinarySectionsTest, RejectsBadStrings) {
  std::string Bytes = toBinary(richGraph());
  const fb::Section Text = *fb::GetGraph(Bytes.data())->string_byte_section();
  std::string Unterminated = Bytes;
  Unterminated[Text.offset() + Text.count() - 1] = 'x';
  EXPECT_NE(parseError(Unterminated).find("is not 0-terminated"),
            std::string::npos);
  std::string Far = Bytes;
  const fb::Section Offsets =
      *fb::GetGraph(Far.data())->string_offset_section();
  reinterpret_cast<uint64_t *>(&Far[Offsets.offset()])[1] = uint64_t(1) << 40;
  EXPECT_EQ(parseError(Far), "corrupt binary IR: string 0 is not "
                             "0-terminated within its bounds");
  std::string Short = Bytes;
  *section(Short, &fb::Graph::string_byte_section) =
      fb::Section(Text.offset(), Text.count() - 1);
  EXPECT_EQ(parseError(Short),
            "corrupt binary IR: string offsets do not span the " +
                std::to_string(Text.count() - 1) + " string bytes");
}

TEST(BinarySectionsTest, RejectsSectionsInAnOlderVersion) {
  std::string Bytes = toBinary(richGraph());
  auto *Table = reinterpret_cast<flatbuffers::Table *>(
      const_cast<fb::Graph *>(fb::GetGraph(Bytes.data())));
  ASSERT_TRUE(Table->SetField<uint32_t>(fb::Graph::VT_VERSION, 3, 0));
  EXPECT_EQ(parseError(Bytes),
            "corrupt binary IR: version 3 file with version 4 sections");
}

} // namespace
