//===- InputFileTest.cpp - Loading, gunzip and format detection -----------===//
//
// Gzip round trips (compressed here with zlib), truncated and corrupt gzip
// streams, missing files, the padding simdjson relies on, and telling Kineto
// JSON from an nsys SQLite export by content.
//
//===----------------------------------------------------------------------===//

#include "daydream/Import/InputFile.h"
#include "GzipForTest.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace dd::import;
using dd::import::test::gzipOf;

namespace {

std::string errorText(llvm::Error E) { return llvm::toString(std::move(E)); }

bool paddingIsZero(const PaddedBuffer &B) {
  for (size_t I = 0; I != InputPadding; ++I)
    if (B.data()[B.size() + I] != 0)
      return false;
  return true;
}

TEST(InputFileTest, PlainBytesAreCopiedAndPadded) {
  auto F = makeInputFile("t.json", "{\"traceEvents\": []}");
  ASSERT_TRUE(bool(F)) << errorText(F.takeError());
  EXPECT_EQ(F->Name, "t.json");
  EXPECT_EQ(F->Bytes.str(), "{\"traceEvents\": []}");
  EXPECT_FALSE(F->WasGzip);
  EXPECT_EQ(F->StoredSize, 19u);
  EXPECT_TRUE(paddingIsZero(F->Bytes));
}

TEST(InputFileTest, EmptyInputIsNotAnError) {
  auto F = makeInputFile("e.json", "");
  ASSERT_TRUE(bool(F)) << errorText(F.takeError());
  EXPECT_EQ(F->Bytes.size(), 0u);
  EXPECT_TRUE(paddingIsZero(F->Bytes));
}

TEST(InputFileTest, GzipRoundTrip) {
  std::string Text = "[";
  for (int I = 0; I != 5000; ++I)
    Text += "{\"ph\": \"X\", \"ts\": " + std::to_string(I) + "},";
  Text += "{}]";
  auto F = makeInputFile("t.json.gz", gzipOf(Text));
  ASSERT_TRUE(bool(F)) << errorText(F.takeError());
  EXPECT_TRUE(F->WasGzip);
  EXPECT_EQ(F->Bytes.str(), Text);
  EXPECT_LT(F->StoredSize, Text.size());
  EXPECT_TRUE(paddingIsZero(F->Bytes));
}

TEST(InputFileTest, ConcatenatedMembersDecompressToTheConcatenation) {
  auto F = makeInputFile("t.gz", gzipOf("[1,") + gzipOf("2]"));
  ASSERT_TRUE(bool(F)) << errorText(F.takeError());
  EXPECT_EQ(F->Bytes.str(), "[1,2]");
}

TEST(InputFileTest, TruncatedGzipIsAnError) {
  std::string Z = gzipOf(std::string(10000, 'x') + "tail");
  for (size_t Keep : {size_t(2), size_t(10), Z.size() / 2, Z.size() - 1}) {
    auto F = makeInputFile("cut.json.gz", llvm::StringRef(Z).take_front(Keep));
    ASSERT_FALSE(bool(F)) << "kept " << Keep;
    EXPECT_EQ(errorText(F.takeError()), "cut.json.gz: truncated gzip stream");
  }
}

TEST(InputFileTest, CorruptGzipIsAnError) {
  std::string Z = gzipOf("{\"traceEvents\": []}");
  Z[3] = char(0xff); // reserved flag bits
  auto F = makeInputFile("bad.gz", Z);
  ASSERT_FALSE(bool(F));
  std::string Msg = errorText(F.takeError());
  EXPECT_EQ(Msg.rfind("bad.gz: corrupt gzip stream: ", 0), 0u) << Msg;
}

/// A text of \p N bytes that does not repeat for a while.
std::string varied(size_t N) {
  std::string Text(N, ' ');
  for (size_t I = 0; I != N; ++I)
    Text[I] = char('a' + (I * 7 + I / 131) % 26);
  return Text;
}

TEST(InputFileTest, InflatedAheadTheBytesArriveWhole) {
  const std::string Text = varied(300000);
  const std::string Z = gzipOf(Text); // outlives the input, as it must
  auto F = makeInputFileAhead("t.gz", Z, 0, /*StepBytes=*/1000);
  ASSERT_TRUE(bool(F)) << errorText(F.takeError());
  ASSERT_TRUE(F->Ahead);
  EXPECT_TRUE(F->WasGzip);
  EXPECT_EQ(F->expectedSize(), Text.size());
  llvm::StringRef First = F->arrived(5000);
  ASSERT_GE(First.size(), 5000u);
  EXPECT_EQ(First, llvm::StringRef(Text).take_front(First.size()));
  EXPECT_EQ(F->text(), Text);
  bool Redo = false;
  ASSERT_FALSE(bool(F->finishInflating(&Redo)));
  EXPECT_FALSE(Redo);
  EXPECT_TRUE(F->Complete);
  EXPECT_EQ(F->Bytes.str(), Text);
  EXPECT_TRUE(paddingIsZero(F->Bytes));
}

TEST(InputFileTest, InflatedAheadATextLongerThanItsTrailerIsRedone) {
  // Two members: the trailer's size is the last one's, 200,000 bytes.
  const std::string Text = varied(300000);
  const std::string Z =
      gzipOf(Text.substr(0, 100000)) + gzipOf(Text.substr(100000));
  auto F = makeInputFileAhead("t.gz", Z, 0, /*StepBytes=*/1000);
  ASSERT_TRUE(bool(F)) << errorText(F.takeError());
  EXPECT_EQ(F->expectedSize(), 200000u);
  // A reader sees the text cut at the guess...
  EXPECT_EQ(F->text(), llvm::StringRef(Text).take_front(200000));
  // ... and is told to read it again, whole.
  bool Redo = false;
  ASSERT_FALSE(bool(F->finishInflating(&Redo)));
  EXPECT_TRUE(Redo);
  EXPECT_TRUE(F->Complete);
  EXPECT_EQ(F->Bytes.str(), Text);
  EXPECT_EQ(F->text(), Text);
  EXPECT_EQ(F->expectedSize(), Text.size());
  EXPECT_TRUE(paddingIsZero(F->Bytes));
}

TEST(InputFileTest, InflatedAheadBadStreamsGiveTheSameErrors) {
  const std::string Z = gzipOf(varied(50000));
  for (size_t Keep : {size_t(10), Z.size() / 2, Z.size() - 1}) {
    auto F = makeInputFileAhead("cut.gz", llvm::StringRef(Z).take_front(Keep),
                                0, 64);
    ASSERT_TRUE(bool(F));
    // What arrived is a start of the text; the error comes at the end.
    EXPECT_EQ(F->text(), varied(50000).substr(0, F->text().size()));
    EXPECT_EQ(errorText(F->finishInflating()), "truncated gzip stream");
  }
  std::string Bad = Z;
  Bad[3] = char(0xff); // reserved flag bits
  auto F = makeInputFileAhead("bad.gz", Bad, 0, 64);
  ASSERT_TRUE(bool(F));
  std::string Msg = errorText(F->finishInflating());
  EXPECT_EQ(Msg.rfind("corrupt gzip stream: ", 0), 0u) << Msg;
  auto Big = makeInputFileAhead("big.gz", Z, /*MaxBytes=*/20000, 64);
  ASSERT_TRUE(bool(Big));
  EXPECT_EQ(errorText(Big->finishInflating()),
            "decompresses to more than 20000 bytes (-max-input-size)");
  // Plain bytes are not inflated: there is nothing ahead.
  auto Plain = makeInputFileAhead("p.json", "[1]", 0, 64);
  ASSERT_TRUE(bool(Plain));
  EXPECT_FALSE(Plain->Ahead);
  EXPECT_EQ(Plain->text(), "[1]");
}

TEST(InputFileTest, AnInputDroppedWhileInflatingStopsItsThread) {
  const std::string Z = gzipOf(varied(2000000));
  for (int I = 0; I != 20; ++I) {
    auto F = makeInputFileAhead("t.gz", Z, 0, /*StepBytes=*/16);
    ASSERT_TRUE(bool(F));
    if (I % 2)
      F->arrived(1000);
  } // each destructor joins its thread
}

TEST(InputFileTest, MissingFileNamesThePath) {
  auto F = loadInputFile("/nonexistent/dir/trace.json");
  ASSERT_FALSE(bool(F));
  EXPECT_EQ(errorText(F.takeError()),
            "/nonexistent/dir/trace.json: No such file or directory");
}

TEST(InputFileTest, LoadsAGzipFileFromDisk) {
  llvm::SmallString<128> Path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("dd-input", "gz", Path));
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC);
    OS << gzipOf("[{\"ph\": \"M\"}]");
  }
  auto F = loadInputFile(Path);
  ASSERT_TRUE(bool(F)) << errorText(F.takeError());
  EXPECT_EQ(F->Name, std::string(Path));
  EXPECT_EQ(F->Bytes.str(), "[{\"ph\": \"M\"}]");
  // The same inflated ahead of its reader: the file is held until then.
  auto A = loadInputFile(Path, 0, /*InflateAheadOfReader=*/true);
  llvm::sys::fs::remove(Path);
  ASSERT_TRUE(bool(A)) << errorText(A.takeError());
  EXPECT_TRUE(A->Ahead);
  ASSERT_FALSE(bool(A->finishInflating()));
  EXPECT_EQ(A->Bytes.str(), "[{\"ph\": \"M\"}]");
}

