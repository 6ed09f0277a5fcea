//===- JobFileTest.cpp - The split job's file, written and read
//------------===//
//
// A job file prints and parses back to itself (hashes with leading zeros,
// names with spaces, groups with and without names), and each malformed
// file is refused on its line with what is wrong.
//
//===----------------------------------------------------------------------===//

#include "daydream/Import/JobFile.h"

#include "gtest/gtest.h"

using namespace dd;
using namespace dd::import;

namespace {

JobFile sample() {
  JobFile J;
  J.World = 3;
  J.Ranks = {{0, 1102, 0x0bed93f69e27952aULL, 100000, "job.rank0.ddir"},
             {1, 1184, 0x000000000000002aULL, -5, "my job.rank1.ddir"},
             {2, 0, 0xffffffffffffffffULL, 0, "/abs/path/r2.ddir"}};
  J.Groups = {{"", {0, 1, 2}, 274}, {"tp 0", {0, 2}, 10}};
  return J;
}

std::string print(const JobFile &J) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printJobFile(J, OS);
  return OS.str();
}

std::string parseError(llvm::StringRef Text) {
  auto J = parseJobFile("t.ddjob", Text);
  if (J)
    return "(parsed)";
  return llvm::toString(J.takeError());
}

TEST(JobFileTest, RoundTrip) {
  const std::string Text = print(sample());
  EXPECT_NE(Text.find("xxh64 000000000000002a origin-ns -5 file my "
                      "job.rank1.ddir\n"),
            std::string::npos)
      << Text;
  auto J = parseJobFile("t.ddjob", Text);
  ASSERT_TRUE(bool(J)) << llvm::toString(J.takeError());
  EXPECT_EQ(J->World, 3);
  ASSERT_EQ(J->Ranks.size(), 3u);
  EXPECT_EQ(J->Ranks[1].File, "my job.rank1.ddir");
  EXPECT_EQ(J->Ranks[1].Hash, 0x2aULL);
  EXPECT_EQ(J->Ranks[2].Hash, 0xffffffffffffffffULL);
  EXPECT_EQ(J->Ranks[1].OriginNs, -5);
  ASSERT_EQ(J->Groups.size(), 2u);
  EXPECT_EQ(J->Groups[0].Name, "");
  EXPECT_EQ(J->Groups[1].Name, "tp 0");
  EXPECT_EQ(J->Groups[1].Members, (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(print(*J), Text);
}

TEST(JobFileTest, RanksInAnyOrderAreSorted) {
  auto J = parseJobFile("t.ddjob",
                        "ddjob 1\nworld 2\n"
                        "rank 1 bytes 5 xxh64 0000000000000001 origin-ns 0 "
                        "file b\n"
                        "; a comment\n"
                        "rank 0 bytes 5 xxh64 0000000000000002 origin-ns 0 "
                        "file a\n");
  ASSERT_TRUE(bool(J)) << llvm::toString(J.takeError());
  EXPECT_EQ(J->Ranks[0].File, "a");
  EXPECT_EQ(J->Ranks[1].File, "b");
}

TEST(JobFileTest, Errors) {
  const std::string R0 =
      "rank 0 bytes 5 xxh64 0000000000000001 origin-ns 0 file a\n";
  EXPECT_EQ(parseError(""), "t.ddjob:1: empty file (expected 'ddjob 1' first)");
  EXPECT_EQ(parseError("ddir 4\n"),
            "t.ddjob:1: not a ddjob file (expected 'ddjob 1' first)");
  EXPECT_EQ(parseError("ddjob 9\n"), "t.ddjob:1: unsupported ddjob file "
                                     "version 9 (this build reads version 1)");
  EXPECT_EQ(parseError("ddjob 1\n"), "t.ddjob:2: no 'world' line");
  EXPECT_EQ(parseError("ddjob 1\nworld 0\n"),
            "t.ddjob:2: expected 'world N' with N a positive number of ranks");
  EXPECT_EQ(parseError("ddjob 1\nworld 1\nworld 1\n"),
            "t.ddjob:3: a second 'world' line");
  EXPECT_EQ(parseError("ddjob 1\n" + R0), "t.ddjob:2: a rank before the "
                                          "'world' line");
  EXPECT_EQ(parseError("ddjob 1\nworld 1\n" + R0 + R0),
            "t.ddjob:5: rank 0 is listed twice (a and a)");
  EXPECT_EQ(parseError("ddjob 1\nworld 3\n" + R0),
            "t.ddjob:4: the job's world is 3 ranks, but 1 are listed "
            "(missing: 1, 2)");
  EXPECT_EQ(parseError("ddjob 1\nworld 1\nrank 1 bytes 5 xxh64 "
                       "0000000000000001 origin-ns 0 file a\n"),
            "t.ddjob:3: rank 1 is outside the job's world of 1");
  const char *Form = "t.ddjob:3: expected 'rank N bytes N xxh64 HEX "
                     "origin-ns N file NAME', the form dd-import -split "
                     "writes";
  for (const char *Bad :
       {"rank 0 bytes 5 xxh64 01 origin-ns 0 file a\n",
        "rank 0 bytes -5 xxh64 0000000000000001 origin-ns 0 file a\n",
        "rank x bytes 5 xxh64 0000000000000001 origin-ns 0 file a\n",
        "rank 0 bytes 5 xxh64 000000000000000g origin-ns 0 file a\n",
        "rank 0 bytes 5 xxh64 0000000000000001 file a\n",
        "rank 0 bytes 5 xxh64 0000000000000001 origin-ns 0 file\n",
        "rank 0 bytes 5 xxh64 0000000000000001 origin-ns 0 filea\n"})
    EXPECT_EQ(parseError(std::string("ddjob 1\nworld 1\n") + Bad), Form) << Bad;
  EXPECT_EQ(parseError("ddjob 1\nworld 2\ngroup ranks 0,2 collectives 1\n"),
            "t.ddjob:3: group member 2 is outside the job's world of 2");
  EXPECT_EQ(parseError("ddjob 1\nworld 2\ngroup ranks 0,0 collectives 1\n"),
            "t.ddjob:3: expected 'group ranks R,R,... collectives N [name "
            "NAME]'");
  EXPECT_EQ(parseError("ddjob 1\nworld 2\nstride 1\n"),
            "t.ddjob:3: unknown line 'stride' (expected world, rank or "
            "group)");
}

TEST(JobFileTest, PartListsSomeRanks) {
  auto J = parseJobFilePart(
      "t.ddcoll", "ddcoll",
      "ddcoll 1\nworld 8\n"
      "rank 5 bytes 5 xxh64 0000000000000001 origin-ns 7 file r5.ddir\n");
  ASSERT_TRUE(bool(J)) << llvm::toString(J.takeError());
  EXPECT_EQ(J->World, 8);
  ASSERT_EQ(J->Ranks.size(), 1u);
  EXPECT_EQ(J->Ranks[0].Rank, 5);
  EXPECT_EQ(J->Ranks[0].OriginNs, 7);
  auto Wrong = parseJobFilePart("t.ddcoll", "ddcoll", "ddjob 1\nworld 1\n");
  ASSERT_FALSE(bool(Wrong));
  EXPECT_EQ(llvm::toString(Wrong.takeError()),
            "t.ddcoll:1: not a ddcoll file (expected 'ddcoll 1' first)");
}

} // namespace
