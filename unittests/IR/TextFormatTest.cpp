//===- TextFormatTest.cpp - Tests of the .ddir text form ------------------===//
//
// The text form's contract: a file using every statement and attribute
// prints back in the documented canonical shape; print -> parse -> print is
// byte-identical and parse(print(G)) writes the same binary as G, including
// extreme values and every possible byte in a string; and each kind of
// malformed input yields its exact "<line>:<col>: <message>" error rather
// than a crash.
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/TextFormat.h"
#include "daydream/IR/BinaryFormat.h"
#include "daydream/IR/TaskFieldBounds.h"
#include "daydream/IR/Verifier.h"

#include "GraphBuilder.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace dd;
using llvm::StringRef;

namespace {

std::string printText(const Graph &G) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  llvm::Error E = printTextGraph(G, OS);
  EXPECT_FALSE(static_cast<bool>(E)) << llvm::toString(std::move(E));
  return OS.str();
}

std::string writeBinary(const Graph &G) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  llvm::Error E = writeBinaryGraph(G, OS);
  EXPECT_FALSE(static_cast<bool>(E)) << llvm::toString(std::move(E));
  return OS.str();
}

/// The verifier's error for \p G, or "" if it verifies.
std::string verifyError(const Graph &G) {
  llvm::Error E = verifyGraph(G);
  return E ? llvm::toString(std::move(E)) : "";
}

/// The parse error of \p Text, or "<parsed>" if it parses.
std::string parseError(StringRef Text) {
  llvm::Expected<Graph> G = parseTextGraph(Text);
  if (G)
    return "<parsed>";
  return llvm::toString(G.takeError());
}

// Uses every statement and attribute, with attributes out of order,
// symbolic labels, comments, forward references, a duplicate edge and a
// task order that the canonical order renumbers.
const char *const FullInput = R"(; leading comment

ddir 1   ; the header
producer "dd-import 0.1"
source "kineto"
device 0 "Tesla V100-SXM2-32GB" sms=80 memory=34089730048 fp32=15.7 fp16=125 bf16=0 bw=900
device 1 "spare" fp32=1.5e12
rank 0 world=8 host="node1"
rank 1
lane @main cpu-thread "python main" device=-1 native=25738 rank=0
lane @s7 gpu-stream "stream 7" order=by-priority device=0 native=7 rank=0
layer #model "model"
layer #conv "model.conv1" parent=#model
iteration "ProfilerStep#5" start=1000 measured=5000
iteration "step 6" measured=-1
task %launch runtime @main "cudaLaunchKernel" start=100 dur=50 corr=12 phase=forward
edge %launch -> %k launch
note %m "dir" "HtoD"
note %k "input_shape" "[3,224,224]"
task %k kernel @s7 "conv\tkernel \"x\"" dur=40 start=160 gap=10 layer=#conv phase=backward corr=12 flags=1 bytes=4096 flops=0 grid=1,2,3 block=128,1,1 smem=0 regs=32 copy=1
task %cpu cpu-op @main "aten::conv2d" start=90 dur=80 layer=#conv phase=other
memory bytes=-4096 time=500 device=0 addr=140000000 reserved=16384 total=8192 lane=@main
task %m memcpy @s7 "Memcpy HtoD" start=300 dur=5 copy=1
edge %launch->%k launch
edge %cpu -> %k data
note %k "k2" "v\x01\xc3\xa9"
memory time=100 bytes=4096 total=12288 reserved=16384 addr=140000000 lane=@main device=0
memory time=500 bytes=8 total=-1 device=-1
)";

