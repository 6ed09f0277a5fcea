//===- NsysReaderTest.cpp - Nsight Systems SQLite front-end ---------------===//
//
// Small nsys exports built here with the sqlite3 C API, one behaviour each:
// every table and enum mapping, missing tables and NULL fields, and the
// files that must fail (text, an unrelated database, a truncated one). The
// tables use the column names of a real nsys 2022.2 export. A last test
// reads that real export from ../shared/traces when it is there.
//
//===----------------------------------------------------------------------===//

#include "daydream/Import/NsysReader.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <sqlite3.h>

#include <cstdlib>
#include <cstring>

using namespace dd;
using namespace dd::import;

namespace {

/// The tables of a real export, reduced to the columns that matter here
/// plus a few that do not, so the reader must pick columns by name.
const char *const Schema = R"sql(
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER,
  eventClass INTEGER, globalTid INTEGER, correlationId INTEGER,
  nameId INTEGER, returnValue INTEGER, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER,
  deviceId INTEGER, contextId INTEGER, streamId INTEGER,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,
  shortName INTEGER, registersPerThread INTEGER, gridX INTEGER,
  gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER,
  blockZ INTEGER, staticSharedMemory INTEGER, dynamicSharedMemory INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER,
  deviceId INTEGER, contextId INTEGER, streamId INTEGER,
  correlationId INTEGER, globalPid INTEGER, bytes INTEGER,
  copyKind INTEGER, srcKind INTEGER, dstKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER, end INTEGER,
  deviceId INTEGER, contextId INTEGER, streamId INTEGER,
  correlationId INTEGER, globalPid INTEGER, value INTEGER, bytes INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER,
  end INTEGER, deviceId INTEGER, contextId INTEGER, streamId INTEGER,
  correlationId INTEGER, globalPid INTEGER, syncType INTEGER,
  eventId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_CUDA_EVENT (deviceId INTEGER,
  contextId INTEGER, streamId INTEGER, correlationId INTEGER,
  globalPid INTEGER, eventId INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT,
  globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER, id INTEGER, name TEXT,
  totalMemory INTEGER, memoryBandwidth INTEGER, smCount INTEGER,
  cuDevice INTEGER);
CREATE TABLE ThreadNames (nameId INTEGER, priority INTEGER,
  globalTid INTEGER);
)sql";

/// A GlobalId as nsys writes it: VM id 1 above bit 48, then pid and tid.
std::string gtid(int64_t Pid, int64_t Tid) {
  return std::to_string((int64_t(1) << 48) | Pid << 24 | Tid);
}

/// Spells the test's threads in SQL: $MAIN (pid 4242, tid 4242), $WORKER
/// (tid 4250) and $HELPER (tid 4300), all of process 4242.
std::string withThreads(std::string Sql) {
  for (auto [Name, Tid] : {std::pair<const char *, int64_t>{"$MAIN", 4242},
                           {"$WORKER", 4250},
                           {"$HELPER", 4300}})
    for (size_t At; (At = Sql.find(Name)) != std::string::npos;)
      Sql.replace(At, strlen(Name), gtid(4242, Tid));
  return Sql;
}

class NsysReaderTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("nsys-reader", Dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  std::string path(llvm::StringRef Name) {
    llvm::SmallString<128> P(Dir);
    llvm::sys::path::append(P, Name);
    return std::string(P);
  }
  /// Writes a database made by running Sql.
  std::string makeDb(const std::string &Sql, llvm::StringRef Name = "t.db") {
    std::string P = path(Name);
    sqlite3 *Db = nullptr;
    EXPECT_EQ(sqlite3_open(P.c_str(), &Db), SQLITE_OK);
    char *Err = nullptr;
    std::string All = "BEGIN;" + withThreads(Sql) + "COMMIT;";
    EXPECT_EQ(sqlite3_exec(Db, All.c_str(), nullptr, nullptr, &Err), SQLITE_OK)
        << (Err ? Err : "");
    sqlite3_free(Err);
    sqlite3_close(Db);
    return P;
  }
  std::string makeFile(llvm::StringRef Bytes, llvm::StringRef Name) {
    std::string P = path(Name);
    std::error_code EC;
    llvm::raw_fd_ostream OS(P, EC);
    OS << Bytes;
    return P;
  }
  TraceModel read(const std::string &Sql) {
    auto M = readNsysTrace(makeDb(Schema + Sql));
    EXPECT_TRUE(bool(M)) << llvm::toString(M.takeError());
    return M ? std::move(*M) : TraceModel();
  }
  std::string readError(const std::string &P) {
    auto M = readNsysTrace(P);
    return M ? "ok" : llvm::toString(M.takeError());
  }

  llvm::SmallString<128> Dir;
};