// Large plain files are parsed where they are mapped when the mapping has
// room for the padding, and copied otherwise; either way the bytes and the
// zero padding after them must be there. Sizes around a page boundary
// exercise both paths.
TEST(InputFileTest, LargePlainFilesKeepTheirBytesAndPadding) {
  for (size_t Size :
       {size_t(1) << 20, (size_t(1) << 20) - 10, (size_t(1) << 20) + 100}) {
    llvm::SmallString<128> Path;
    ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("dd-input", "json", Path));
    std::string Text(Size, ' ');
    Text.front() = '[';
    Text.back() = ']';
    {
      std::error_code EC;
      llvm::raw_fd_ostream OS(Path, EC);
      ASSERT_FALSE(EC);
      OS << Text;
    }
    auto F = loadInputFile(Path);
    llvm::sys::fs::remove(Path);
    ASSERT_TRUE(bool(F)) << errorText(F.takeError());
    EXPECT_EQ(F->StoredSize, Size);
    EXPECT_TRUE(F->Bytes.str() == Text);
    for (size_t I = 0; I != InputPadding; ++I)
      EXPECT_EQ(F->Bytes.data()[Size + I], '\0') << Size << " + " << I;
  }
}

TEST(InputFileTest, DetectsFormatByContent) {
  EXPECT_EQ(detectFormat("{\"traceEvents\": []}"), InputFormat::KinetoJson);
  EXPECT_EQ(detectFormat("  \n\t[{}]"), InputFormat::KinetoJson);
  EXPECT_EQ(detectFormat("\xEF\xBB\xBF{}"), InputFormat::KinetoJson);
  EXPECT_EQ(detectFormat(llvm::StringRef("SQLite format 3\0\x10\x00", 18)),
            InputFormat::NsysSqlite);
  EXPECT_EQ(detectFormat("SQLite format 3"), InputFormat::Unknown);
  EXPECT_EQ(detectFormat(""), InputFormat::Unknown);
  EXPECT_EQ(detectFormat("hello"), InputFormat::Unknown);
}

TEST(InputFileTest, PaddedBufferGrowsKeepingContent) {
  PaddedBuffer B("abc");
  B.reserve(1000);
  EXPECT_EQ(B.str(), "abc");
  EXPECT_GE(B.capacity(), 1000u);
  B.writableData()[3] = 'd';
  B.setSize(4);
  EXPECT_EQ(B.str(), "abcd");
  EXPECT_TRUE(paddingIsZero(B));
}

} // namespace