const char *const FullExpected = R"(ddir 1
counts tasks=4 edges=2 notes=3 memory=3
producer "dd-import 0.1"
source "kineto"
device 0 "Tesla V100-SXM2-32GB" sms=80 memory=34089730048 fp32=15.7 fp16=125 bw=900
device 1 "spare" fp32=1500000000000
rank 0 world=8 host="node1"
rank 1
lane @0 cpu-thread "python main" native=25738 rank=0
lane @1 gpu-stream "stream 7" native=7 rank=0 device=0 order=by-priority
layer #0 "model"
layer #1 "model.conv1" parent=#0
iteration "ProfilerStep#5" start=1000 measured=5000
iteration "step 6"
task %0 runtime @0 "cudaLaunchKernel" start=100 dur=50 phase=forward corr=12
task %1 cpu-op @0 "aten::conv2d" start=90 dur=80 layer=#1
task %2 kernel @1 "conv\tkernel \"x\"" start=160 dur=40 gap=10 layer=#1 phase=backward corr=12 flags=1 bytes=4096 flops=0 grid=1,2,3 block=128,1,1 smem=0 regs=32 copy=1
task %3 memcpy @1 "Memcpy HtoD" start=300 dur=5 bytes=0 flops=0 grid=0,0,0 block=0,0,0 smem=0 regs=0 copy=1
edge %0 -> %2 launch
edge %1 -> %2 data
note %2 "input_shape" "[3,224,224]"
note %2 "k2" "v\x01)"
                                 "\xc3\xa9"
                                 R"("
note %3 "dir" "HtoD"
memory time=100 bytes=4096 total=12288 reserved=16384 addr=140000000 lane=@0 device=0
memory time=500 bytes=-4096 total=8192 reserved=16384 addr=140000000 lane=@0 device=0
memory time=500 bytes=8
)";

TEST(TextFormatTest, ParsesEveryStatementAndPrintsCanonically) {
  llvm::Expected<Graph> G = parseTextGraph(FullInput);
  ASSERT_TRUE(static_cast<bool>(G)) << llvm::toString(G.takeError());
  EXPECT_EQ(verifyError(*G), "");

  // Ids follow definition order, whatever the labels say.
  ASSERT_EQ(G->numTaskSlots(), 4u);
  EXPECT_EQ(G->str(G->task(1).Name), "conv\tkernel \"x\"");
  EXPECT_EQ(G->task(1).Lane, 1u);
  EXPECT_EQ(G->task(1).Layer, 1u);
  EXPECT_EQ(G->task(0).Attrs, NoId);
  ASSERT_NE(G->attrs(3), nullptr);
  EXPECT_EQ(G->attrs(3)->CopyKind, 1u);
  EXPECT_EQ(G->metadata().Devices[0].PeakFp32Tflops, 15.7);
  EXPECT_EQ(G->metadata().Devices[0].MemoryBytes, 34089730048u);
  EXPECT_EQ(G->iterations()[1].MeasuredNs, -1);
  EXPECT_EQ(G->laneHead(0), 0u);
  EXPECT_EQ(G->nextOnLane(0), 2u);
  // Memory events stay in file order until written.
  ASSERT_EQ(G->memoryEvents().size(), 3u);
  EXPECT_EQ(G->memoryEvents()[0],
            (MemoryEvent{500, -4096, 8192, 16384, 140000000, 0, 0}));
  EXPECT_EQ(G->memoryEvents()[2], (MemoryEvent{500, 8, -1, -1, 0, NoId, -1}));

  EXPECT_EQ(printText(*G), FullExpected);
}

TEST(TextFormatTest, PrintedFormIsAFixedPoint) {
  llvm::Expected<Graph> G = parseTextGraph(FullInput);
  ASSERT_TRUE(static_cast<bool>(G)) << llvm::toString(G.takeError());
  std::string First = printText(*G);
  llvm::Expected<Graph> G2 = parseTextGraph(First);
  ASSERT_TRUE(static_cast<bool>(G2)) << llvm::toString(G2.takeError());
  EXPECT_EQ(printText(*G2), First);
  EXPECT_EQ(writeBinary(*G2), writeBinary(*G));
}