TEST_F(NsysReaderTest, RuntimeAndDriverCalls) {
  TraceModel M = read(
      "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'),"
      " (2, 'cudaLaunchKernel'), (3, 'cudaStreamSynchronize_v3020'),"
      " (4, 'cuModuleGetLoadingMode'), (5, 'cuLaunchKernel');"
      // eventClass 0 runtime, 1 driver, 67 the backtrace twin of a call.
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
      " (100, 200, 0, $MAIN, 7, 1, 0, NULL),"
      " (99, 201, 67, $MAIN, 7, 2, 0, 0),"
      " (300, 400, 0, $WORKER, 8, 3, 0, NULL),"
      " (50, 60, 1, $MAIN, NULL, 4, 0, NULL),"
      " (70, 80, 0, NULL, 9, 1, 0, NULL),"   // no thread
      " (70, 80, 0, $MAIN, 9, 99, 0, NULL);" // no name
      "CREATE TABLE CUPTI_ACTIVITY_KIND_DRIVER (start INTEGER, end INTEGER,"
      " globalTid INTEGER, correlationId INTEGER, nameId INTEGER);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_DRIVER VALUES"
      " (500, 510, $WORKER, 10, 5);");
  ASSERT_EQ(M.Calls.size(), 4u);
  EXPECT_EQ(M.Stats.SkippedOther, 1u);
  EXPECT_EQ(M.Stats.MissingFields, 2u);
  EXPECT_EQ(M.Stats.Events, 7u);
  EXPECT_EQ(M.Meta.SourceFormat, "nsys");

  const ApiCall &Launch = M.Calls[0];
  EXPECT_EQ(Launch.StartNs, 100);
  EXPECT_EQ(Launch.EndNs, 200);
  EXPECT_EQ(Launch.Correlation, 7u);
  EXPECT_EQ(M.Strings.get(Launch.Name), "cudaLaunchKernel_v7000");
  EXPECT_EQ(Launch.Kind, ApiKind::Launch);
  EXPECT_EQ(M.Threads[Launch.Thread].Pid, 4242);
  EXPECT_EQ(M.Threads[Launch.Thread].Tid, 4242);

  EXPECT_EQ(M.Calls[1].Kind, ApiKind::StreamSync);
  EXPECT_EQ(M.Threads[M.Calls[1].Thread].Tid, 4250);
  EXPECT_EQ(M.Calls[2].Correlation, 0u);
  EXPECT_EQ(M.Calls[2].Kind, ApiKind::Other);
  EXPECT_EQ(M.Calls[2].Thread, Launch.Thread);
  EXPECT_EQ(M.Strings.get(M.Calls[3].Name), "cuLaunchKernel");
  EXPECT_EQ(M.Calls[3].Kind, ApiKind::Launch);
  EXPECT_EQ(M.Threads.size(), 2u);
}

