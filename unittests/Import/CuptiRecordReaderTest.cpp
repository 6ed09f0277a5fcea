//===- CuptiRecordReaderTest.cpp - .ddrec files written and read back -----===//
//
// The fixture's records go through CuptiRecordWriter, as libddtrace.so
// writes them, and back through the reader: the model must be the one the
// records give directly. Then the files a crash, a full disk or a bad copy
// leave: cut short (a warning, what was whole is kept), corrupt (an error
// naming the file and byte), from another CUPTI release (an error).
//
//===----------------------------------------------------------------------===//

#include "daydream/Import/CuptiRecordReader.h"
#include "daydream/Import/Importer.h"
#include "daydream/Import/InputFile.h"
#include "daydream/Trace/CuptiRecordWriter.h"

#include "CuptiRecordsFixture.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

using namespace dd;
using namespace dd::import;
using namespace dd::testing;

namespace {

/// The fixture written as a .ddrec file; Bytes holds the file.
struct WrittenFile {
  llvm::SmallString<128> Path;
  std::string Bytes;
  std::unique_ptr<llvm::FileRemover> Remove;
};

WrittenFile writeFixture(const CuptiRecordsFixture &F, uint64_t Dropped = 0,
                         bool End = true, bool Window = false) {
  WrittenFile W;
  int FD;
  EXPECT_FALSE(
      llvm::sys::fs::createTemporaryFile("fixture", "ddrec", FD, W.Path));
  ::close(FD);
  W.Remove = std::make_unique<llvm::FileRemover>(W.Path);
  trace::CuptiRecordWriter Writer;
  std::string Err;
  EXPECT_TRUE(Writer.open(W.Path.c_str(), 130001, 100, 0, Err)) << Err;
  for (const ApiNameEntry &N : F.ApiNames)
    Writer.addApiName(N.Domain, N.Cbid, N.Name);
  for (const RawRecord &R : F.Records)
    EXPECT_TRUE(
        Writer.addRecord(reinterpret_cast<const CUpti_Activity *>(R.data())));
  if (Dropped)
    Writer.addDropped(Dropped);
  if (Window)
    Writer.addWindow(0, 100000);
  if (End) {
    EXPECT_TRUE(Writer.close(1000000, Err)) << Err;
  } else {
    Writer.flush();
    Writer.abandon();
  }
  auto Buf = llvm::MemoryBuffer::getFile(W.Path);
  EXPECT_TRUE(bool(Buf));
  W.Bytes = (*Buf)->getBuffer().str();
  return W;
}

llvm::Expected<TraceModel> readBytes(llvm::StringRef Bytes,
                                     std::vector<std::string> &Warnings) {
  return readCuptiRecordFiles({{"t.ddrec", Bytes}}, Warnings);
}

std::string readError(llvm::StringRef Bytes) {
  std::vector<std::string> Warnings;
  auto M = readBytes(Bytes, Warnings);
  if (M)
    return "no error";
  return llvm::toString(M.takeError());
}

TEST(CuptiRecordReaderTest, RoundTripsThroughTheWriter) {
  CuptiRecordsFixture F;
  WrittenFile W = writeFixture(F);
  EXPECT_EQ(detectFormat(W.Bytes), InputFormat::CuptiRecords);
  std::vector<std::string> Warnings;
  auto M = readBytes(W.Bytes, Warnings);
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  EXPECT_TRUE(Warnings.empty());
  EXPECT_EQ(M->Stats.Events, F.Records.size());
  EXPECT_EQ(M->Calls.size(), 8u);
  EXPECT_EQ(M->Activities.size(), 4u);
  EXPECT_EQ(M->Ranges.size(), 2u);
  EXPECT_EQ(M->Syncs.size(), 2u);
  EXPECT_EQ(M->Memory.size(), 1u);
  EXPECT_EQ(M->Strings.get(M->Activities[0].Name), "sgemm_128x64");
  EXPECT_EQ(M->Strings.get(M->Calls[1].Name), "cudaLaunchKernel");
  EXPECT_EQ(M->Strings.get(M->Threads[0].Name), "trainer");
  EXPECT_EQ(M->Syncs[0].EventRecordCorrelation, 5u);
  ASSERT_EQ(M->Meta.Devices.size(), 1u);
  EXPECT_EQ(M->Meta.Devices[0].Name, "NVIDIA H200");
}

TEST(CuptiRecordReaderTest, StringsAreWrittenOnce) {
  // A kernel name repeated every iteration costs one String frame.
  CuptiRecordsFixture Once, Twice;
  Twice.kernel("sgemm_128x64", 7, 40000, 41000, 9);
  size_t Grown =
      writeFixture(Twice).Bytes.size() - writeFixture(Once).Bytes.size();
  EXPECT_EQ(Grown, sizeof(trace::FrameHeader) + sizeof(trace::KernelRecord));
}

TEST(CuptiRecordReaderTest, ImportsThroughDdImportsEntryPoint) {
  CuptiRecordsFixture F;
  WrittenFile W = writeFixture(F);
  auto R = importTrace(W.Path, ImportOptions());
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Format, "cupti");
  EXPECT_EQ(R->Lowered.Iterations, 1u);
  EXPECT_EQ(R->Lowered.LaunchEdges, 4u);
}

