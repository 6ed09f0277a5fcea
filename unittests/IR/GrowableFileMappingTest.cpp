//===- GrowableFileMappingTest.cpp - File records that grow in place ------===//
//
// A file's records mapped with room after them: the mapping shows the
// file's bytes from any offset, the room past them is writable zeros, and
// no write reaches the file. A store borrowing such records adds records in
// place until the room is full, then copies them out; a graph read for
// change adds tasks and edges after the file's own without moving them.
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/GrowableFileMapping.h"
#include "GraphBuilder.h"
#include "IRTestUtil.h"
#include "daydream/IR/IRReader.h"
#include "daydream/IR/TaskStore.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#ifndef _WIN32
#include <fcntl.h>
#include <unistd.h>
#endif

using namespace dd;
using namespace dd::test;

namespace {

/// \p Bytes written to a temporary file; its path.
std::string writeTemp(llvm::StringRef Bytes) {
  return writeTempFile(Bytes, "growable", "bin");
}

std::string fileBytes(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  EXPECT_TRUE(bool(Buf));
  return Buf ? (*Buf)->getBuffer().str() : std::string();
}

#ifndef _WIN32

/// 20,000 bytes, each its offset mod 251 (a prime, so no page repeats).
std::string patternBytes() {
  std::string S(20000, '\0');
  for (size_t I = 0; I != S.size(); ++I)
    S[I] = char(I % 251);
  return S;
}

TEST(GrowableFileMappingTest, ShowsTheFilesBytesWithRoomAfterAndWritesNone) {
  const std::string Original = patternBytes();
  const std::string Path = writeTemp(Original);
  const int FD = ::open(Path.c_str(), O_RDONLY);
  ASSERT_GE(FD, 0);
  // From the middle of a page to the middle of another, with room for
  // 100,000 bytes in all: past the file's end too.
  std::unique_ptr<GrowableFileMapping> M =
      GrowableFileMapping::map(FD, 4100, 9000, 100000);
  ::close(FD); // the mapping outlives the descriptor
  ASSERT_TRUE(M);
  ASSERT_GE(M->capacity(), 100000u);
  EXPECT_EQ(llvm::StringRef(M->data(), 9000), Original.substr(4100, 9000));
  // Past the records: the rest of their last page is the file's next
  // bytes, the room after it zeros.
  EXPECT_EQ(M->data()[99999], 0);
  for (size_t I = 0; I != M->capacity(); ++I)
    M->data()[I] = 'x';
  EXPECT_EQ(fileBytes(Path), Original);
  M.reset();
  llvm::sys::fs::remove(Path);
}

TEST(GrowableFileMappingTest, AStoreGrowsInPlaceUntilTheRoomIsFull) {
  std::vector<Edge> Records = {{0, 1, EdgeKind::Launch},
                               {1, 2, EdgeKind::Sync}};
  const std::string Path =
      writeTemp(llvm::StringRef(reinterpret_cast<const char *>(Records.data()),
                                Records.size() * sizeof(Edge)));
  const int FD = ::open(Path.c_str(), O_RDONLY);
  ASSERT_GE(FD, 0);
  std::unique_ptr<GrowableFileMapping> M =
      GrowableFileMapping::map(FD, 0, 2 * sizeof(Edge), 4096);
  ::close(FD);
  ASSERT_TRUE(M);
  const size_t Room = M->capacity() / sizeof(Edge);
  ASSERT_GE(Room, 4096 / sizeof(Edge));
  auto *First = reinterpret_cast<Edge *>(M->data());
  EdgeStore S;
  S.borrow({First, 2}, std::move(M));
  EXPECT_TRUE(S.borrowed());
  EXPECT_EQ(S[1].Dst, 2u);
  while (S.size() != Room)
    S.push_back({TaskId(S.size()), TaskId(S.size() + 1), EdgeKind::Data});
  EXPECT_TRUE(S.borrowed());
  EXPECT_EQ(&S[0], First); // nothing moved
  EXPECT_EQ(S.roomFor(0), First + Room);
  S.append({{7, 8, EdgeKind::Data}}); // one past the room: copied out
  EXPECT_FALSE(S.borrowed());
  ASSERT_EQ(S.size(), Room + 1);
  EXPECT_EQ(S[1].Kind, EdgeKind::Sync);
  EXPECT_EQ(S[Room - 1].Src, TaskId(Room - 1));
  EXPECT_EQ(S[Room].Dst, 8u);
  EXPECT_EQ(fileBytes(Path).size(), 2 * sizeof(Edge));
  llvm::sys::fs::remove(Path);
}

#endif // _WIN32

/// 30,000 tasks on two lanes, each with an edge to the next.
Graph chainGraph() {
  Graph G;
  const LaneId Lanes[] = {addLane(G, "cpu"),
                          addLane(G, "stream 7", LaneKind::GpuStream)};
  for (unsigned I = 0; I != 30000; ++I)
    addTask(G, Lanes[I % 2], "task " + std::to_string(I % 100), 10 * int64_t(I),
            5 + I % 7, I % 2 ? TaskKind::Kernel : TaskKind::Runtime);
  for (TaskId T = 0; T + 1 != 30000; ++T)
    G.addEdge(T, T + 1, EdgeKind::Data);
  return G;
}

TEST(GrowableFileMappingTest, AGraphReadInPlaceAddsTasksAfterTheFilesOwn) {
  const Graph Original = chainGraph();
  const std::string Bytes = toBinary(Original);
  const std::string Path = writeTemp(Bytes);
  // Read for change, the tasks grow in place; read in place only, they are
  // copied out when the first is added, to the same graph.
  for (GraphUse Use : {GraphUse::Change, GraphUse::ReadInPlace}) {
    const bool Grows = Use == GraphUse::Change;
    llvm::Expected<Graph> G = readGraphFile(Path, Use);
    ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
    EXPECT_EQ(toText(*G), toText(Original));
    const Task *First = &G->task(0);
    const Edge *FirstEdge = &G->edgeSlots()[0];
    // A tenth more of each, one at a time, as a pass adds them.
    for (unsigned I = 0; I != 3000; ++I) {
      const TaskId T = addTask(*G, 1, "added", 400000 + 10 * int64_t(I), 3,
                               TaskKind::Kernel);
      G->addEdge(T - 1, T, EdgeKind::Data);
    }
    G->task(5).DurationNs = 99;
    EXPECT_EQ(&G->task(0) == First, Grows);
    EXPECT_EQ(&G->edgeSlots()[0] == FirstEdge, Grows);
    EXPECT_EQ(G->numTasks(), 33000u);
    EXPECT_EQ(G->task(32999).StartNs, 429990);
    EXPECT_EQ(G->task(29999).StartNs, 299990);
    EXPECT_EQ(G->edgeSlots().back().Dst, 32999u);
    EXPECT_EQ(G->laneTail(1), 32999u);
    EXPECT_EQ(fileBytes(Path), Bytes);
  }
  llvm::sys::fs::remove(Path);
}

} // namespace
