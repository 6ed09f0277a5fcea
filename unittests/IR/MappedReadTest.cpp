//===- MappedReadTest.cpp - Reading a mapped file, copying in runs --------===//
//
// A reader that does not use a file's records in place (dd-diff, dd-sim's
// baseline, SeqPoint) copies them from a read-only mapping of the file a few
// megabytes at a time, handing each run's pages back to the kernel once
// copied (parseMappedBinaryGraph()). The graph must be the file's exactly,
// across runs and past the dropped pages (the strings still point into the
// mapping), and a task refused in a later run must be named by its own id.
//
//===----------------------------------------------------------------------===//

#include "GraphBuilder.h"
#include "IRTestUtil.h"
#include "daydream/IR/BinaryFormat.h"
#include "daydream/IR/IRReader.h"
#include "daydream/IR/ddir_generated.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace dd;
using namespace dd::test;

namespace {

/// 200,000 tasks on three lanes (9.6 MB of task records: three runs), each
/// with an edge to the next.
Graph bigGraph() {
  Graph G;
  const LaneId Lanes[] = {addLane(G, "cpu"),
                          addLane(G, "stream 7", LaneKind::GpuStream),
                          addLane(G, "stream 8", LaneKind::GpuStream)};
  for (unsigned I = 0; I != 200000; ++I)
    addTask(G, Lanes[I % 3], "task " + std::to_string(I % 1000),
            10 * int64_t(I), 5 + I % 7,
            I % 3 ? TaskKind::Kernel : TaskKind::Runtime);
  for (TaskId T = 0; T + 1 != 200000; ++T)
    G.addEdge(T, T + 1, EdgeKind::Data);
  return G;
}

/// \p Bytes written to a temporary file; its path.
std::string writeTemp(llvm::StringRef Bytes) {
  return writeTempFile(Bytes, "mapped", "ddir");
}

TEST(MappedReadTest, CopiesInRunsAndDropsPagesKeepingTheGraph) {
  Graph G = bigGraph();
  const std::string Path = writeTemp(toBinary(G));
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  ASSERT_TRUE(bool(Buf));
  ASSERT_EQ((*Buf)->getBufferKind(), llvm::MemoryBuffer::MemoryBuffer_MMap);
  llvm::Expected<Graph> R = parseMappedBinaryGraph((*Buf)->getBuffer());
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(toText(*R), toText(G));
  // The way those tools read a file.
  llvm::Expected<Graph> F = readGraphFile(Path, GraphUse::Copy);
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  EXPECT_EQ(toText(*F), toText(G));
  llvm::sys::fs::remove(Path);
}

TEST(MappedReadTest, ATaskRefusedInALaterRunIsNamedByItsId) {
  // Task 150000, in the third run of 87,381 tasks, gets a negative gap.
  std::string Bytes = toBinary(bigGraph());
  const size_t At = fb::GetGraph(Bytes.data())->task_section()->offset();
  reinterpret_cast<Task *>(&Bytes[At])[150000].GapNs = -3;
  const std::string Path = writeTemp(Bytes);
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  ASSERT_TRUE(bool(Buf));
  llvm::Expected<Graph> R = parseMappedBinaryGraph((*Buf)->getBuffer());
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(llvm::toString(R.takeError()),
            "task %150000 'task 0': negative gap -3");
  llvm::sys::fs::remove(Path);
}

} // namespace