/// A graph built through the API: ids out of canonical order, a dead task
/// with edges and notes, extreme integers and doubles, every byte value in
/// strings.
Graph makeAwkwardGraph() {
  Graph G;
  // Every ASCII byte, and characters of two, three and four bytes: strings
  // are UTF-8 (StringTable::intern()).
  std::string AllBytes;
  for (int C = 0; C != 128; ++C)
    AllBytes.push_back(static_cast<char>(C));
  AllBytes += "\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e";

  Metadata &M = G.metadata();
  M.Producer = AllBytes;
  M.SourceFormat = "x";
  Device D;
  D.Index = std::numeric_limits<int32_t>::max();
  D.Name = AllBytes;
  D.SmCount = std::numeric_limits<int32_t>::max();
  D.MemoryBytes = std::numeric_limits<uint64_t>::max();
  D.PeakFp32Tflops = 0.1;
  D.PeakFp16Tflops = -0.0;
  D.PeakBf16Tflops = std::numeric_limits<double>::denorm_min();
  D.MemoryBandwidthGBps = std::numeric_limits<double>::infinity();
  M.Devices.push_back(D);
  D.Index = 0;
  D.PeakFp32Tflops = std::numeric_limits<double>::max();
  D.PeakFp16Tflops = 1.0 / 3;
  D.PeakBf16Tflops = -1e-300;
  D.MemoryBandwidthGBps = -std::numeric_limits<double>::infinity();
  M.Devices.push_back(D);
  M.Ranks.push_back(RankInfo{std::numeric_limits<int32_t>::max(), 0, AllBytes});

  Lane Cpu;
  Cpu.Name = G.intern(AllBytes);
  Cpu.NativeId = std::numeric_limits<int64_t>::min();
  Cpu.Rank = std::numeric_limits<int32_t>::max();
  LaneId L0 = G.addLane(Cpu);
  Lane Gpu;
  Gpu.Kind = LaneKind::GpuStream;
  Gpu.Name = G.intern("");
  Gpu.NativeId = std::numeric_limits<int64_t>::max();
  Gpu.Rank = -1;
  Gpu.Device = std::numeric_limits<int32_t>::max();
  Gpu.Order = LaneOrder::ByPriority;
  LaneId L1 = G.addLane(Gpu);
  G.addLane(Lane{0, G.intern("unused"), -1, 0, LaneKind::CommChannel,
                 LaneOrder::InOrder});

  LayerId Root = G.addLayer(Layer{G.intern("root"), NoId});
  G.addLayer(Layer{G.intern("child"), Root});
  G.iterationsMut().push_back(Iteration{-MaxStartNs, 0, G.intern("it")});

  Task T;
  T.Name = G.intern("a");
  T.Lane = L0;
  T.StartNs = -MaxStartNs;
  T.DurationNs = MaxTaskNs;
  TaskId A = G.addTask(T);
  T.Name = G.intern("before a");
  T.StartNs = -1;
  T.DurationNs = 0;
  T.Kind = TaskKind::Marker;
  T.Phase = Phase::Optimizer;
  T.Flags = KnownTaskFlags;
  T.Correlation = std::numeric_limits<uint32_t>::max();
  T.Layer = 1;
  TaskId B = G.insertTaskBefore(A, T);
  T = Task();
  T.Name = G.intern("kernel");
  T.Lane = L1;
  T.Kind = TaskKind::Kernel;
  T.GapNs = MaxTaskNs;
  TaskId K = G.addTask(T);
  TaskAttrs Max;
  Max.Bytes = Max.Flops = std::numeric_limits<uint64_t>::max();
  for (int I = 0; I != 3; ++I)
    Max.Grid[I] = Max.Block[I] = std::numeric_limits<uint32_t>::max();
  Max.SharedMemBytes = std::numeric_limits<uint32_t>::max();
  Max.RegistersPerThread = std::numeric_limits<uint16_t>::max();
  Max.CopyKind = std::numeric_limits<uint8_t>::max();
  G.setAttrs(K, Max);
  T.GapNs = 0; // the two limits already add up to the graph's
  T.Name = G.intern("dead");
  TaskId Dead = G.addTask(T);
  G.setAttrs(Dead, TaskAttrs());
  T.Name = G.intern("zero attrs");
  TaskId Z = G.addTask(T);
  G.setAttrs(Z, TaskAttrs());

  G.addEdge(K, B, EdgeKind::Sync);
  G.addEdge(K, B, EdgeKind::Sync);
  G.addEdge(K, B, EdgeKind::CrossStream);
  G.addEdge(Dead, A, EdgeKind::Data);
  G.addEdge(A, Z, EdgeKind::Comm);
  G.addNote(A, AllBytes, "");
  G.addNote(Dead, "gone", "gone");
  G.addNote(K, "k", "1");
  G.addNote(A, "second", "2");
  G.removeTask(Dead);
  return G;
}

