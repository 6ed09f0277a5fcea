//===- RankCopiesTest.cpp - Ranks stored as copies of another rank --------===//
//
// The contract of IR/RankCopies.h: `copy-of` survives the text and binary
// forms (and a binary file without the field reads as no copy); the
// verifier rejects each broken rule with its own message; and expanding the
// copies gives exactly the job written out whole, as canonical text.
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/RankCopies.h"
#include "daydream/IR/BinaryFormat.h"
#include "daydream/IR/Graph.h"
#include "daydream/IR/TextFormat.h"
#include "daydream/IR/Verifier.h"
#include "daydream/IR/ddir_generated.h"

#include "IRTestUtil.h"
#include "RankCopiesJob.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace dd;
using namespace dd::test;

namespace {

/// The verifier's verdict on \p Text, which must parse.
std::string verifyText(llvm::StringRef Text) {
  llvm::Expected<Graph> G = parseTextGraph(Text);
  if (!G)
    return "parse error: " + llvm::toString(G.takeError());
  return verify(*G);
}

TEST(RankCopiesTest, CopyOfPrintsAndParsesBack) {
  Graph G = parse(CompactJob);
  ASSERT_EQ(G.metadata().Ranks.size(), 4u);
  EXPECT_EQ(G.metadata().Ranks[0].CopyOf, -1);
  EXPECT_EQ(G.metadata().Ranks[1].CopyOf, -1);
  EXPECT_EQ(G.metadata().Ranks[2].CopyOf, 0);
  EXPECT_EQ(G.metadata().Ranks[3].CopyOf, 0);
  EXPECT_TRUE(hasRankCopies(G));
  EXPECT_EQ(verify(G), "ok");

  std::string Text = toText(G);
  EXPECT_NE(Text.find("rank 1 world=4 host=\"node0\"\n"), std::string::npos)
      << Text;
  EXPECT_NE(Text.find("rank 2 world=4 host=\"node1\" copy-of=0\n"),
            std::string::npos)
      << Text;
  Graph Again = parse(Text);
  EXPECT_EQ(toText(Again), Text);
  EXPECT_EQ(Again.metadata().Ranks[3].CopyOf, 0);
}

TEST(RankCopiesTest, CopyOfSurvivesTheBinaryForm) {
  Graph G = parse(CompactJob);
  std::string Bytes = toBinary(G);
  llvm::Expected<Graph> Read = parseBinaryGraph(Bytes);
  ASSERT_TRUE(bool(Read)) << llvm::toString(Read.takeError());
  EXPECT_EQ(verify(*Read), "ok");
  ASSERT_EQ(Read->metadata().Ranks.size(), 4u);
  EXPECT_EQ(Read->metadata().Ranks[1].CopyOf, -1);
  EXPECT_EQ(Read->metadata().Ranks[2].CopyOf, 0);
  EXPECT_EQ(Read->metadata().Ranks[3].CopyOf, 0);
  EXPECT_EQ(toText(*Read), toText(G));
  EXPECT_EQ(toBinary(*Read), Bytes);

  // The default (-1) is not stored: a rank stored whole takes no room.
  // (A generated table is a flatbuffers::Table, privately.)
  auto AsTable = [&](unsigned I) {
    return reinterpret_cast<const flatbuffers::Table *>(
        fb::GetGraph(Bytes.data())->metadata()->ranks()->Get(I));
  };
  EXPECT_FALSE(AsTable(1)->CheckField(fb::Rank::VT_COPY_OF));
  EXPECT_TRUE(AsTable(2)->CheckField(fb::Rank::VT_COPY_OF));
}

TEST(RankCopiesTest, FilesWithoutCopyOfReadAsNoCopy) {
  // What a writer from before copy_of produced, at each version still read:
  // a Rank table with three fields.
  for (uint32_t Version : {OldestBinaryFormatVersion, BinaryFormatVersion}) {
    flatbuffers::FlatBufferBuilder FB;
    auto Host = FB.CreateString("node7");
    fb::RankBuilder RB(FB);
    RB.add_rank(5);
    RB.add_world_size(8);
    RB.add_host(Host);
    std::vector<flatbuffers::Offset<fb::Rank>> Ranks = {RB.Finish()};
    auto Meta = fb::CreateMetadata(FB, 0, 0, 0, FB.CreateVector(Ranks));
    fb::FinishGraphBuffer(FB, fb::CreateGraph(FB, Version, Meta));
    std::string Bytes(reinterpret_cast<const char *>(FB.GetBufferPointer()),
                      FB.GetSize());
    llvm::Expected<Graph> G = parseBinaryGraph(Bytes);
    ASSERT_TRUE(bool(G)) << "version " << Version << ": "
                         << llvm::toString(G.takeError());
    ASSERT_EQ(G->metadata().Ranks.size(), 1u);
    EXPECT_EQ(G->metadata().Ranks[0].Rank, 5);
    EXPECT_EQ(G->metadata().Ranks[0].WorldSize, 8);
    EXPECT_EQ(G->metadata().Ranks[0].Host, "node7");
    EXPECT_EQ(G->metadata().Ranks[0].CopyOf, -1) << "version " << Version;
    EXPECT_FALSE(hasRankCopies(*G));
  }
}

//===--- The verifier
//------------------------------------------------------===//

// Two ranks of one CPU lane and one GPU lane each, rank 1 a copy of rank 0;
// each test below breaks one rule.
const char *const SmallHead = R"(ddir 1
rank 0 world=2
rank 1 world=2 copy-of=0
lane @c0 cpu-thread "main" rank=0
lane @g0 gpu-stream "s" rank=0 device=0
lane @c1 cpu-thread "main" rank=1
lane @g1 gpu-stream "s" rank=1 device=1
iteration "step" start=0 rank=0
iteration "step" start=0 rank=1
task %l runtime @c0 "launch" start=0 dur=1
task %k kernel @g0 "k" start=1 dur=1
edge %l -> %k launch
)";