TEST_F(NsysReaderTest, KernelsAndCollectives) {
  TraceModel M = read(
      "INSERT INTO StringIds VALUES (1, 'saxpy(double *, int)'), (2, 'saxpy'),"
      " (3, 'ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)'),"
      " (4, 'ncclKernel_AllReduce'), (5, 'short_only');"
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
      " (10, 20, 0, 1, 7, 140, 0, 1, 2, 26, 2, 3, 4, 512, 2, 1, 1024, 2048),"
      " (30, 40, 0, 1, 7, 141, 0, 1, 2, 26, 2, 1, 1, 512, 1, 1, 0, 0),"
      " (50, 60, 1, 1, 13, 142, 0, 3, 4, 64, 1, 1, 1, 64, 1, 1, 0, 0),"
      " (70, 80, 0, 1, 7, NULL, 0, NULL, 5, 8, 1, 1, 1, 32, 1, 1, 0, 0),"
      " (NULL, 80, 0, 1, 7, 143, 0, 1, 2, 8, 1, 1, 1, 32, 1, 1, 0, 0);");
  ASSERT_EQ(M.Activities.size(), 4u);
  EXPECT_EQ(M.Stats.MissingFields, 1u);
  const GpuActivity &K = M.Activities[0];
  EXPECT_EQ(K.Kind, TaskKind::Kernel);
  EXPECT_EQ(M.Strings.get(K.Name), "saxpy(double *, int)");
  EXPECT_EQ(K.Correlation, 140u);
  EXPECT_EQ(M.Streams[K.Stream].Device, 0);
  EXPECT_EQ(M.Streams[K.Stream].Stream, 7);
  ASSERT_TRUE(K.HasAttrs);
  EXPECT_EQ(K.Attrs.Grid[0], 2u);
  EXPECT_EQ(K.Attrs.Grid[1], 3u);
  EXPECT_EQ(K.Attrs.Grid[2], 4u);
  EXPECT_EQ(K.Attrs.Block[0], 512u);
  EXPECT_EQ(K.Attrs.Block[1], 2u);
  EXPECT_EQ(K.Attrs.RegistersPerThread, 26u);
  EXPECT_EQ(K.Attrs.SharedMemBytes, 3072u);
  // One StringIds id, one interned name.
  EXPECT_EQ(M.Activities[1].Name, K.Name);
  EXPECT_EQ(M.Activities[1].Stream, K.Stream);

  EXPECT_EQ(M.Activities[2].Kind, TaskKind::Collective);
  EXPECT_EQ(M.Streams[M.Activities[2].Stream].Device, 1);
  EXPECT_EQ(M.Streams[M.Activities[2].Stream].Stream, 13);
  // No demangled name: the short one.
  EXPECT_EQ(M.Strings.get(M.Activities[3].Name), "short_only");
  EXPECT_EQ(M.Activities[3].Correlation, 0u);
}

TEST_F(NsysReaderTest, CopiesAndSets) {
  TraceModel M = read("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES"
                      " (1, 2, 0, 1, 7, 11, 0, 4096, 1, 0, 2),"
                      " (3, 4, 0, 1, 7, 12, 0, 8192, 2, 2, 0),"
                      " (5, 6, 0, 1, 7, 13, 0, 16, 8, 2, 2),"
                      " (7, 8, 0, 1, 7, 14, 0, 32, 10, 2, 2),"
                      " (9, 10, 0, 1, 7, 15, 0, 64, 9, 0, 0),"
                      " (9, 10, 0, 1, 7, 16, 0, NULL, 1, 0, 2);"
                      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES"
                      " (11, 12, 0, 1, 8, 17, 0, 0, 1000);");
  ASSERT_EQ(M.Activities.size(), 6u);
  EXPECT_EQ(M.Stats.MissingFields, 1u);
  const char *Names[] = {"Memcpy HtoD", "Memcpy DtoH", "Memcpy DtoD",
                         "Memcpy PtoP", "Memcpy HtoH"};
  const CopyKind Kinds[] = {CopyKind::HostToDevice, CopyKind::DeviceToHost,
                            CopyKind::DeviceToDevice, CopyKind::PeerToPeer,
                            CopyKind::Unknown};
  for (int I = 0; I < 5; ++I) {
    const GpuActivity &A = M.Activities[I];
    EXPECT_EQ(A.Kind, TaskKind::Memcpy);
    EXPECT_EQ(M.Strings.get(A.Name), Names[I]);
    EXPECT_EQ(A.Attrs.CopyKind, uint8_t(Kinds[I]));
    EXPECT_EQ(A.Correlation, uint32_t(11 + I));
  }
  EXPECT_EQ(M.Activities[1].Attrs.Bytes, 8192u);
  const GpuActivity &Set = M.Activities[5];
  EXPECT_EQ(Set.Kind, TaskKind::Memset);
  EXPECT_EQ(M.Strings.get(Set.Name), "Memset");
  EXPECT_EQ(Set.Attrs.Bytes, 1000u);
  EXPECT_EQ(M.Streams[Set.Stream].Stream, 8);
}