TEST(TextFormatTest, RoundTripsExtremesExactly) {
  Graph G = makeAwkwardGraph();
  ASSERT_EQ(verifyError(G), "");
  std::string First = printText(G);
  llvm::Expected<Graph> G2 = parseTextGraph(First);
  ASSERT_TRUE(static_cast<bool>(G2)) << llvm::toString(G2.takeError());
  EXPECT_EQ(verifyError(*G2), "");
  EXPECT_EQ(printText(*G2), First);
  EXPECT_EQ(writeBinary(*G2), writeBinary(G));
  EXPECT_EQ(G2->metadata().Devices[0].Name, G.metadata().Devices[0].Name);
  EXPECT_TRUE(std::signbit(G2->metadata().Devices[0].PeakFp16Tflops));
  // Dead tasks and what touches them are not printed.
  EXPECT_EQ(StringRef(First).find("gone"), StringRef::npos);
  EXPECT_EQ(G2->numTaskSlots(), 4u);
}

TEST(TextFormatTest, PrinterOmitsDefaults) {
  Graph G;
  G.metadata().Devices.push_back(Device());
  G.metadata().Ranks.push_back(RankInfo());
  LaneId L = test::addLane(G, "l");
  G.addLayer(Layer{G.intern("y"), NoId});
  G.iterationsMut().push_back(Iteration{0, -1, G.intern("i")});
  test::addTask(G, L, "t", 0, 0);
  G.addMemoryEvent(MemoryEvent());
  EXPECT_EQ(printText(G), "ddir 1\n"
                          "counts tasks=1 memory=1\n"
                          "device 0 \"\"\n"
                          "rank 0\n"
                          "lane @0 cpu-thread \"l\"\n"
                          "layer #0 \"y\"\n"
                          "iteration \"i\"\n"
                          "task %0 cpu-op @0 \"t\" start=0 dur=0\n"
                          "memory time=0 bytes=0\n");
}

TEST(TextFormatTest, MemoryEventsRoundTripExtremes) {
  Graph G;
  LaneId L = test::addLane(G, "l");
  constexpr int64_t Min = std::numeric_limits<int64_t>::min();
  constexpr int64_t Max = std::numeric_limits<int64_t>::max();
  G.addMemoryEvent(MemoryEvent{MaxStartNs, Min, Max, Max,
                               std::numeric_limits<uint64_t>::max(), L,
                               std::numeric_limits<int32_t>::max()});
  G.addMemoryEvent(MemoryEvent{-MaxStartNs, Max, 0, 0, 1, NoId, 0});
  ASSERT_EQ(verifyError(G), "");
  std::string First = printText(G);
  EXPECT_EQ(First, "ddir 1\n"
                   "counts tasks=0 memory=2\n"
                   "lane @0 cpu-thread \"l\"\n"
                   "memory time=-2305843009213693952 bytes=9223372036854775807 "
                   "total=0 reserved=0 addr=1 device=0\n"
                   "memory time=2305843009213693952 bytes=-9223372036854775808 "
                   "total=9223372036854775807 reserved=9223372036854775807 "
                   "addr=18446744073709551615 lane=@0 device=2147483647\n");
  llvm::Expected<Graph> G2 = parseTextGraph(First);
  ASSERT_TRUE(static_cast<bool>(G2)) << llvm::toString(G2.takeError());
  EXPECT_EQ(printText(*G2), First);
  EXPECT_EQ(writeBinary(*G2), writeBinary(G));
}

