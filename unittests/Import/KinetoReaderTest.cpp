//===- KinetoReaderTest.cpp - Kineto JSON into a TraceModel ---------------===//
//
// Small hand-written traces, one behaviour each: every category in both
// spellings (2022+ and 2021), exact nanosecond times, the base time, metadata
// keys in either order, thread names, what is skipped and counted, and the
// error messages. Then the real traces of ../shared/traces when present:
// event counts the traces' README states, and the parse speed (printed).
//
//===----------------------------------------------------------------------===//

#include "daydream/Import/KinetoReader.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <chrono>

using namespace dd;
using namespace dd::import;

namespace {

llvm::Expected<TraceModel> read(llvm::StringRef Json,
                                const KinetoOptions &Opts = {}) {
  auto In = makeInputFile("t.json", Json);
  if (!In)
    return In.takeError();
  return readKinetoTrace(*In, Opts);
}

/// The model of \p Json, failing the test on an error.
TraceModel readOk(llvm::StringRef Json, const KinetoOptions &Opts = {}) {
  auto M = read(Json, Opts);
  if (!M) {
    ADD_FAILURE() << llvm::toString(M.takeError());
    return TraceModel();
  }
  return std::move(*M);
}

std::string readError(llvm::StringRef Json) {
  auto M = read(Json);
  if (M) {
    ADD_FAILURE() << "expected an error";
    return "";
  }
  return llvm::toString(M.takeError());
}

std::string wrap(llvm::StringRef Events) {
  return ("{\"schemaVersion\": 1, \"traceEvents\": [" + Events + "]}").str();
}

llvm::StringRef nameOf(const TraceModel &M, StrId Id) {
  return Id == NoId ? "<none>" : M.Strings.get(Id);
}

llvm::Optional<int64_t> some(int64_t V) { return V; }

TEST(KinetoNumbersTest, MicrosToNanosIsExact) {
  EXPECT_EQ(parseMicrosAsNanos("1712195495505583.123"),
            some(1712195495505583123));
  EXPECT_EQ(parseMicrosAsNanos("1740461679470813"), some(1740461679470813000));
  EXPECT_EQ(parseMicrosAsNanos("1712195495505583.0"),
            some(1712195495505583000));
  EXPECT_EQ(parseMicrosAsNanos("4.928"), some(4928));
  EXPECT_EQ(parseMicrosAsNanos("0"), some(0));
  EXPECT_EQ(parseMicrosAsNanos("-1.5"), some(-1500));
  EXPECT_EQ(parseMicrosAsNanos("1e3"), some(1000000));
  EXPECT_EQ(parseMicrosAsNanos("1.5E-3"), some(2)); // 1.5 ns rounds away from 0
  EXPECT_EQ(parseMicrosAsNanos("0.0004"), some(0));
  EXPECT_EQ(parseMicrosAsNanos("0.0005"), some(1));
  EXPECT_EQ(parseMicrosAsNanos("1.00049"), some(1000));
  EXPECT_EQ(parseMicrosAsNanos("9223372036854775.807"), some(INT64_MAX));
  EXPECT_EQ(parseMicrosAsNanos("-9223372036854775.808"), some(INT64_MIN));
  EXPECT_EQ(parseMicrosAsNanos("9223372036854775.808"), llvm::None);
  EXPECT_EQ(parseMicrosAsNanos("1e999999999999"), llvm::None);
  EXPECT_EQ(parseMicrosAsNanos("1e-999999999999"), some(0));
  for (const char *Bad : {"", "-", "01", "1.", ".5", "1e", "1e+", "+1", "0x10",
                          "1.2.3", "\"1\"", "nan", "1 2"})
    EXPECT_EQ(parseMicrosAsNanos(Bad), llvm::None) << Bad;
}

TEST(KinetoNumbersTest, IntegerTokens) {
  EXPECT_EQ(parseIntegerToken("7"), some(7));
  EXPECT_EQ(parseIntegerToken("-1"), some(-1));
  EXPECT_EQ(parseIntegerToken("7.0"), some(7));
  EXPECT_EQ(parseIntegerToken("1e2"), some(100));
  EXPECT_EQ(parseIntegerToken("139926520725504"), some(139926520725504));
  EXPECT_EQ(parseIntegerToken("9223372036854775807"), some(INT64_MAX));
  EXPECT_EQ(parseIntegerToken("9223372036854775808"), llvm::None);
  EXPECT_EQ(parseIntegerToken("7.5"), llvm::None);
  EXPECT_EQ(parseIntegerToken("stream 7"), llvm::None);
}

// The 2022+ categories, one event each, with the args the model keeps.
TEST(KinetoReaderTest, NewCategories) {
  TraceModel M = readOk(wrap(R"J(
    {"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 10, "tid": 11, "ts": 100, "dur": 50, "args": {"External id": 2, "Input Dims": [[1, 2]]}},
    {"ph": "X", "cat": "user_annotation", "name": "## forward ##", "pid": 10, "tid": 11, "ts": 90, "dur": 70},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 10, "tid": 11, "ts": 80, "dur": 200},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11, "ts": 110, "dur": 5, "args": {"cbid": 211, "correlation": 77}},
    {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 10, "tid": 12, "ts": 120, "dur": 5, "args": {"correlation": 78}},
    {"ph": "X", "cat": "kernel", "name": "void gemm<float>(int)", "pid": 0, "tid": 7, "ts": 130, "dur": 20, "args": {"External id": 2, "device": 0, "stream": 7, "correlation": 77, "registers per thread": 96, "shared memory": 49152, "grid": [4096, 2, 1], "block": [128, 1, 1], "est. achieved occupancy %": 100}},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", "pid": 0, "tid": 40, "ts": 140, "dur": 30, "args": {"device": 0, "stream": 40, "correlation": 79}},
    {"ph": "X", "cat": "kernel", "name": "custom_allreduce", "pid": 1, "tid": 41, "ts": 140, "dur": 30, "args": {"device": 1, "stream": 41, "correlation": 80, "Collective name": "allreduce"}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 7, "ts": 150, "dur": 3, "args": {"device": 0, "stream": 7, "correlation": 81, "bytes": 131072}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, "tid": 7, "ts": 151, "dur": 3, "args": {"bytes": 8}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", "pid": 0, "tid": 7, "ts": 152, "dur": 3, "args": {"bytes": 8}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy PtoP (Device -> Device)", "pid": 0, "tid": 7, "ts": 153, "dur": 3, "args": {"bytes": 8}},
    {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 160, "dur": 0, "args": {"device": 0, "stream": 7, "correlation": 82, "bytes": 8}},
    {"ph": "s", "id": 77, "pid": 10, "tid": 11, "ts": 110, "cat": "ac2g", "name": "ac2g"},
    {"ph": "f", "id": 77, "pid": 0, "tid": 7, "ts": 130, "cat": "ac2g", "name": "ac2g", "bp": "e"},
    {"ph": "X", "cat": "gpu_user_annotation", "name": "## forward ##", "pid": 0, "tid": 7, "ts": 130, "dur": 20},
    {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 1, "dur": 500},
    {"ph": "X", "cat": "overhead", "name": "Buffer Flush", "pid": 10, "tid": 11, "ts": 1, "dur": 5},
    {"name": "process_name", "ph": "M", "ts": 1, "pid": 10, "tid": 0, "args": {"name": "python3"}},
    {"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 600}
  )J"));
  EXPECT_EQ(M.Stats.Events, 20u);
  EXPECT_EQ(M.Stats.SkippedOther, 7u);
  EXPECT_EQ(M.Stats.MissingFields, 0u);
  EXPECT_EQ(M.Meta.SourceFormat, "kineto");
  EXPECT_EQ(M.Meta.Producer, "");

  ASSERT_EQ(M.Ranges.size(), 3u);
  EXPECT_EQ(nameOf(M, M.Ranges[0].Name), "aten::conv2d");
  EXPECT_EQ(M.Ranges[0].Kind, RangeKind::Op);
  EXPECT_EQ(M.Ranges[0].StartNs, 100000);
  EXPECT_EQ(M.Ranges[0].EndNs, 150000);
  EXPECT_EQ(M.Ranges[1].Kind, RangeKind::Annotation);
  EXPECT_EQ(M.Ranges[2].Kind, RangeKind::Step);
  EXPECT_EQ(M.Ranges[0].Thread, M.Ranges[2].Thread);
  const ThreadInfo &T = M.Threads[M.Ranges[0].Thread];
  EXPECT_EQ(T.Pid, 10);
  EXPECT_EQ(T.Tid, 11);

  ASSERT_EQ(M.Calls.size(), 2u);
  EXPECT_EQ(M.Calls[0].Kind, ApiKind::Launch);
  EXPECT_EQ(M.Calls[0].Correlation, 77u);
  EXPECT_EQ(M.Calls[1].Kind, ApiKind::Launch);
  EXPECT_EQ(M.Threads[M.Calls[1].Thread].Tid, 12);

  ASSERT_EQ(M.Activities.size(), 8u);
  const GpuActivity &K = M.Activities[0];
  EXPECT_EQ(K.Kind, TaskKind::Kernel);
  EXPECT_EQ(K.Correlation, 77u);
  EXPECT_EQ(K.StartNs, 130000);
  EXPECT_EQ(K.EndNs, 150000);
  EXPECT_TRUE(K.HasAttrs);
  EXPECT_EQ(K.Attrs.Grid[0], 4096u);
  EXPECT_EQ(K.Attrs.Grid[1], 2u);
  EXPECT_EQ(K.Attrs.Block[0], 128u);
  EXPECT_EQ(K.Attrs.RegistersPerThread, 96u);
  EXPECT_EQ(K.Attrs.SharedMemBytes, 49152u);
  EXPECT_EQ(M.Streams[K.Stream].Device, 0);
  EXPECT_EQ(M.Streams[K.Stream].Stream, 7);
  EXPECT_EQ(M.Activities[1].Kind, TaskKind::Collective);
  EXPECT_EQ(M.Activities[2].Kind, TaskKind::Collective);
  EXPECT_EQ(M.Streams[M.Activities[2].Stream].Device, 1);
  const GpuActivity &C = M.Activities[3];
  EXPECT_EQ(C.Kind, TaskKind::Memcpy);
  EXPECT_TRUE(C.HasAttrs);
  EXPECT_EQ(C.Attrs.Bytes, 131072u);
  EXPECT_EQ(C.Attrs.CopyKind, uint8_t(CopyKind::HostToDevice));
  EXPECT_EQ(M.Activities[4].Attrs.CopyKind, uint8_t(CopyKind::DeviceToHost));
  // Without args.device / args.stream, pid and tid say where it ran.
  EXPECT_EQ(M.Activities[4].Stream, K.Stream);
  EXPECT_EQ(M.Activities[4].Correlation, 0u);
  EXPECT_EQ(M.Activities[5].Attrs.CopyKind, uint8_t(CopyKind::DeviceToDevice));
  EXPECT_EQ(M.Activities[6].Attrs.CopyKind, uint8_t(CopyKind::PeerToPeer));
  EXPECT_EQ(M.Activities[7].Kind, TaskKind::Memset);
  EXPECT_EQ(M.Activities[7].Attrs.Bytes, 8u);
  EXPECT_EQ(M.Activities[7].StartNs, M.Activities[7].EndNs);
}

// The 2021 spellings: Operator/Runtime/Kernel/Memcpy/Memset, string tids,
// ProfilerStep#N as an Operator, [memory] instants without a category.
TEST(KinetoReaderTest, CollectiveMessageBytes) {
  // Bytes = the larger element count times the dtype's size; none without
  // a known dtype.
  TraceModel M = readOk(wrap(R"J(
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float", "pid": 0, "tid": 7, "ts": 1, "dur": 2, "args": {"stream": 7, "Collective name": "allreduce", "In msg nelems": 1000, "Out msg nelems": 1000, "dtype": "Float"}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllGather_RING_LL", "pid": 0, "tid": 7, "ts": 3, "dur": 2, "args": {"stream": 7, "Collective name": "_allgather_base", "In msg nelems": 25136, "Out msg nelems": 201088, "dtype": "BFloat16"}},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_x", "pid": 0, "tid": 7, "ts": 5, "dur": 2, "args": {"stream": 7, "In msg nelems": 10, "dtype": "Mystery"}}
  )J"));
  ASSERT_EQ(M.Activities.size(), 3u);
  EXPECT_EQ(M.Activities[0].Kind, TaskKind::Collective);
  EXPECT_EQ(M.Activities[0].Attrs.Bytes, 4000u);
  EXPECT_TRUE(M.Activities[0].HasAttrs);
  EXPECT_EQ(M.Activities[1].Attrs.Bytes, 201088u * 2);
  EXPECT_EQ(M.Activities[2].Attrs.Bytes, 0u);
}

TEST(KinetoReaderTest, Format2021) {
  TraceModel M = readOk(wrap(R"J(
    {"ph": "X", "cat": "Operator", "name": "ProfilerStep#5", "pid": 25738, "tid": "25738", "ts": 1623142623460172, "dur": 176078, "args": {"Device": 25738, "External id": 4}},
    {"ph": "X", "cat": "Operator", "name": "aten::add_", "pid": 25738, "tid": "25738", "ts": 1623142623460200, "dur": 10},
    {"ph": "X", "cat": "Runtime", "name": "cudaMemcpyAsync", "pid": 25738, "tid": "25738", "ts": 1623142623529088, "dur": 2022, "args": {"cbid": 41, "correlation": 34417, "external id": 537}},
    {"ph": "X", "cat": "Kernel", "name": "cask_cudnn::computeOffsetsKernel(cask_cudnn::ComputeOffsetsParams)", "pid": 0, "tid": "stream 7", "ts": 1623142623531625, "dur": 2, "args": {"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 34441, "external id": 544, "registers per thread": 38, "shared memory": 0, "grid": [50, 1, 1], "block": [256, 1, 1]}},
    {"ph": "X", "cat": "Memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": "stream 7", "ts": 1623142623529248, "dur": 1940, "args": {"device": 0, "context": 1, "stream": 7, "correlation": 34417, "bytes": 19267584}},
    {"ph": "X", "cat": "Memset", "name": "Memset (Device)", "pid": 0, "tid": "stream 9", "ts": 1623142623579729, "dur": 1, "args": {"correlation": 38304, "bytes": 128000}},
    {"ph": "i", "s": "t", "name": "[memory]", "pid": 25738, "tid": 25738, "ts": 1623142623460121, "args": {"Device Type": 0, "Device Id": -1, "Bytes": 4}},
    {"ph": "f", "id": 34417, "pid": 0, "tid": "stream 7", "ts": 1623142623529248, "cat": "async", "name": "launch", "bp": "e"},
    {"name": "thread_name", "ph": "M", "ts": 1623142623460016, "pid": 25738, "tid": "25738", "args": {"name": "thread 25738 (python)"}}
  )J"));
  EXPECT_EQ(M.Stats.MissingFields, 0u);
  EXPECT_EQ(M.Stats.SkippedOther, 1u);
  ASSERT_EQ(M.Ranges.size(), 2u);
  EXPECT_EQ(M.Ranges[0].Kind, RangeKind::Step);
  EXPECT_EQ(M.Ranges[1].Kind, RangeKind::Op);
  ASSERT_EQ(M.Threads.size(), 1u); // "25738" and 25738 are one thread
  EXPECT_EQ(M.Threads[0].Tid, 25738);
  EXPECT_EQ(nameOf(M, M.Threads[0].Name), "thread 25738 (python)");
  ASSERT_EQ(M.Calls.size(), 1u);
  EXPECT_EQ(M.Calls[0].Kind, ApiKind::Memcpy);
  EXPECT_EQ(M.Calls[0].Correlation, 34417u);
  ASSERT_EQ(M.Activities.size(), 3u);
  EXPECT_EQ(M.Activities[0].Kind, TaskKind::Kernel);
  EXPECT_EQ(M.Activities[0].Attrs.Grid[0], 50u);
  EXPECT_EQ(M.Activities[0].StartNs, 1623142623531625000);
  EXPECT_EQ(M.Activities[1].Kind, TaskKind::Memcpy);
  EXPECT_EQ(M.Activities[1].Attrs.Bytes, 19267584u);
  EXPECT_EQ(M.Activities[2].Kind, TaskKind::Memset);
  // The memset has no args.stream: "stream 9" in tid says it.
  EXPECT_EQ(M.Streams[M.Activities[2].Stream].Stream, 9);
  ASSERT_EQ(M.Memory.size(), 1u);
  EXPECT_EQ(M.Memory[0].Bytes, 4);
  EXPECT_EQ(M.Memory[0].Device, -1);
  EXPECT_EQ(M.Memory[0].TotalAllocated, -1);
}

TEST(KinetoReaderTest, FractionalTimesAreExactNanoseconds) {
  TraceModel M = readOk(wrap(R"J(
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1712195495505583.123, "dur": 4.928},
    {"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": 1740461679470813, "dur": 2}
  )J"));
  ASSERT_EQ(M.Activities.size(), 1u);
  EXPECT_EQ(M.Activities[0].StartNs, 1712195495505583123);
  EXPECT_EQ(M.Activities[0].EndNs, 1712195495505588051);
  ASSERT_EQ(M.Ranges.size(), 1u);
  EXPECT_EQ(M.Ranges[0].StartNs, 1740461679470813000);
  EXPECT_EQ(M.Ranges[0].EndNs, 1740461679470815000);
}

// baseTimeNanoseconds is added to ts (not dur), before or after the events.
TEST(KinetoReaderTest, BaseTimeInEitherOrder) {
  const char *Event =
      R"J({"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": 1365627865398.7, "dur": 1.5})J";
  std::string Before =
      std::string(
          "{\"baseTimeNanoseconds\": 1767189312000000000, \"traceEvents\": [") +
      Event + "]}";
  std::string After = std::string("{\"traceEvents\": [") + Event +
                      "], \"baseTimeNanoseconds\": 1767189312000000000}";
  for (const std::string &Json : {Before, After}) {
    TraceModel M = readOk(Json);
    ASSERT_EQ(M.Ranges.size(), 1u);
    EXPECT_EQ(M.Ranges[0].StartNs, 1767189312000000000 + 1365627865398700);
    EXPECT_EQ(M.Ranges[0].EndNs - M.Ranges[0].StartNs, 1500);
  }
  TraceModel NoBase = readOk(wrap(Event));
  EXPECT_EQ(NoBase.Ranges[0].StartNs, 1365627865398700);
}

TEST(KinetoReaderTest, PythonFunctionsDroppedUnlessKept) {
  std::string Json = wrap(R"J(
    {"ph": "X", "cat": "python_function", "name": "nn.Module: ResNet_0", "pid": 5, "tid": 5, "ts": 10, "dur": 100, "args": {"Python id": 3, "Python module id": 0}},
    {"ph": "X", "cat": "python_function", "name": "threading.py(1032): _bootstrap", "pid": 0, "tid": 0, "ts": 1, "dur": 500, "args": {"Python parent id": null, "Python id": 1}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 5, "tid": 5, "ts": 20, "dur": 5}
  )J");
  TraceModel Dropped = readOk(Json);
  EXPECT_EQ(Dropped.Stats.SkippedPython, 2u);
  EXPECT_EQ(Dropped.Ranges.size(), 1u);
  KinetoOptions Keep;
  Keep.KeepPythonFunctions = true;
  TraceModel Kept = readOk(Json, Keep);
  EXPECT_EQ(Kept.Stats.SkippedPython, 0u);
  ASSERT_EQ(Kept.Ranges.size(), 3u);
  EXPECT_EQ(Kept.Ranges[0].Kind, RangeKind::Module);
  EXPECT_EQ(Kept.Ranges[1].Kind, RangeKind::Op);
  EXPECT_EQ(nameOf(Kept, Kept.Ranges[1].Name),
            "threading.py(1032): _bootstrap");
}

TEST(KinetoReaderTest, MemoryInstants) {
  TraceModel M = readOk(wrap(R"J(
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 783658, "tid": 785244, "ts": 1669783687464300, "args": {"Ev Idx": 42070, "Device Type": 1, "Device Id": 1, "Addr": 139926520725504, "Bytes": 5242880, "Total Allocated": 5435638784, "Total Reserved": 12782141440}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 783658, "tid": 785244, "ts": 1669783687464400, "args": {"Device Type": 1, "Device Id": 1, "Addr": 139926520725504, "Bytes": -5242880, "Total Allocated": 193000000, "Total Reserved": 12782141440}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 783658, "tid": 785244, "ts": 1669783687464500, "args": {"Device Type": 0, "Device Id": -1, "Bytes": 64}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 783658, "tid": 785244, "ts": 1669783687464600, "args": {"Device Type": 1}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 783658, "tid": 785244, "ts": 1669783687464700, "args": {"Device Type": 1, "Device Id": -3, "Bytes": 8, "Total Allocated": -512, "Total Reserved": -7}}
  )J"));
  ASSERT_EQ(M.Memory.size(), 4u);
  EXPECT_EQ(M.Stats.MissingFields, 1u); // the one without Bytes
  const import::MemoryRecord &A = M.Memory[0];
  EXPECT_EQ(A.TimeNs, 1669783687464300000);
  EXPECT_EQ(A.Bytes, 5242880);
  EXPECT_EQ(A.TotalAllocated, 5435638784);
  EXPECT_EQ(A.TotalReserved, 12782141440);
  EXPECT_EQ(A.Address, 139926520725504u);
  EXPECT_EQ(A.Device, 1);
  EXPECT_EQ(M.Threads[A.Thread].Tid, 785244);
  EXPECT_EQ(M.Memory[1].Bytes, -5242880);
  EXPECT_EQ(M.Memory[2].Device, -1);
  // Garbage totals and device ids (found by the fuzzer) read as unknown, so
  // the graph still verifies.
  EXPECT_EQ(M.Memory[3].TotalAllocated, -1);
  EXPECT_EQ(M.Memory[3].TotalReserved, -1);
  EXPECT_EQ(M.Memory[3].Device, -1);
}

TEST(KinetoReaderTest, CudaSyncRecords) {
  TraceModel M = readOk(wrap(R"J(
    {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": 1707417525512283, "dur": 5, "args": {"External id": 1512, "cuda_sync_kind": "Stream Sync", "stream": 7, "correlation": 1512, "device": 0, "context": 1}},
    {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 0, "tid": -1, "ts": 1712867402348628, "dur": 4, "args": {"cuda_sync_kind": "Event Sync", "wait_on_stream": -1, "wait_on_cuda_event_record_corr_id": -1, "wait_on_cuda_event_id": 9, "stream": -1, "correlation": 24, "device": 0}},
    {"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 24, "ts": 1712867402367683, "dur": 2, "args": {"cuda_sync_kind": "Stream Wait Event", "wait_on_stream": 20, "wait_on_cuda_event_record_corr_id": 1385, "stream": 24, "correlation": 1389, "device": 0}},
    {"ph": "X", "cat": "cuda_sync", "name": "Context Sync", "pid": 1, "tid": -1, "ts": 1712867402368167, "dur": 19, "args": {"cuda_sync_kind": "Context Sync", "stream": -1, "correlation": 1424}}
  )J"));
  ASSERT_EQ(M.Syncs.size(), 4u);
  EXPECT_EQ(M.Syncs[0].Kind, ApiKind::StreamSync);
  EXPECT_EQ(M.Syncs[0].Stream, 7);
  EXPECT_EQ(M.Syncs[0].Correlation, 1512u);
  EXPECT_EQ(M.Syncs[0].Device, 0);
  EXPECT_EQ(M.Syncs[1].Kind, ApiKind::EventSync);
  EXPECT_EQ(M.Syncs[1].EventRecordCorrelation, 0u); // -1: none
  EXPECT_EQ(M.Syncs[1].WaitOnStream, -1);
  EXPECT_EQ(M.Syncs[2].Kind, ApiKind::StreamWaitEvent);
  EXPECT_EQ(M.Syncs[2].WaitOnStream, 20);
  EXPECT_EQ(M.Syncs[2].Stream, 24);
  EXPECT_EQ(M.Syncs[2].EventRecordCorrelation, 1385u);
  EXPECT_EQ(M.Syncs[3].Kind, ApiKind::DeviceSync);
  EXPECT_EQ(M.Syncs[3].Device, 1); // from pid
  EXPECT_TRUE(M.Streams.empty());  // sync records make no streams
}

// Names for CPU threads and GPU streams, given before or after the events;
// names of threads no event uses create nothing.
TEST(KinetoReaderTest, ThreadAndStreamNames) {
  TraceModel M = readOk(wrap(R"J(
    {"name": "thread_name", "ph": "M", "ts": 1, "pid": 0, "tid": 7, "args": {"name": "stream 7 "}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 5, "dur": 1},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 20, "ts": 5, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "op", "pid": 100, "tid": 101, "ts": 5, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "op", "pid": 100, "tid": 102, "ts": 5, "dur": 1},
    {"name": "thread_name", "ph": "M", "ts": 1, "pid": 100, "tid": 101, "args": {"name": "thread 101 (pt_main_thread)"}},
    {"name": "thread_name", "ph": "M", "ts": 1, "pid": 100, "tid": 999, "args": {"name": "thread 999 (idle)"}},
    {"name": "thread_sort_index", "ph": "M", "ts": 1, "pid": 100, "tid": 101, "args": {"sort_index": 101}}
  )J"));
  ASSERT_EQ(M.Streams.size(), 2u);
  EXPECT_EQ(nameOf(M, M.Streams[0].Name), "stream 7");
  EXPECT_EQ(M.Streams[1].Name, NoId);
  ASSERT_EQ(M.Threads.size(), 2u);
  EXPECT_EQ(nameOf(M, M.Threads[0].Name), "thread 101 (pt_main_thread)");
  EXPECT_EQ(M.Threads[1].Name, NoId);
  EXPECT_EQ(M.Stats.SkippedOther, 1u); // thread_sort_index
}

TEST(KinetoReaderTest, DevicePropertiesAndRankInEitherOrder) {
  const char *Devices = R"J("deviceProperties": [
      {"id": 0, "name": "NVIDIA H800", "totalGlobalMem": 84943110144, "computeMajor": 9, "numSms": 132},
      {"id": 1, "name": "NVIDIA H800", "totalGlobalMem": 84943110144, "numSms": 132}],
    "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8, "pg_config": [{"ranks": [0, 1]}]})J";
  const char *Events =
      R"J("traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 5, "dur": 1}])J";
  for (bool DevicesFirst : {true, false}) {
    std::string Json = std::string("{") + (DevicesFirst ? Devices : Events) +
                       ", " + (DevicesFirst ? Events : Devices) + "}";
    TraceModel M = readOk(Json);
    ASSERT_EQ(M.Meta.Devices.size(), 2u);
    EXPECT_EQ(M.Meta.Devices[0].Index, 0);
    EXPECT_EQ(M.Meta.Devices[1].Index, 1);
    EXPECT_EQ(M.Meta.Devices[0].Name, "NVIDIA H800");
    EXPECT_EQ(M.Meta.Devices[0].SmCount, 132);
    EXPECT_EQ(M.Meta.Devices[0].MemoryBytes, 84943110144u);
    EXPECT_EQ(M.Meta.Devices[0].PeakFp32Tflops, 0);
    ASSERT_EQ(M.Meta.Ranks.size(), 1u);
    EXPECT_EQ(M.Meta.Ranks[0].Rank, 3);
    EXPECT_EQ(M.Meta.Ranks[0].WorldSize, 8);
    EXPECT_EQ(M.Activities.size(), 1u);
  }
}

TEST(KinetoReaderTest, BareArray) {
  TraceModel M = readOk(R"J([
    {"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 2, "ts": 5, "dur": 1}
  ])J");
  EXPECT_EQ(M.Ranges.size(), 1u);
  EXPECT_TRUE(M.Meta.Devices.empty());
}

// Keys in any order: args before cat, name before cat, ts after args.
TEST(KinetoReaderTest, KeysInAnyOrder) {
  TraceModel M = readOk(wrap(R"J(
    {"args": {"correlation": 9, "grid": [2, 3, 4], "bytes": 5}, "dur": 1, "name": "k", "tid": 7, "pid": 0, "cat": "kernel", "ph": "X", "ts": 5},
    {"name": "aten::mm", "args": {"Input Dims": [[2, 2]]}, "ts": 6, "ph": "X", "pid": 1, "tid": 1, "dur": 2, "cat": "cpu_op"}
  )J"));
  ASSERT_EQ(M.Activities.size(), 1u);
  EXPECT_EQ(M.Activities[0].Correlation, 9u);
  EXPECT_EQ(M.Activities[0].Attrs.Grid[2], 4u);
  EXPECT_EQ(M.Activities[0].Attrs.Bytes, 0u); // bytes are for copies only
  ASSERT_EQ(M.Ranges.size(), 1u);
  EXPECT_EQ(nameOf(M, M.Ranges[0].Name), "aten::mm");
}

TEST(KinetoReaderTest, MissingFieldsAreCountedNotFatal) {
  TraceModel M = readOk(wrap(R"J(
    {"ph": "X", "cat": "kernel", "name": "no ts", "pid": 0, "tid": 7, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "no dur", "pid": 1, "tid": 1, "ts": 5},
    {"ph": "X", "cat": "cpu_op", "name": "string ts", "pid": 1, "tid": 1, "ts": "5", "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "negative dur", "pid": 1, "tid": 1, "ts": 5, "dur": -1},
    {"ph": "X", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": 5, "dur": 1},
    {"ph": "X", "cat": "cuda_runtime", "name": "no tid", "pid": 1, "ts": 5, "dur": 1},
    {"ph": "X", "cat": "kernel", "name": "no stream", "ts": 5, "dur": 1, "args": {"device": 0}},
    {"cat": "cpu_op", "name": "no ph", "pid": 1, "tid": 1, "ts": 5, "dur": 1},
    {"ph": "i", "name": "[memory]", "pid": 1, "tid": 1, "args": {"Bytes": 4}},
    {"ph": "X", "cat": "cpu_op", "name": "huge ts", "pid": 1, "tid": 1, "ts": 1e30, "dur": 1},
    42,
    {"ph": "X", "cat": "kernel", "name": "no correlation is fine", "pid": 0, "tid": 7, "ts": 5, "dur": 1}
  )J"));
  EXPECT_EQ(M.Stats.Events, 12u);
  EXPECT_EQ(M.Stats.MissingFields, 11u);
  ASSERT_EQ(M.Activities.size(), 1u);
  EXPECT_EQ(M.Activities[0].Correlation, 0u);
  EXPECT_TRUE(M.Ranges.empty());
  EXPECT_TRUE(M.Calls.empty());
}

TEST(KinetoReaderTest, EmptyAndNonTraceInputs) {
  EXPECT_EQ(readError(""), "t.json: empty trace");
  EXPECT_EQ(readError(" \n\t "), "t.json: empty trace");
  EXPECT_EQ(readError("{}"),
            "t.json: not a Kineto trace (no traceEvents array)");
  EXPECT_EQ(readError("{\"traceEvents\": 5}"),
            "t.json: not a Kineto trace (no traceEvents array)");
  EXPECT_EQ(readError("42"),
            "t.json: not a Kineto trace (no traceEvents array)");
  EXPECT_EQ(readError("\"traceEvents\""),
            "t.json: not a Kineto trace (no traceEvents array)");
  EXPECT_EQ(readError("{\"traceEvents\": []}"),
            "t.json: empty trace (no events)");
  EXPECT_EQ(readError("[]"), "t.json: empty trace (no events)");
}

TEST(KinetoReaderTest, MalformedJsonNamesTheByte) {
  // A missing value: simdjson stops at the comma after "ph":.
  std::string Json = R"J({"traceEvents": [{"ph": , "ts": 1}]})J";
  EXPECT_EQ(readError(Json).rfind("t.json: malformed JSON at byte 24: ", 0), 0u)
      << readError(Json);
  // A string that never ends is located at its opening quote.
  EXPECT_EQ(readError(R"J({"traceEvents": [{"name": "abc}]})J")
                .rfind("t.json: malformed JSON at byte 26: ", 0),
            0u);
  // A string cut after a backslash, at the very end.
  EXPECT_EQ(readError("[{\"name\": \"a\\")
                .rfind("t.json: malformed JSON at byte 10: ", 0),
            0u)
      << readError("[{\"name\": \"a\\");
  // Truncated in the middle of the events.
  std::string Cut = R"J({"traceEvents": [{"ph": "X", "ts": 1}, {"ph")J";
  EXPECT_EQ(readError(Cut).rfind("t.json: malformed JSON at byte " +
                                     std::to_string(Cut.size()) + ": ",
                                 0),
            0u)
      << readError(Cut);
  std::string Trailing = R"J({"traceEvents": [{"ph": "M"}]} x)J";
  EXPECT_EQ(readError(Trailing),
            "t.json: malformed JSON at byte 31: Unexpected trailing content "
            "in the JSON input.");
  std::string BadUtf8 = "{\"traceEvents\": [{\"name\": \"a\xff\"}]}";
  EXPECT_EQ(readError(BadUtf8).rfind("t.json: malformed JSON at byte 28: ", 0),
            0u)
      << readError(BadUtf8);
}

TEST(KinetoReaderTest, ProgressEndsAtTotal) {
  std::string Json = wrap(
      R"J({"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 2, "ts": 5, "dur": 1})J");
  auto In = makeInputFile("t.json", Json);
  ASSERT_TRUE(bool(In));
  uint64_t LastDone = 0, LastTotal = 0;
  unsigned Calls = 0;
  auto M = readKinetoTrace(*In, {}, [&](uint64_t Done, uint64_t Total) {
    LastDone = Done;
    LastTotal = Total;
    ++Calls;
  });
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  EXPECT_EQ(Calls, 1u);
  EXPECT_EQ(LastDone, Json.size());
  EXPECT_EQ(LastTotal, Json.size());
}

//===----------------------------------------------------------------------===//
// The real traces, when ../shared/traces is there.
//===----------------------------------------------------------------------===//

/// ../shared/traces/kineto/<Name> next to this checkout, or "" if absent.
std::string sharedTrace(llvm::StringRef Name) {
  llvm::SmallString<256> Path(__FILE__);
  for (int I = 0; I != 3; ++I) // unittests/Import/<file>
    llvm::sys::path::remove_filename(Path);
  llvm::sys::path::append(Path, "..", "shared", "traces");
  llvm::sys::path::append(Path, "kineto", Name);
  return llvm::sys::fs::exists(Path) ? std::string(Path) : std::string();
}

struct RealTraceCounts {
  size_t Kernels = 0;
  std::vector<std::string> Steps;
};

RealTraceCounts readShared(llvm::StringRef Name, TraceModel &M) {
  RealTraceCounts C;
  std::string Path = sharedTrace(Name);
  auto In = loadInputFile(Path);
  if (!In) {
    ADD_FAILURE() << llvm::toString(In.takeError());
    return C;
  }
  auto Start = std::chrono::steady_clock::now();
  auto Model = readKinetoTrace(*In);
  double Secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  if (!Model) {
    ADD_FAILURE() << llvm::toString(Model.takeError());
    return C;
  }
  M = std::move(*Model);
  double MB = In->Bytes.size() / 1e6;
  std::printf("[ perf     ] %s: %.1f MB of JSON, %llu events in %.1f ms = "
              "%.0f MB/s\n",
              Name.str().c_str(), MB, (unsigned long long)M.Stats.Events,
              Secs * 1e3, MB / Secs);
  for (const GpuActivity &A : M.Activities)
    C.Kernels += A.Kind == TaskKind::Kernel;
  for (const CpuRange &R : M.Ranges)
    if (R.Kind == RangeKind::Step)
      C.Steps.push_back(M.Strings.get(R.Name).str());
  std::sort(C.Steps.begin(), C.Steps.end(), [](const auto &A, const auto &B) {
    return A.size() != B.size() ? A.size() < B.size() : A < B;
  });
  return C;
}

TEST(KinetoRealTraceTest, ResnetV100) {
  if (sharedTrace("resnet_v100_train.json.gz").empty())
    GTEST_SKIP() << "../shared/traces not present";
  TraceModel M;
  RealTraceCounts C = readShared("resnet_v100_train.json.gz", M);
  EXPECT_EQ(C.Kernels, 4350u);
  EXPECT_EQ(C.Steps,
            (std::vector<std::string>{"ProfilerStep#101", "ProfilerStep#102",
                                      "ProfilerStep#103", "ProfilerStep#104",
                                      "ProfilerStep#105"}));
  EXPECT_EQ(M.Stats.MissingFields, 0u);
  ASSERT_FALSE(M.Meta.Devices.empty());
  EXPECT_EQ(M.Meta.Devices[0].Name, "Tesla V100-SXM2-32GB");
  EXPECT_EQ(M.Meta.Devices[0].SmCount, 80);
  // ProfilerStep#101 lasts 35,116 us by the README.
  for (const CpuRange &R : M.Ranges)
    if (M.Strings.get(R.Name) == "ProfilerStep#101")
      EXPECT_NEAR(double(R.EndNs - R.StartNs), 35116e3, 1e3);
}

TEST(KinetoRealTraceTest, Resnet50V100Format2021) {
  if (sharedTrace("resnet50_v100_2021format.json.gz").empty())
    GTEST_SKIP() << "../shared/traces not present";
  TraceModel M;
  RealTraceCounts C = readShared("resnet50_v100_2021format.json.gz", M);
  EXPECT_EQ(C.Kernels, 8772u);
  EXPECT_EQ(C.Steps,
            (std::vector<std::string>{"ProfilerStep#5", "ProfilerStep#6",
                                      "ProfilerStep#7", "ProfilerStep#8",
                                      "ProfilerStep#9", "ProfilerStep#10"}));
  EXPECT_EQ(M.Stats.MissingFields, 0u);
  // Every GPU event of that file is on device 0, stream 7 ("stream 7").
  for (const StreamInfo &S : M.Streams)
    EXPECT_EQ(S.Stream, 7);
}

TEST(KinetoRealTraceTest, EveryKinetoTraceReads) {
  std::string Dir = sharedTrace("");
  if (Dir.empty())
    GTEST_SKIP() << "../shared/traces not present";
  std::error_code EC;
  std::vector<std::string> Files;
  for (llvm::sys::fs::recursive_directory_iterator It(Dir, EC), End;
       It != End && !EC; It.increment(EC))
    if (llvm::StringRef(It->path()).endswith(".json.gz"))
      Files.push_back(
          llvm::StringRef(It->path()).drop_front(Dir.size()).ltrim('/').str());
  std::sort(Files.begin(), Files.end());
  EXPECT_GE(Files.size(), 9u);
  for (const std::string &F : Files) {
    if (F == "resnet_v100_train.json.gz" ||
        F == "resnet50_v100_2021format.json.gz")
      continue; // timed above
    TraceModel M;
    readShared(F, M);
    EXPECT_GT(M.Activities.size(), 0u) << F;
    EXPECT_EQ(M.Stats.MissingFields, 0u) << F;
  }
}

} // namespace