TEST_F(NsysReaderTest, SynchronizationAndEventRecords) {
  // Event 5 is recorded on stream 7 (correlations 20 and 40) and on stream
  // 9 (60); each wait finds the latest record before it.
  TraceModel M =
      read("INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT VALUES"
           " (0, 1, 7, 20, 0, 5), (0, 1, 7, 40, 0, 5), (0, 1, 9, 60, 0, 5);"
           "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES"
           " (1, 2, 0, 1, 4294967295, 50, 0, 1, 5),"
           " (3, 4, 0, 1, 13, 70, 0, 2, 5),"
           " (5, 6, 0, 1, 7, 80, 0, 3, 4294967295),"
           " (7, 8, 0, 1, 4294967295, 90, 0, 4, 4294967295),"
           " (9, 10, 0, 1, 7, 95, 0, 9, 0),"
           " (9, 10, 0, 1, 13, 10, 0, 2, 6);");
  ASSERT_EQ(M.Syncs.size(), 5u);
  EXPECT_EQ(M.Stats.SkippedOther, 1u);
  const SyncRecord &Event = M.Syncs[0];
  EXPECT_EQ(Event.Kind, ApiKind::EventSync);
  EXPECT_EQ(Event.Correlation, 50u);
  EXPECT_EQ(Event.Stream, -1);
  EXPECT_EQ(Event.WaitOnStream, 7);
  EXPECT_EQ(Event.EventRecordCorrelation, 40u);
  const SyncRecord &Wait = M.Syncs[1];
  EXPECT_EQ(Wait.Kind, ApiKind::StreamWaitEvent);
  EXPECT_EQ(Wait.Stream, 13);
  EXPECT_EQ(Wait.WaitOnStream, 9);
  EXPECT_EQ(Wait.EventRecordCorrelation, 60u);
  EXPECT_EQ(M.Syncs[2].Kind, ApiKind::StreamSync);
  EXPECT_EQ(M.Syncs[2].Stream, 7);
  EXPECT_EQ(M.Syncs[2].Device, 0);
  EXPECT_EQ(M.Syncs[3].Kind, ApiKind::DeviceSync);
  EXPECT_EQ(M.Syncs[3].Stream, -1);
  // An event never recorded: the wait is kept, its source unknown.
  EXPECT_EQ(M.Syncs[4].WaitOnStream, -1);
  EXPECT_EQ(M.Syncs[4].EventRecordCorrelation, 0u);
}

TEST_F(NsysReaderTest, NvtxRangesAndSteps) {
  TraceModel M =
      read("INSERT INTO StringIds VALUES (1, 'forward'), (2, 'ProfilerStep#3');"
           "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid,"
           " textId, domainId) VALUES"
           " (0, NULL, 75, 'MyDomain', $MAIN, NULL, 1),"    // domain create
           " (1, NULL, 34, 'a mark', $MAIN, NULL, 0),"      // mark
           " (2, NULL, 39, 'Main thread', $MAIN, NULL, 0)," // thread name
           " (10, 90, 59, NULL, $MAIN, 2, 1),"
           " (20, 30, 59, NULL, $MAIN, 1, 1),"
           " (40, 50, 60, 'iteration 2', $MAIN, NULL, 0),"
           " (41, 42, 59, 'step_12', $MAIN, NULL, 0),"
           " (43, 44, 59, 'Step#4', $MAIN, NULL, 0),"
           " (45, 46, 59, 'stepper', $MAIN, NULL, 0),"
           " (47, 48, 59, 'steps 3', $MAIN, NULL, 0),"
           " (60, NULL, 59, 'unclosed', $MAIN, NULL, 0),"
           " (61, 62, 59, NULL, $MAIN, NULL, 0);");
  ASSERT_EQ(M.Ranges.size(), 7u);
  EXPECT_EQ(M.Stats.SkippedOther, 3u);
  EXPECT_EQ(M.Stats.MissingFields, 2u);
  const char *Names[] = {"ProfilerStep#3", "forward", "iteration 2", "step_12",
                         "Step#4",         "stepper", "steps 3"};
  const RangeKind Kinds[] = {RangeKind::Step,      RangeKind::Annotation,
                             RangeKind::Step,      RangeKind::Step,
                             RangeKind::Step,      RangeKind::Annotation,
                             RangeKind::Annotation};
  for (int I = 0; I < 7; ++I) {
    EXPECT_EQ(M.Strings.get(M.Ranges[I].Name), Names[I]);
    EXPECT_EQ(M.Ranges[I].Kind, Kinds[I]) << Names[I];
  }
  EXPECT_EQ(M.Ranges[0].StartNs, 10);
  EXPECT_EQ(M.Ranges[0].EndNs, 90);
  EXPECT_EQ(M.Threads[M.Ranges[0].Thread].Tid, 4242);
}