TEST(RankCopiesVerifierTest, ValidCopy) {
  EXPECT_EQ(verifyText(SmallHead), "ok");
}

TEST(RankCopiesVerifierTest, CopyOfAMissingRank) {
  Graph G = parse(SmallHead);
  G.metadata().Ranks[1].CopyOf = 7;
  EXPECT_EQ(verify(G), "rank 1: copy-of=7 is not another rank of the graph");
}

TEST(RankCopiesVerifierTest, CopyOfItself) {
  Graph G = parse(SmallHead);
  G.metadata().Ranks[1].CopyOf = 1;
  EXPECT_EQ(verify(G), "rank 1: copy-of=1 is not another rank of the graph");
}

TEST(RankCopiesVerifierTest, CopyOfACopy) {
  std::string Text = std::string(SmallHead) + R"(
rank 2 world=3 copy-of=1
lane @c2 cpu-thread "main" rank=2
lane @g2 gpu-stream "s" rank=2 device=2
iteration "step" start=0 rank=2
)";
  EXPECT_EQ(verifyText(Text),
            "rank 2: copy-of=1, a rank that is itself a copy (of rank 0); "
            "name the rank stored whole");
}

TEST(RankCopiesVerifierTest, CopyWithATask) {
  std::string Text =
      std::string(SmallHead) + "task %x kernel @g1 \"k\" start=1 dur=1\n";
  EXPECT_EQ(verifyText(Text),
            "rank 1: lane @3 holds tasks, but the rank is a copy of rank 0 "
            "(whose tasks it shares)");
}

TEST(RankCopiesVerifierTest, LaneCountMismatch) {
  std::string Text =
      std::string(SmallHead) + "lane @x cpu-thread \"helper\" rank=1\n";
  EXPECT_EQ(verifyText(Text),
            "rank 1: a copy of rank 0 with 3 lanes, where rank 0 has 2");
}

TEST(RankCopiesVerifierTest, LaneKindMismatch) {
  Graph G = parse(SmallHead);
  G.lane(3).Kind = LaneKind::CommChannel;
  EXPECT_EQ(verify(G), "rank 1: lane @3 (comm-channel, in-order) is a copy of "
                       "rank 0's lane @1, which is gpu-stream, in-order");
}

TEST(RankCopiesVerifierTest, LaneOrderMismatch) {
  Graph G = parse(SmallHead);
  G.lane(3).Order = LaneOrder::ByPriority;
  EXPECT_EQ(verify(G), "rank 1: lane @3 (gpu-stream, by-priority) is a copy "
                       "of rank 0's lane @1, which is gpu-stream, in-order");
}

TEST(RankCopiesVerifierTest, IterationCountMismatch) {
  std::string Text =
      std::string(SmallHead) + "iteration \"step 2\" start=5 rank=1\n";
  EXPECT_EQ(verifyText(Text),
            "rank 1: a copy of rank 0 with 2 iterations, where rank 0 has 1");
}

TEST(RankCopiesVerifierTest, IterationTimesMismatch) {
  // Its tasks are rank 0's, so its iterations must be where rank 0's are
  // for its tasks to fall into them as rank 0's do.
  Graph G = parse(SmallHead);
  G.iterationsMut()[1].StartNs = 1;
  EXPECT_EQ(verify(G),
            "rank 1: iteration 1 'step' (start=1 measured=-1) is a copy of "
            "rank 0's iteration 0 'step' (start=0 measured=-1)");
  G.iterationsMut()[1].StartNs = 0;
  G.iterationsMut()[1].MeasuredNs = 9;
  EXPECT_EQ(verify(G),
            "rank 1: iteration 1 'step' (start=0 measured=9) is a copy of "
            "rank 0's iteration 0 'step' (start=0 measured=-1)");
}

TEST(RankCopiesVerifierTest, RepresentativeWithAnEdgeToAnotherRank) {
  std::string Text = std::string(SmallHead) + R"(
rank 2 world=3
lane @c2 cpu-thread "main" rank=2
task %y cpu-op @c2 "y" start=0 dur=1
edge %k -> %y data
)";
  EXPECT_EQ(verifyText(Text),
            "task %1 (rank 0) -> task %2 (rank 2): an edge between ranks, but "
            "rank 0 has copies, whose edges would be undefined");
  // The other way round too.
  std::string Into = std::string(SmallHead) + R"(