TEST(CuptiRecordReaderTest, CutShortIsAWarningAndKeepsWholeFrames) {
  CuptiRecordsFixture F;
  WrittenFile W = writeFixture(F, 0, /*End=*/false);
  // Cut in the middle of the last record.
  std::string Cut = W.Bytes.substr(0, W.Bytes.size() - 20);
  std::vector<std::string> Warnings;
  auto M = readBytes(Cut, Warnings);
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  EXPECT_EQ(M->Stats.Events, F.Records.size() - 1);
  ASSERT_EQ(Warnings.size(), 1u);
  EXPECT_EQ(Warnings[0].rfind("t.ddrec: cut short at byte ", 0), 0u)
      << Warnings[0];
}

TEST(CuptiRecordReaderTest, AWindowLeavesOutGpuWorkLaunchedAfterIt) {
  // With -window, GPU kinds stay on one iteration longer than API calls:
  // a kernel whose launch was not recorded belongs after the window.
  CuptiRecordsFixture F;
  F.kernel("after_the_window", 7, 200000, 210000, 99);
  std::vector<std::string> Warnings;
  auto Whole = readBytes(writeFixture(F).Bytes, Warnings);
  ASSERT_TRUE(bool(Whole)) << llvm::toString(Whole.takeError());
  EXPECT_EQ(Whole->Activities.size(), 5u);
  auto Windowed =
      readBytes(writeFixture(F, 0, true, /*Window=*/true).Bytes, Warnings);
  ASSERT_TRUE(bool(Windowed)) << llvm::toString(Windowed.takeError());
  EXPECT_EQ(Windowed->Activities.size(), 4u);
  EXPECT_EQ(Windowed->Stats.SkippedOther, Whole->Stats.SkippedOther + 1);
  for (const GpuActivity &A : Windowed->Activities)
    EXPECT_NE(Windowed->Strings.get(A.Name), "after_the_window");
}

TEST(CuptiRecordReaderTest, DroppedRecordsAreReported) {
  CuptiRecordsFixture F;
  WrittenFile W = writeFixture(F, /*Dropped=*/17);
  std::vector<std::string> Warnings;
  auto M = readBytes(W.Bytes, Warnings);
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  EXPECT_EQ(M->Stats.DroppedRecords, 17u);
  ASSERT_EQ(Warnings.size(), 1u);
  EXPECT_NE(Warnings[0].find("CUPTI dropped 17 records"), std::string::npos);
}

TEST(CuptiRecordReaderTest, CorruptFilesAreErrorsWithAnOffset) {
  // One kernel named "k": a String frame (16 bytes at 40), then the record
  // (at 56).
  CuptiRecordsFixture One;
  One.Records.clear();
  One.ApiNames.clear();
  One.kernel("k", 7, 0, 10, 1);
  std::string Good = writeFixture(One).Bytes;
  constexpr size_t First = sizeof(trace::FileHeader);
  constexpr size_t StringFrame =
      sizeof(trace::FrameHeader) + trace::paddedSize(4 + 1);

  EXPECT_EQ(readError(Good.substr(0, 10)),
            "t.ddrec: at byte 0: not a dd-trace record file: only 10 bytes");

  // Another API version with the same layouts reads; other layouts do not.
  std::string OtherVersion = Good;
  OtherVersion[12] ^= 1; // CuptiApiVersion
  EXPECT_EQ(readError(OtherVersion), "no error");
  std::string OtherLayout = Good;
  OtherLayout[32] ^= 1; // LayoutSignature
  EXPECT_NE(readError(OtherLayout)
                .find("whose records are laid out "
                      "differently from this build's"),
            std::string::npos)
      << readError(OtherLayout);

  // The kernel record claims fewer bytes than its kind has.
  std::string BadSize = Good;
  uint32_t Size = 24;
  std::memcpy(&BadSize[First + StringFrame + 4], &Size, 4);
  EXPECT_EQ(readError(BadSize).rfind("t.ddrec: at byte 56: record of kind 10 "
                                     "has 24 bytes; expected ",
                                     0),
            0u)
      << readError(BadSize);

  std::string BadType = Good;
  uint32_t Type = 99;
  std::memcpy(&BadType[First], &Type, 4);
  EXPECT_EQ(readError(BadType), "t.ddrec: at byte 40: unknown frame type 99");

  // A record naming a string the file never defined.
  std::string NoString = Good;
  NoString.erase(First, StringFrame);
  EXPECT_NE(readError(NoString).find("names string 1, which the file has not "
                                     "defined"),
            std::string::npos)
      << readError(NoString);
}

} // namespace