TEST(TextFormatTest, ReportsCycles) {
  Graph G;
  LaneId L = test::addLane(G, "l");
  TaskId A = test::addTask(G, L, "a", 0, 1);
  TaskId B = test::addTask(G, L, "b", 1, 1);
  G.addEdge(B, A, EdgeKind::Data);
  std::string S;
  llvm::raw_string_ostream OS(S);
  llvm::Error E = printTextGraph(G, OS);
  ASSERT_TRUE(static_cast<bool>(E));
  EXPECT_NE(llvm::toString(std::move(E)).find("cycle"), std::string::npos);
}

const char *const Prelude = "ddir 1\n"
                            "lane @0 cpu-thread \"t\"\n";

TEST(TextFormatTest, ErrorMessages) {
  auto Err = [](StringRef Body) {
    return parseError((llvm::Twine(Prelude) + Body).str());
  };
  EXPECT_EQ(parseError(""), "1:1: expected 'ddir' header");
  EXPECT_EQ(parseError("; nothing\n\n  \n"), "1:1: expected 'ddir' header");
  EXPECT_EQ(parseError("\n  lane @0 cpu-thread \"t\"\n"),
            "2:3: expected 'ddir' header");
  EXPECT_EQ(parseError("ddir 2\n"), "1:6: unsupported version 2 (expected 1)");
  EXPECT_EQ(parseError("ddir\n"),
            "1:5: expected a version number, found end of line");
  EXPECT_EQ(Err("ddir 1\n"), "3:1: duplicate 'ddir' header");
  // A file cut short at a line end still parses up to the cut: the counts
  // the printer writes first tell.
  EXPECT_EQ(parseError("ddir 1\ncounts tasks=2 edges=1\n"
                       "lane @0 cpu-thread \"t\"\n"
                       "task %0 cpu-op @0 \"a\" start=0 dur=1\n"
                       "task %1 cpu-op @0 \"b\" start=1 dur=1\n"),
            "2:1: 'counts' promises 1 edges but the file holds 0 (it is cut "
            "short)");
  EXPECT_EQ(parseError("ddir 1\ncounts tasks=0\n"
                       "lane @0 cpu-thread \"t\"\n"
                       "task %0 cpu-op @0 \"a\" start=0 dur=1\n"),
            "2:1: 'counts' promises 0 tasks but the file holds 1");
  EXPECT_EQ(Err("counts tasks=0\ncounts tasks=0\n"),
            "4:1: duplicate 'counts' statement");
  EXPECT_EQ(Err("counts tasks=x\n"), "3:14: expected an integer, found 'x'");
  EXPECT_EQ(Err("tsak %0\n"), "3:1: unknown statement 'tsak'");
  EXPECT_EQ(Err("%0 cpu-op\n"), "3:1: expected a statement, found '%0'");
  EXPECT_EQ(Err("task %0 kernal @0 \"k\" start=0 dur=1\n"),
            "3:9: expected a task kind, found 'kernal'");
  EXPECT_EQ(Err("task %0 kernel @1 \"k\" start=0 dur=1\n"),
            "3:16: undefined lane label '@1'");
  EXPECT_EQ(Err("task %0 kernel @0 \"k\" start=0 dur=1 layer=#0\n"),
            "3:43: undefined layer label '#0'");
  EXPECT_EQ(Err("task %0 kernel @0 \"k\" start=0 dur=1\n"
                "edge %0 -> %x launch\n"),
            "4:12: undefined task label '%x'");
  EXPECT_EQ(Err("note %y \"k\" \"v\"\n"), "3:6: undefined task label '%y'");
  EXPECT_EQ(Err("task %0 kernel @0 \"k\" start=0 dur=1\n"
                "task %0 kernel @0 \"k\" start=0 dur=1\n"),
            "4:6: duplicate task label '%0'");
  EXPECT_EQ(Err("lane @0 cpu-thread \"again\"\n"),
            "3:6: duplicate lane label '@0'");
  EXPECT_EQ(Err("task %0 kernel @0 \"k\n"), "3:19: unterminated string");
  EXPECT_EQ(Err("task %0 kernel @0 \"k\\q\" start=0 dur=1\n"),
            "3:21: invalid escape sequence in string");
  EXPECT_EQ(Err("task %0 kernel @0 \"k\" start=9223372036854775808 dur=1\n"),
            "3:29: integer out of range");
  EXPECT_EQ(Err("task %0 kernel @0 \"k\" start=0 dur=1 regs=65536\n"),
            "3:42: integer out of range");
  EXPECT_EQ(Err("task %0 kernel @0 \"k\" start=0 dur=1 corr=-1\n"),
            "3:42: integer out of range");
  EXPECT_EQ(Err("task %0 kernel @0 \"k\" start=1.5 dur=1\n"),
            "3:29: expected an integer, found '1.5'");
  EXPECT_EQ(Err("task %0 kernel @0 \"k\" start=0 dur=1 start=2\n"),
            "3:37: duplicate attribute 'start'");
  EXPECT_EQ(Err("task %0 kernel @0 \"k\" start=0 dur=1 strat=2\n"),
            "3:37: unknown attribute 'strat'");
  EXPECT_EQ(Err("task %0 kernel @0 \"k\" start=0 dur 1\n"),
            "3:35: expected '=' after 'dur', found '1'");
  EXPECT_EQ(Err("task %0 kernel @0 \"k\" start=0\n"),
            "3:1: missing attribute 'dur'");
  EXPECT_EQ(Err("task %0 kernel @0\n"),
            "3:18: expected a task name string, found end of line");
  EXPECT_EQ(Err("task %0 kernel @0 \"k\" start=0 dur=1 grid=1,2\n"),
            "3:45: expected ',', found end of line");
  EXPECT_EQ(Err("edge %0 %1 launch\n"), "3:9: expected '->', found '%1'");
  EXPECT_EQ(Err("note %0 \"k\" \"v\" extra\n"),
            "3:17: expected end of line, found 'extra'");
  EXPECT_EQ(Err("device 0 \"d\" fp32=fast\n"),
            "3:19: expected a number, found 'fast'");
  EXPECT_EQ(Err("producer \"a\"\nproducer \"b\"\n"),
            "4:1: duplicate 'producer' statement");
  EXPECT_EQ(Err("layer #1 \"a\" parent=#2\n"),
            "3:21: undefined layer label '#2'");
  EXPECT_EQ(Err("lane @1 cpu-thread \"a\" order=sideways\n"),
            "3:30: expected a lane order, found 'sideways'");
  EXPECT_EQ(Err("lane @1 cpu-thread \"a\" $\n"),
            "3:24: unexpected character '$'");
  EXPECT_EQ(Err("task % kernel\n"), "3:6: expected a label name after '%'");
}