TEST_F(NsysReaderTest, DevicesAndThreadNames) {
  TraceModel M = read(
      "INSERT INTO StringIds VALUES (1, 'cudaFree'), (2, 'MPI Rank 0'),"
      " (3, '[NSys]');"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
      " (1, 2, 0, $MAIN, 1, 1, 0, NULL);"
      "INSERT INTO ThreadNames VALUES (2, 0, $MAIN), (3, 10, $HELPER);"
      "INSERT INTO TARGET_INFO_GPU VALUES"
      " (1, 0, 'NVIDIA A100-SXM4-40GB', 42297524224, 1555200000000, 108, 1);");
  ASSERT_EQ(M.Meta.Devices.size(), 1u);
  const Device &D = M.Meta.Devices[0];
  EXPECT_EQ(D.Index, 1); // cuDevice, the ordinal kernels use
  EXPECT_EQ(D.Name, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(D.SmCount, 108);
  EXPECT_EQ(D.MemoryBytes, 42297524224u);
  EXPECT_DOUBLE_EQ(D.MemoryBandwidthGBps, 1555.2);
  // The nsys helper thread made no calls: it gets no lane.
  ASSERT_EQ(M.Threads.size(), 1u);
  EXPECT_EQ(M.Strings.get(M.Threads[0].Name), "MPI Rank 0");
}

TEST_F(NsysReaderTest, CudaDeviceTableMapsOrdinals) {
  // Newer exports: TARGET_INFO_CUDA_DEVICE maps a process's CUDA ordinal
  // to the GPU; a helper process sees another GPU as ordinal 0.
  TraceModel M = read(
      "INSERT INTO StringIds VALUES (1, 'cudaFree');"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
      " (1, 2, 0, $MAIN, 1, 1, 0, NULL);"
      "INSERT INTO TARGET_INFO_GPU (vmId, id, name, smCount) VALUES"
      " (1, 0, 'GPU zero', 100), (1, 1, 'GPU one', 132);"
      "CREATE TABLE TARGET_INFO_CUDA_DEVICE (gpuId INTEGER, cudaId INTEGER,"
      " pid INTEGER, uuid TEXT, numMultiprocessors INTEGER);"
      "INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (0, 0, 17, '', 100),"
      " (1, 0, 4242, '', 132);");
  ASSERT_EQ(M.Meta.Devices.size(), 1u);
  EXPECT_EQ(M.Meta.Devices[0].Index, 0);
  EXPECT_EQ(M.Meta.Devices[0].Name, "GPU one");
  EXPECT_EQ(M.Meta.Devices[0].SmCount, 132);
}

TEST_F(NsysReaderTest, MissingTablesReadAsEmpty) {
  // A CPU-only export: strings and NVTX, no CUPTI table at all.
  auto M = readNsysTrace(makeDb(
      "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
      "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER,"
      " eventType INTEGER, text TEXT, globalTid INTEGER, textId INTEGER);"
      "INSERT INTO NVTX_EVENTS VALUES (1, 2, 59, 'load', $MAIN, NULL);"));
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  EXPECT_EQ(M->Ranges.size(), 1u);
  EXPECT_TRUE(M->Calls.empty());
  EXPECT_TRUE(M->Activities.empty());
  EXPECT_TRUE(M->Meta.Devices.empty());
  EXPECT_EQ(M->Meta.Producer, "NVIDIA Nsight Systems");
}

TEST_F(NsysReaderTest, MissingRequiredColumn) {
  std::string P = makeDb(
      "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER,"
      " deviceId INTEGER);");
  EXPECT_EQ(readError(P), P + ": table CUPTI_ACTIVITY_KIND_KERNEL has no "
                              "column 'streamId'");
}

TEST_F(NsysReaderTest, RejectsNonDatabases) {
  std::string Text = makeFile("{\"traceEvents\": []}\n", "trace.json");
  EXPECT_EQ(readError(Text), Text + ": not an SQLite database");
  std::string Empty = makeFile("", "empty.sqlite");
  EXPECT_EQ(readError(Empty), Empty + ": not an SQLite database");
  std::string Missing = path("missing.sqlite");
  EXPECT_EQ(readError(Missing).rfind(Missing + ": ", 0), 0u);
  EXPECT_EQ(readError(std::string(Dir)), std::string(Dir) + ": is a directory");
}

TEST_F(NsysReaderTest, RejectsUnrelatedDatabase) {
  std::string P = makeDb("CREATE TABLE users (id INTEGER, name TEXT);");
  EXPECT_EQ(readError(P),
            P + ": not an Nsight Systems export (no StringIds table)");
}

TEST_F(NsysReaderTest, RejectsTruncatedAndDamagedDatabases) {
  std::string Sql = std::string(Schema) +
                    "WITH RECURSIVE N(I) AS (SELECT 1 UNION ALL SELECT I + 1 "
                    "FROM N WHERE I < 3000) INSERT INTO StringIds SELECT I, "
                    "printf('kernel_name_number_%d_padded_out', I) FROM N;";
  std::string P = makeDb(Sql);
  uint64_t Size = 0;
  ASSERT_FALSE(llvm::sys::fs::file_size(P, Size));
  ASSERT_GT(Size, 16384u);
  int FD;
  ASSERT_FALSE(
      llvm::sys::fs::openFileForWrite(P, FD, llvm::sys::fs::CD_OpenExisting));
  ASSERT_FALSE(llvm::sys::fs::resize_file(FD, Size / 2));
  llvm::sys::Process::SafelyCloseFileDescriptor(FD);
  EXPECT_EQ(readError(P).rfind(P + ": corrupt SQLite database: ", 0), 0u)
      << readError(P);

  // The magic, then garbage: an error, never a crash.
  std::string Garbage =
      makeFile(llvm::StringRef("SQLite format 3\0", 16).str() +
                   std::string(8192, '\xab'),
               "garbage.sqlite");
  EXPECT_EQ(readError(Garbage).rfind(Garbage + ": ", 0), 0u);
  EXPECT_NE(readError(Garbage), "ok");
}

TEST_F(NsysReaderTest, WrongTypesAndReversedIntervalsAreSkipped) {
  // SQLite keeps 'abc' and 1.5 as they are in an INTEGER column: read as
  // integers they would be 0 and 1. Each bad row is skipped and counted.
  TraceModel M =
      read("INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000');"
           "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
           " (100, 200, 0, $MAIN, 7, 1, 0, NULL),"
           " ('abc', 200, 0, $MAIN, 8, 1, 0, NULL),"     // text start
           " (100, 200.5, 0, $MAIN, 9, 1, 0, NULL),"     // fractional end
           " (100, 200, 0, $MAIN, x'00ff', 1, 0, NULL)," // blob correlation
           " (300, 250, 0, $MAIN, 10, 1, 0, NULL);" // ends before it starts
           "INSERT INTO NVTX_EVENTS VALUES"
           " (10, 5, 59, NULL, NULL, NULL, 'step', $MAIN, NULL, NULL, NULL),"
           " (10, 20, 59, NULL, NULL, NULL, 12345, $MAIN, NULL, NULL, NULL);");
  ASSERT_EQ(M.Calls.size(), 1u);
  EXPECT_EQ(M.Calls[0].Correlation, 7u);
  EXPECT_EQ(M.Stats.InvalidFields, 5u);
  EXPECT_EQ(M.Stats.Events, 7u);
  // A number where NVTX text is expected is text enough.
  ASSERT_EQ(M.Ranges.size(), 1u);
  EXPECT_EQ(M.Strings.get(M.Ranges[0].Name), "12345");
  // Tables are read NVTX first.
  ASSERT_EQ(M.Warnings.size(), 2u);
  EXPECT_NE(M.Warnings[0].find(": NVTX_EVENTS: 1 row skipped"),
            std::string::npos)
      << M.Warnings[0];
  EXPECT_NE(M.Warnings[1].find(": CUPTI_ACTIVITY_KIND_RUNTIME: 4 rows "
                               "skipped: a value of the wrong type"),
            std::string::npos)
      << M.Warnings[1];
}

TEST_F(NsysReaderTest, RefusesViews) {
  // A view runs a query the file defines: this one would never end.
  std::string P =
      makeDb("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
             "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE N(I) AS"
             " (SELECT 1 UNION ALL SELECT I + 1 FROM N) SELECT I AS start,"
             " I + 1 AS end, 0 AS deviceId, 7 AS streamId FROM N;");
  EXPECT_EQ(readError(P), P + ": CUPTI_ACTIVITY_KIND_KERNEL is a view, not a "
                              "table (an nsys export has no views; a view "
                              "runs a query the file defines)");
}

TEST_F(NsysReaderTest, WalModeDatabaseLeavesNothingBeside) {
  std::string P = makeDb(std::string(Schema) +
                             "INSERT INTO StringIds VALUES (1, 'cudaFree');"
                             "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
                             " (1, 2, 0, $MAIN, 7, 1, 0, NULL);",
                         "wal?#%.sqlite");
  sqlite3 *Db = nullptr;
  ASSERT_EQ(sqlite3_open(P.c_str(), &Db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(Db, "PRAGMA journal_mode=WAL;", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(Db);
  ASSERT_FALSE(llvm::sys::fs::exists(P + "-wal"));

  // The folder is read-only, as a shared trace folder would be: nothing can
  // be created beside the file, and nothing needs to be.
  ASSERT_FALSE(llvm::sys::fs::setPermissions(
      Dir, llvm::sys::fs::owner_read | llvm::sys::fs::owner_exe));
  auto M = readNsysTrace(P);
  ASSERT_FALSE(llvm::sys::fs::setPermissions(Dir, llvm::sys::fs::owner_all));
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  EXPECT_EQ(M->Calls.size(), 1u);
  EXPECT_TRUE(M->Warnings.empty());
  EXPECT_FALSE(llvm::sys::fs::exists(P + "-wal"));
  EXPECT_FALSE(llvm::sys::fs::exists(P + "-shm"));
}

TEST_F(NsysReaderTest, WarnsOfAnUnfoldedWriteAheadLog) {
  std::string P = makeDb(std::string(Schema) +
                         "INSERT INTO StringIds VALUES (1, 'cudaFree');"
                         "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
                         " (1, 2, 0, $MAIN, 7, 1, 0, NULL);");
  makeFile("not empty", "t.db-wal");
  auto M = readNsysTrace(P);
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  ASSERT_EQ(M->Warnings.size(), 1u);
  EXPECT_EQ(M->Warnings[0], P + ": " + P +
                                "-wal holds changes not yet in the database; "
                                "they are not read (open the database once "
                                "with sqlite3 to fold them in)");
}

/// The real export in ../shared/traces (never copied into the project):
/// an MPI+CUDA SAXPY on an A100, recorded by nsys 2022.2.
TEST(NsysReaderRealTrace, SaxpyA100) {
  llvm::SmallString<256> P;
  if (const char *Env = std::getenv("DAYDREAM_SHARED_TRACES")) {
    P = Env;
  } else {
    P = llvm::sys::path::parent_path(
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(__FILE__)));
    llvm::sys::path::append(P, "..", "shared", "traces");
  }
  llvm::sys::path::append(P, "nsys", "saxpy_a100.sqlite");
  if (!llvm::sys::fs::exists(P))
    GTEST_SKIP() << P.str().str() << " not found";
  auto M = readNsysTrace(P);
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());

  // 95 RUNTIME rows: 56 runtime calls, 1 driver call (eventClass 1) and
  // 38 backtrace twins (eventClass 67) that are skipped.
  EXPECT_EQ(M->Calls.size(), 57u);
  unsigned Launches = 0, Kernels = 0, Copies = 0;
  for (const ApiCall &C : M->Calls)
    Launches += C.Kind == ApiKind::Launch;
  for (const GpuActivity &A : M->Activities) {
    Kernels += A.Kind == TaskKind::Kernel;
    Copies += A.Kind == TaskKind::Memcpy;
    // Every GPU activity's launching call is in the trace.
    EXPECT_TRUE(llvm::any_of(M->Calls, [&](const ApiCall &C) {
      return C.Correlation == A.Correlation;
    }));
  }
  EXPECT_EQ(Launches, 5u);
  EXPECT_EQ(Kernels, 5u);
  EXPECT_EQ(Copies, 15u);
  // 24 NVTX rows: 22 push/pop ranges, a domain creation and a thread name.
  EXPECT_EQ(M->Ranges.size(), 22u);
  EXPECT_EQ(M->Stats.MissingFields, 0u);

  ASSERT_EQ(M->Meta.Devices.size(), 1u);
  EXPECT_EQ(M->Meta.Devices[0].Name, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(M->Meta.Devices[0].SmCount, 108);
  EXPECT_EQ(M->Meta.Producer, "NVIDIA Nsight Systems 2022.2.1.31");
  ASSERT_EQ(M->Threads.size(), 1u);
  EXPECT_EQ(M->Threads[0].Pid, 1230493);
  EXPECT_EQ(M->Threads[0].Tid, 1230493);
  EXPECT_EQ(M->Strings.get(M->Threads[0].Name), "MPI Rank 0");
}

} // namespace
