//===- PassManagerTest.cpp - What the PassManager does around each pass ---===//
//
// Ranks stored as copies (IR/RankCopies.h): a pass whose type says
// `HandlesRankCopies = true` sees the copies; any other pass sees them
// expanded, once, and -debug-pass-manager says so.
//
//===----------------------------------------------------------------------===//

#include "daydream/Pass/PassManager.h"
#include "daydream/IR/Graph.h"
#include "daydream/IR/RankCopies.h"
#include "daydream/IR/TextFormat.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace dd;

namespace {

/// What a pass saw when it ran.
struct Seen {
  bool Copies = false;
  size_t Tasks = 0;
};

/// Records what it sees; written without copies in mind.
struct PlainPass {
  std::vector<Seen> *Log;
  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &) {
    Log->push_back(Seen{hasRankCopies(G), G.numTasks()});
    return PreservedAnalyses::all();
  }
};

/// The same, but says it handles copies.
struct CopyAwarePass : PlainPass {
  static constexpr bool HandlesRankCopies = true;
};

/// Says it does not, explicitly.
struct OptedOutPass {
  static constexpr bool HandlesRankCopies = false;
  llvm::Expected<PreservedAnalyses> run(Graph &, AnalysisManager &) {
    return PreservedAnalyses::all();
  }
};

/// Says it models collectives.
struct CollectivePass : PlainPass {
  static constexpr bool NeedsCollectives = true;
};

/// Says it adds tasks, so that dd-opt copies them at load.
struct AddingPass {
  static constexpr bool AddsTasks = true;
  llvm::Expected<PreservedAnalyses> run(Graph &, AnalysisManager &) {
    return PreservedAnalyses::all();
  }
};

// Rank 1 is a copy of rank 0, whose two tasks it shares.
const char *const TwoRanks = R"(ddir 1
rank 0 world=2
rank 1 world=2 copy-of=0
lane @c0 cpu-thread "main" rank=0
lane @c1 cpu-thread "main" rank=1
task %a cpu-op @c0 "a" start=0 dur=1
task %b cpu-op @c0 "b" start=1 dur=1
edge %a -> %b data
)";

template <typename PassT>
std::unique_ptr<PassConcept> wrap(llvm::StringRef Name, PassT P) {
  return std::make_unique<PassModel<PassT>>(Name, "", std::move(P));
}

TEST(PassManagerTest, AddsTasksIsReadFromThePassType) {
  std::vector<Seen> Log;
  EXPECT_FALSE(wrap("plain", PlainPass{&Log})->addsTasks());
  EXPECT_TRUE(wrap("adding", AddingPass{})->addsTasks());
  PassManager PM;
  PM.addPass(wrap("plain", PlainPass{&Log}));
  EXPECT_FALSE(PM.addsTasks());
  PM.addPass(wrap("adding", AddingPass{}));
  EXPECT_TRUE(PM.addsTasks());
}

TEST(PassManagerTest, HandlesRankCopiesIsReadFromThePassType) {
  std::vector<Seen> Log;
  EXPECT_FALSE(wrap("plain", PlainPass{&Log})->handlesRankCopies());
  EXPECT_TRUE(wrap("aware", CopyAwarePass{{&Log}})->handlesRankCopies());
  EXPECT_FALSE(wrap("opted-out", OptedOutPass{})->handlesRankCopies());
}