TEST(TextFormatTest, MemoryErrorMessages) {
  auto Err = [](StringRef Body) {
    return parseError((llvm::Twine(Prelude) + Body).str());
  };
  EXPECT_EQ(Err("memory time=1\n"), "3:1: missing attribute 'bytes'");
  EXPECT_EQ(Err("memory bytes=1 lane=@0\n"), "3:1: missing attribute 'time'");
  EXPECT_EQ(Err("memory time=1 bytes=1 lane=@9\n"),
            "3:28: undefined lane label '@9'");
  // Lanes must be defined before use, as for tasks.
  EXPECT_EQ(Err("memory time=1 bytes=1 lane=@1\nlane @1 cpu-thread \"u\"\n"),
            "3:28: undefined lane label '@1'");
  EXPECT_EQ(Err("memory time=1 bytes=1 lane=0\n"),
            "3:28: expected a lane label, found '0'");
  EXPECT_EQ(Err("memory time=1 bytes=1 addr=-1\n"),
            "3:28: integer out of range");
  EXPECT_EQ(Err("memory time=1 bytes=1 device=2147483648\n"),
            "3:30: integer out of range");
  EXPECT_EQ(Err("memory time=1 bytes=1 size=2\n"),
            "3:23: unknown attribute 'size'");
  EXPECT_EQ(Err("memory time=1 bytes=1 time=2\n"),
            "3:23: duplicate attribute 'time'");
  EXPECT_EQ(Err("memory time=1 bytes=1.5\n"),
            "3:21: expected an integer, found '1.5'");
  EXPECT_EQ(Err("memory %0 time=1 bytes=1\n"),
            "3:8: expected an attribute, found '%0'");
}

