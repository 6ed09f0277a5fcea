//===- SynthTest.cpp - dd-synth's plans, traces and their JSON ------------===//
//
// What dd-synth promises, checked in memory for every family: the graph
// has the planned number of tasks, -tasks comes within 10%, the same
// options make the same bytes, the Kineto JSON reads back (through the real
// front-end) into the same graph as the lowered models, and replaying the
// graph reproduces each recorded step.
//
//===----------------------------------------------------------------------===//

#include "daydream/Synth/Synth.h"
#include "daydream/IR/BinaryFormat.h"
#include "daydream/IR/Verifier.h"
#include "daydream/Import/ImportJob.h"
#include "daydream/Import/InputFile.h"
#include "daydream/Import/KinetoReader.h"
#include "daydream/Import/Lowering.h"
#include "daydream/Sim/Simulator.h"
#include "daydream/Synth/KinetoWriter.h"

#include "gtest/gtest.h"

using namespace dd;
using namespace dd::import;
using namespace dd::synth;

namespace {

const Family Families[] = {Family::Cnn, Family::Transformer,
                           Family::Recommender};

JobPlan plan(Family F, unsigned Layers, unsigned Iterations, unsigned Ranks) {
  SynthOptions O;
  O.Fam = F;
  O.Layers = Layers;
  O.Iterations = Iterations;
  O.Ranks = Ranks;
  auto P = planJob(O);
  EXPECT_TRUE(bool(P)) << llvm::toString(P.takeError());
  return *P;
}

/// Lowers models as dd-synth does: one rank alone, several as a job.
Graph lower(std::vector<TraceModel> &&Models) {
  LoweringOptions Opts;
  if (Models.size() == 1) {
    LoweringStats Stats;
    auto G = lowerTrace(std::move(Models.front()), Opts, Stats);
    EXPECT_TRUE(bool(G)) << llvm::toString(G.takeError());
    return std::move(*G);
  }
  std::vector<RankTrace> Traces(Models.size());
  for (size_t R = 0; R != Models.size(); ++R) {
    Traces[R].R.Name = "rank " + std::to_string(R);
    Traces[R].Model = std::move(Models[R]);
  }
  auto Job = lowerJob(std::move(Traces), Opts);
  EXPECT_TRUE(bool(Job)) << llvm::toString(Job.takeError());
  return std::move(Job->G);
}

std::string bytesOf(const Graph &G) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  EXPECT_FALSE(bool(writeBinaryGraph(G, OS)));
  return OS.str();
}

std::string jsonOf(const TraceModel &M) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  writeKinetoTrace(M, "test", OS);
  return OS.str();
}

TEST(SynthTest, Defaults) {
  JobPlan P = plan(Family::Transformer, 0, 0, 1);
  EXPECT_EQ(P.Layers, defaultLayers(Family::Transformer));
  EXPECT_EQ(P.Iterations, 3u);
  EXPECT_EQ(P.CollectivesPerRank, 0u);
  EXPECT_EQ(P.Tasks, P.TasksPerRank);
}

TEST(SynthTest, GraphHasThePlannedTasks) {
  for (Family F : Families)
    for (unsigned Ranks : {1u, 3u}) {
      JobPlan P = plan(F, 3, 2, Ranks);
      Graph G = lower(generateJob(P));
      EXPECT_FALSE(bool(verifyGraph(G)));
      EXPECT_EQ(G.numTasks(), P.Tasks) << toString(F).str() << " x" << Ranks;
      EXPECT_EQ(G.iterations().size(), size_t(2 * Ranks));
      EXPECT_EQ(Ranks > 1, P.CollectivesPerRank > 0);
    }
}

TEST(SynthTest, TasksTargetWithinTenPercent) {
  for (Family F : Families)
    for (uint64_t Target : {1000ull, 5000ull, 123456ull})
      for (unsigned Ranks : {1u, 4u}) {
        SynthOptions O;
        O.Fam = F;
        O.Ranks = Ranks;
        O.Tasks = Target * Ranks;
        auto P = planJob(O);
        ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
        double Err = (double(P->Tasks) - double(O.Tasks)) / double(O.Tasks);
        EXPECT_LT(std::abs(Err), 0.10) << toString(F).str() << " " << Target;
      }
  // With one of -layers and -iterations given, the other fits.
  SynthOptions O;
  O.Fam = Family::Cnn;
  O.Tasks = 50000;
  O.Layers = 4;
  auto P = planJob(O);
  ASSERT_TRUE(bool(P));
  EXPECT_EQ(P->Layers, 4u);
  EXPECT_LT(std::abs(double(P->Tasks) - 50000.0), 5000.0);
  O.Layers = 0;
  O.Iterations = 2;
  P = planJob(O);
  ASSERT_TRUE(bool(P));
  EXPECT_EQ(P->Iterations, 2u);
  EXPECT_LT(std::abs(double(P->Tasks) - 50000.0), 5000.0);
}

