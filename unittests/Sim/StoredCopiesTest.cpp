//===- StoredCopiesTest.cpp - Ranks stored as copies, simulated once ------===//
//
// A job whose file stores ranks as copies (IR/RankCopies.h) is simulated
// without ever expanding them: reduceBySymmetry() notes the copies and
// expandResults() gives them their representatives' results. Those must be
// exactly the results of simulating the job with every rank stored whole,
// lane by lane and iteration by iteration, also when a copy's
// representative is itself left out as identical to another rank.
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/RankCopies.h"
#include "daydream/IR/TextFormat.h"
#include "daydream/Sim/Symmetry.h"

#include "../IR/IRTestUtil.h"
#include "../IR/RankCopiesJob.h"
#include "SimTestUtil.h"

#include "gtest/gtest.h"

using namespace dd;
using namespace dd::test;

namespace {

/// \p Text with every \p From replaced by \p To (which must occur).
std::string replaceAll(std::string Text, llvm::StringRef From,
                       llvm::StringRef To) {
  size_t At = Text.find(From.str());
  EXPECT_NE(At, std::string::npos) << From.str();
  for (; At != std::string::npos; At = Text.find(From.str(), At + To.size()))
    Text.replace(At, From.size(), To.str());
  return Text;
}

void expectSameResults(const SimResult &Want, const SimResult &Got) {
  EXPECT_EQ(Want.OriginNs, Got.OriginNs);
  EXPECT_EQ(Want.MakespanNs, Got.MakespanNs);
  ASSERT_EQ(Want.Lanes.size(), Got.Lanes.size());
  for (size_t L = 0; L != Want.Lanes.size(); ++L) {
    EXPECT_EQ(Want.Lanes[L].BusyNs, Got.Lanes[L].BusyNs) << "lane @" << L;
    EXPECT_EQ(Want.Lanes[L].NumTasks, Got.Lanes[L].NumTasks) << "lane @" << L;
  }
  ASSERT_EQ(Want.Iterations.size(), Got.Iterations.size());
  for (size_t I = 0; I != Want.Iterations.size(); ++I) {
    EXPECT_EQ(Want.Iterations[I].PredictedNs, Got.Iterations[I].PredictedNs)
        << "iteration " << I;
    EXPECT_EQ(Want.Iterations[I].PredictedStartNs,
              Got.Iterations[I].PredictedStartNs)
        << "iteration " << I;
    EXPECT_EQ(Want.Iterations[I].Rank, Got.Iterations[I].Rank);
  }
}

TEST(StoredCopiesTest, SimulatedOnceLikeTheWholeJob) {
  Graph Whole = parse(WholeJob);
  SimResult Want = sim(Whole);
  // Every rank takes part, each in its own way: rank 1's slower gemm holds
  // back the barrier, and so every rank's all-reduce.
  EXPECT_EQ(Want.MakespanNs, 90);
  EXPECT_EQ(Want.Iterations[0].PredictedNs, 85);
  EXPECT_EQ(Want.Lanes[6].NumTasks, 3u);

  // As built in memory, and as dd-sim reads it (from a file, in place).
  for (bool FromFile : {false, true}) {
    SCOPED_TRACE(FromFile ? "read from a file" : "parsed");
    Graph Parsed = parse(CompactJob);
    Graph Compact = FromFile ? fileCopy(Parsed) : std::move(Parsed);
    size_t Tasks = Compact.numTasks(), Edges = Compact.countLiveEdges();
    SymmetryReduction S = reduceBySymmetry(Compact);
    EXPECT_EQ(S.Ranks, 4u);
    EXPECT_EQ(S.Classes, 2u);
    EXPECT_EQ(S.StoredCopies, 2u);
    EXPECT_TRUE(S.used());
    // Nothing to remove: only the copies were left out, and they hold none.
    EXPECT_EQ(Compact.numTasks(), Tasks);
    EXPECT_EQ(Compact.countLiveEdges(), Edges);
    EXPECT_EQ(Tasks + S.RemovedTasks, Whole.numTasks());
    EXPECT_EQ(Edges + S.RemovedEdges, Whole.countLiveEdges());
    EXPECT_TRUE(hasRankCopies(Compact));
    SimResult Got = sim(Compact);
    expandResults(S, Got);
    expectSameResults(Want, Got);
  }
}

// Rank 1 is now like rank 0, and ranks 2 and 3 are copies of rank 1: the
// reduction leaves rank 1 out too, and the copies must take rank 0's
// results through it.
TEST(StoredCopiesTest, CopyOfARankLeftOutAsIdentical) {
  std::string Text = CompactJob;
  Text = replaceAll(Text, "copy-of=0", "copy-of=1");
  Text = replaceAll(Text, "start=10 dur=50", "start=10 dur=40");
  Text = replaceAll(Text, "start=60 dur=0", "start=50 dur=0");
  Text = replaceAll(Text, "@g1 \"nccl:all_reduce\" start=60",
                    "@g1 \"nccl:all_reduce\" start=50");
  Text = replaceAll(Text, "measured=90", "measured=80");
  Graph Whole = parse(Text);
  expand(Whole);
  SimResult Want = sim(Whole);
  EXPECT_EQ(Want.Lanes[6].NumTasks, 3u);

  Graph Compact = parse(Text);
  SymmetryReduction S = reduceBySymmetry(Compact);
  EXPECT_EQ(S.Ranks, 4u);
  EXPECT_EQ(S.Classes, 1u);
  EXPECT_EQ(S.StoredCopies, 2u);
  EXPECT_EQ(Compact.numTasks() + S.RemovedTasks, Whole.numTasks());
  EXPECT_EQ(Compact.countLiveEdges() + S.RemovedEdges, Whole.countLiveEdges());
  SimResult Got = sim(Compact);
  expandResults(S, Got);
  expectSameResults(Want, Got);
}

// A by-priority lane turns the reduction off, stored copies included: the
// graph is left as it is, for the caller to expand and simulate whole.
TEST(StoredCopiesTest, ByPriorityLaneTurnsTheReductionOff) {
  std::string Text = replaceAll(
      CompactJob, "lane @coll comm-channel \"collectives world\"",
      "lane @coll comm-channel \"collectives world\" order=by-priority");
  Graph Whole = parse(Text);
  expand(Whole);
  SimResult Want = sim(Whole);

  Graph Compact = parse(Text);
  size_t Tasks = Compact.numTasks();
  SymmetryReduction S = reduceBySymmetry(Compact);
  EXPECT_FALSE(S.used());
  EXPECT_EQ(S.StoredCopies, 0u);
  EXPECT_TRUE(S.LaneCopies.empty());
  EXPECT_TRUE(hasRankCopies(Compact));
  EXPECT_EQ(Compact.numTasks(), Tasks);
  expand(Compact);
  EXPECT_EQ(Compact.numTasks(), Whole.numTasks());
  SimResult Got = sim(Compact);
  expandResults(S, Got);
  expectSameResults(Want, Got);
}

} // namespace