TEST(TextFormatTest, RejectsNulBytes) {
  EXPECT_EQ(parseError(StringRef("ddir 1\nlane @0 cpu\0-thread", 20)),
            "2:12: not a text .ddir file (contains a NUL byte)");
  // Reported even when an earlier line is malformed too.
  EXPECT_EQ(parseError(StringRef("bogus\n\0", 7)),
            "2:1: not a text .ddir file (contains a NUL byte)");
}

TEST(TextFormatTest, AcceptsForwardReferencesAndCrlf) {
  llvm::Expected<Graph> G =
      parseTextGraph("ddir 1\r\n"
                     "lane @l cpu-thread \"t\"\r\n"
                     "edge %b -> %a data\r\n"
                     "note %a \"k\" \"v\"\r\n"
                     "task %b cpu-op @l \"b\" start=0 dur=1\r\n"
                     "task %a cpu-op @l \"a\" start=2 dur=1 ; trailing\r\n");
  ASSERT_TRUE(static_cast<bool>(G)) << llvm::toString(G.takeError());
  ASSERT_EQ(G->edgeSlots().size(), 1u);
  EXPECT_EQ(G->edgeSlots()[0].Src, 0u);
  EXPECT_EQ(G->edgeSlots()[0].Dst, 1u);
  ASSERT_EQ(G->notes().size(), 1u);
  EXPECT_EQ(G->notes()[0].Task, 1u);
}

TEST(TextFormatTest, SurvivesTruncationAndCorruption) {
  // Every prefix, and every single-byte corruption, either parses or fails
  // with a positioned message; none may crash or hang. A poor man's fuzzer
  // that runs on every build.
  std::string Full = FullInput;
  for (size_t N = 0; N <= Full.size(); ++N) {
    llvm::Expected<Graph> G = parseTextGraph(StringRef(Full).take_front(N));
    if (G) {
      std::string S;
      llvm::raw_string_ostream OS(S);
      llvm::consumeError(printTextGraph(*G, OS));
    } else {
      EXPECT_TRUE(llvm::isDigit(llvm::toString(G.takeError())[0]));
    }
  }
  const char Bytes[] = {'\0', '\n', '"', '\\', '%', '-', '=', '9', '\x80'};
  for (size_t I = 0; I < Full.size(); I += 3) {
    for (char B : Bytes) {
      std::string Mutated = Full;
      Mutated[I] = B;
      llvm::Expected<Graph> G = parseTextGraph(Mutated);
      if (!G)
        llvm::consumeError(G.takeError());
    }
  }
}

} // namespace