TEST(SynthTest, BadOptions) {
  auto Message = [](SynthOptions O) {
    auto P = planJob(O);
    return P ? std::string() : llvm::toString(P.takeError());
  };
  SynthOptions O;
  O.Ranks = 0;
  EXPECT_NE(Message(O).find("-ranks=0"), std::string::npos);
  O = SynthOptions();
  O.Tasks = 1000;
  O.Layers = 2;
  O.Iterations = 2;
  EXPECT_NE(Message(O).find("at most one of them"), std::string::npos);
  O = SynthOptions();
  O.Tasks = 10; // smaller than any graph
  EXPECT_NE(Message(O).find("ask for at least"), std::string::npos);
  O = SynthOptions();
  O.RankJitter = 0.9;
  EXPECT_NE(Message(O).find("-rank-jitter"), std::string::npos);
}

TEST(SynthTest, SameOptionsSameBytes) {
  JobPlan P = plan(Family::Recommender, 4, 2, 2);
  std::vector<TraceModel> A = generateJob(P), B = generateJob(P);
  ASSERT_EQ(A.size(), 2u);
  for (size_t R = 0; R != A.size(); ++R)
    EXPECT_EQ(jsonOf(A[R]), jsonOf(B[R]));
  JobPlan Other = P;
  Other.Seed = 2;
  EXPECT_NE(jsonOf(generateJob(Other)[0]), jsonOf(A[0]));
}

/// The key property: the JSON, read by the Kineto front-end and lowered,
/// gives the graph the models give, byte for byte but for the two
/// metadata strings that say where the graph came from.
TEST(SynthTest, KinetoJsonReadsBackAsTheSameGraph) {
  for (Family F : Families)
    for (unsigned Ranks : {1u, 2u, 4u}) {
      JobPlan P = plan(F, 2, 2, Ranks);
      std::vector<TraceModel> Read;
      for (const TraceModel &M : generateJob(P)) {
        auto In = makeInputFile("rank.json", jsonOf(M));
        ASSERT_TRUE(bool(In));
        auto Back = readKinetoTrace(*In);
        ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
        EXPECT_EQ(Back->Stats.MissingFields, 0u);
        Read.push_back(std::move(*Back));
      }
      Graph Direct = lower(generateJob(P));
      Graph Imported = lower(std::move(Read));
      EXPECT_EQ(Direct.metadata().SourceFormat, "synthetic");
      EXPECT_EQ(Imported.metadata().SourceFormat, "kineto");
      Imported.metadata().SourceFormat = "synthetic";
      EXPECT_EQ(bytesOf(Direct), bytesOf(Imported))
          << toString(F).str() << " with " << Ranks << " ranks";
    }
}

TEST(SynthTest, ReplayReproducesTheSteps) {
  for (Family F : Families) {
    JobPlan P = plan(F, 4, 3, 2);
    P.JitterPpm = 50000;
    Graph G = lower(generateJob(P));
    auto R = simulate(G);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    ASSERT_EQ(R->Iterations.size(), 6u);
    for (const IterationResult &I : R->Iterations) {
      ASSERT_GT(I.MeasuredNs, 0);
      // Only each synchronize's last microseconds, after the work it
      // waited for, are lost (docs/Simulation.md).
      EXPECT_NEAR(double(I.PredictedNs), double(I.MeasuredNs),
                  double(I.MeasuredNs) * 0.002)
          << toString(F).str() << " " << I.Name.str() << " rank " << I.Rank;
    }
  }
}

TEST(SynthTest, RanksWaitForEachOtherAtCollectives) {
  // A collective ends at one time on every rank: the last arrival plus the
  // transfer; the ranks that arrived earlier waited.
  JobPlan P = plan(Family::Transformer, 2, 1, 3);
  std::vector<TraceModel> Models = generateJob(P);
  std::vector<std::vector<const GpuActivity *>> Nccl(Models.size());
  for (size_t R = 0; R != Models.size(); ++R)
    for (const GpuActivity &A : Models[R].Activities)
      if (A.Kind == TaskKind::Collective)
        Nccl[R].push_back(&A);
  ASSERT_FALSE(Nccl[0].empty());
  bool SomeoneWaited = false;
  for (size_t K = 0; K != Nccl[0].size(); ++K) {
    int64_t Last = 0;
    for (size_t R = 0; R != Models.size(); ++R) {
      ASSERT_EQ(Nccl[R].size(), Nccl[0].size());
      EXPECT_EQ(Nccl[R][K]->EndNs, Nccl[0][K]->EndNs);
      Last = std::max(Last, Nccl[R][K]->StartNs);
    }
    for (size_t R = 0; R != Models.size(); ++R)
      SomeoneWaited |= Nccl[R][K]->StartNs < Last;
    EXPECT_GT(Nccl[0][K]->EndNs, Last);
  }
  EXPECT_TRUE(SomeoneWaited);
}

} // namespace