rank 2 world=3
lane @c2 cpu-thread "main" rank=2
task %y cpu-op @c2 "y" start=0 dur=1
edge %y -> %l data
)";
  EXPECT_EQ(verifyText(Into),
            "task %2 (rank 2) -> task %0 (rank 0): an edge between ranks, but "
            "rank 0 has copies, whose edges would be undefined");
}

TEST(RankCopiesVerifierTest, EdgesToTheJobsOwnTasksAreFine) {
  std::string Text = std::string(SmallHead) + R"(
lane @coll comm-channel "collectives"
task %b collective @coll "barrier" start=2 dur=1
edge %k -> %b comm
)";
  EXPECT_EQ(verifyText(Text), "ok");
}

TEST(RankCopiesVerifierTest, RankListedTwice) {
  std::string Text = std::string(SmallHead) + "rank 0 world=2\n";
  EXPECT_EQ(verifyText(Text), "rank 0: declared twice");
}

//===--- Expansion
//---------------------------------------------------------===//

TEST(RankCopiesTest, ExpandedEqualsTheJobWrittenWhole) {
  Graph Compact = parse(CompactJob);
  Graph Whole = parse(WholeJob);
  ASSERT_EQ(verify(Whole), "ok");
  size_t TasksBefore = Compact.numTasks();
  size_t AttrsBefore = Compact.attrSlots().size();
  EXPECT_EQ(Compact.numTasks() + countCopiedWork(Compact).Tasks,
            Whole.numTasks());
  expand(Compact);
  EXPECT_FALSE(hasRankCopies(Compact));
  EXPECT_EQ(verify(Compact), "ok");
  EXPECT_EQ(Compact.numTasks(), TasksBefore + size_t{2} * 6);
  EXPECT_EQ(toText(Compact), toText(Whole));
  EXPECT_EQ(toBinary(Compact), toBinary(Whole));
  // The copies share their representative's attributes.
  EXPECT_EQ(Compact.attrSlots().size(), AttrsBefore);
  // Expanding again changes nothing.
  std::string Once = toText(Compact);
  expand(Compact);
  EXPECT_EQ(toText(Compact), Once);
}

TEST(RankCopiesTest, ExpandingAGraphWithoutCopiesChangesNothing) {
  Graph G = parse(WholeJob);
  std::string Before = toText(G);
  expand(G);
  EXPECT_EQ(toText(G), Before);
}

TEST(RankCopiesTest, ExpansionSkipsDeadTasks) {
  Graph G = parse(CompactJob);
  G.removeTask(2); // %s0, with its sync edge from %n0
  expand(G);
  EXPECT_EQ(verify(G), "ok");
  // Each copy has rank 0's five live tasks.
  size_t OnCopies = 0;
  for (LaneId L : {5u, 6u, 7u, 8u})
    for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T))
      ++OnCopies;
  EXPECT_EQ(OnCopies, 10u);
  // Rank 0's edge into it died with it: the copies' collectives have no
  // edge out (to the synchronize that was not copied).
  for (const Edge &E : G.edgeSlots())
    if (G.isLive(E) && G.task(E.Src).Lane >= 5)
      EXPECT_NE(G.task(E.Src).Kind, TaskKind::Collective)
          << "an edge out of %" << E.Src;
}

TEST(RankCopiesTest, ExpansionTooLargeToNumberFailsAndChangesNothing) {
  // 2^16 tasks on rank 0 and 2^16 copies of it: 2^32 + 2^16 tasks expanded.
  Graph G;
  Lane L;
  L.Name = G.intern("main");
  L.Rank = 0;
  LaneId Rep = G.addLane(L);
  G.metadata().Ranks.push_back(RankInfo{0, (1 << 16) + 1, "", -1});
  Task T;
  T.Name = L.Name;
  T.Lane = Rep;
  T.DurationNs = 1;
  for (unsigned I = 0; I != 1u << 16; ++I)
    G.addTask(T);
  for (int32_t R = 1; R <= 1 << 16; ++R) {
    L.Rank = R;
    G.addLane(L);
    G.metadata().Ranks.push_back(RankInfo{R, (1 << 16) + 1, "", 0});
  }
  ASSERT_EQ(verify(G), "ok");
  EXPECT_EQ(G.numTasks() + countCopiedWork(G).Tasks,
            (size_t(1) << 32) + (1 << 16));
  llvm::Error E = expandRankCopies(G);
  ASSERT_TRUE(bool(E));
  EXPECT_EQ(llvm::toString(std::move(E)),
            "expanding the ranks stored as copies would make 4295032832 "
            "tasks and 0 edges, more than a graph can number (4294967294)");
  EXPECT_EQ(G.numTaskSlots(), 1u << 16);
  EXPECT_TRUE(hasRankCopies(G));
  EXPECT_EQ(verify(G), "ok");
}

} // namespace