TEST(PassManagerTest, OnlyPassesForCopiesSeeCopies) {
  llvm::Expected<Graph> G = parseTextGraph(TwoRanks);
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  std::vector<Seen> Log;
  PassManager PM;
  PM.addPass(wrap("aware", CopyAwarePass{{&Log}}));
  PM.addPass(wrap("plain", PlainPass{&Log}));
  PM.addPass(wrap("aware", CopyAwarePass{{&Log}}));
  PM.addPass(wrap("plain", PlainPass{&Log}));
  std::string Debug;
  llvm::raw_string_ostream OS(Debug);
  AnalysisManager AM(&OS);
  PassInstrumentation PI;
  PI.DebugPassManager = true;
  PI.VerifyEach = true;
  PI.Log = &OS;
  llvm::Error E = PM.run(*G, AM, PI);
  ASSERT_FALSE(bool(E)) << llvm::toString(std::move(E));

  ASSERT_EQ(Log.size(), 4u);
  // The first pass sees rank 1 as a copy, with no tasks of its own.
  EXPECT_TRUE(Log[0].Copies);
  EXPECT_EQ(Log[0].Tasks, 2u);
  // The first pass without it sees rank 1 whole; so does everything after.
  for (size_t I = 1; I != 4; ++I) {
    EXPECT_FALSE(Log[I].Copies) << "pass " << I;
    EXPECT_EQ(Log[I].Tasks, 4u) << "pass " << I;
  }
  EXPECT_FALSE(hasRankCopies(*G));
  EXPECT_EQ(OS.str(), "Running pass: aware\n"
                      "Verifying graph after pass: aware\n"
                      "Running pass: plain\n"
                      "Expanding rank copies for pass: plain\n"
                      "Verifying graph after pass: plain\n"
                      "Running pass: aware\n"
                      "Verifying graph after pass: aware\n"
                      "Running pass: plain\n"
                      "Verifying graph after pass: plain\n");
}

TEST(PassManagerTest, GraphsWithoutCopiesAreLeftAlone) {
  llvm::Expected<Graph> G = parseTextGraph(TwoRanks);
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  G->metadata().Ranks.pop_back();
  G->metadata().Ranks.push_back(RankInfo{1, 2, "", -1});
  std::vector<Seen> Log;
  PassManager PM;
  PM.addPass(wrap("plain", PlainPass{&Log}));
  std::string Debug;
  llvm::raw_string_ostream OS(Debug);
  AnalysisManager AM;
  PassInstrumentation PI;
  PI.DebugPassManager = true;
  PI.Log = &OS;
  llvm::Error E = PM.run(*G, AM, PI);
  ASSERT_FALSE(bool(E)) << llvm::toString(std::move(E));
  ASSERT_EQ(Log.size(), 1u);
  EXPECT_EQ(Log[0].Tasks, 2u);
  EXPECT_EQ(OS.str(), "Running pass: plain\n");
}

TEST(PassManagerTest, PassesThatNeedCollectivesSkipGraphsWithout) {
  llvm::Expected<Graph> Without = parseTextGraph(TwoRanks);
  ASSERT_TRUE(bool(Without)) << llvm::toString(Without.takeError());
  llvm::Expected<Graph> With = parseTextGraph(R"(ddir 1
lane @c cpu-thread "main"
lane @s gpu-stream "stream 7"
task %a cpu-op @c "a" start=0 dur=1
task %n collective @s "ncclDevKernel_AllReduce" start=1 dur=5
)");
  ASSERT_TRUE(bool(With)) << llvm::toString(With.takeError());
  for (Graph *G : {&*Without, &*With}) {
    std::vector<Seen> Log;
    std::vector<std::string> Warnings;
    PassManager PM;
    PM.addPass(wrap("net", CollectivePass{{&Log}}));
    AnalysisManager AM;
    AM.setWarningHandler(
        [&](llvm::StringRef W) { Warnings.push_back(W.str()); });
    llvm::Error E = PM.run(*G, AM);
    ASSERT_FALSE(bool(E)) << llvm::toString(std::move(E));
    if (G == &*Without) {
      EXPECT_TRUE(Log.empty());
      ASSERT_EQ(Warnings.size(), 1u);
      EXPECT_EQ(Warnings[0], "net: the graph has no collective tasks (no NCCL "
                             "or RCCL kernels, no barriers: a trace of one "
                             "GPU? ddp-insert and p3 model data parallelism "
                             "from one); nothing was changed");
    } else {
      EXPECT_EQ(Log.size(), 1u);
      EXPECT_TRUE(Warnings.empty());
    }
  }
  EXPECT_TRUE(wrap("net", CollectivePass{})->needsCollectives());
  EXPECT_FALSE(wrap("plain", PlainPass{})->needsCollectives());
}

} // namespace
