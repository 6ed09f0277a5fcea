//===- PipelineTest.cpp - Parsing and printing pass pipelines -------------===//

#include "daydream/Pass/PassOptions.h"
#include "daydream/Pass/PassRegistry.h"
#include "daydream/Passes/BuiltinPasses.h"

#include "llvm/ADT/StringMap.h"

#include "gtest/gtest.h"

using namespace dd;

namespace {

struct PipelineTest : ::testing::Test {
  PassRegistry R;
  PipelineTest() { registerBuiltinPasses(R); }

  /// Parses \p Text and prints it back, or returns the error.
  std::string roundTrip(llvm::StringRef Text) {
    PassManager PM;
    if (llvm::Error E = R.parsePipeline(Text, PM))
      return "error: " + llvm::toString(std::move(E));
    std::string S;
    llvm::raw_string_ostream OS(S);
    PM.printPipeline(OS);
    return OS.str();
  }
};

TEST_F(PipelineTest, PrintsEveryOptionAndParsesBack) {
  std::string P = roundTrip("scale-tasks{factor=0.5 kind=kernel},print<stats>");
  EXPECT_EQ(P, "scale-tasks{factor=0.5 kind=kernel phase=all name=\"\" "
               "lane=\"\" layer=\"\" within=\"\" class=all min-bytes=0},"
               "print<stats>{json=false}");
  EXPECT_EQ(roundTrip(P), P);
}

TEST_F(PipelineTest, EveryBuiltinPassPrintsWhatParsesBack) {
  // Defaults, plus the options the passes that need some require.
  const llvm::StringMap<std::string> Required = {
      {"remove-tasks", "kind=memcpy"},
      {"activation-checkpointing", "layers=^model.layers.[0-9]+$"},
      {"cuda-graphs", "phase=forward,backward"},
      {"dataloader-workers", "workers=4"},
      {"ddp-insert", "params-mb=10"},
      {"p3", "params-mb=10"},
      {"retarget-gpu", "to=h100 from=v100"},
      {"dp-ranks", "ranks=8"},
      {"straggler", "rank=0"}};
  for (const PassInfo *Info : R.passes()) {
    auto It = Required.find(Info->Name);
    std::string P =
        roundTrip(It == Required.end() ? Info->Name
                                       : Info->Name + "{" + It->second + "}");
    ASSERT_EQ(P.rfind("error:", 0), std::string::npos)
        << Info->Name << ": " << P;
    EXPECT_EQ(roundTrip(P), P) << Info->Name;
  }
}

TEST_F(PipelineTest, QuotedValuesKeepSpacesAndCommas) {
  std::string P = roundTrip("remove-tasks{name=\"Memcpy HtoD, async\"}");
  EXPECT_NE(P.find("name=\"Memcpy HtoD, async\""), std::string::npos) << P;
  EXPECT_EQ(roundTrip(P), P);
}

TEST_F(PipelineTest, KindListsInsideBracesAreNotPassSeparators) {
  std::string P = roundTrip("remove-tasks{kind=memcpy,memset},print<stats>");
  EXPECT_EQ(P.rfind("remove-tasks{kind=memcpy,memset ", 0), 0u) << P;
}

TEST_F(PipelineTest, Errors) {
  EXPECT_EQ(roundTrip("no-such-pass"),
            "error: unknown pass 'no-such-pass' (see -print-passes)");
  EXPECT_EQ(roundTrip("scale-tasks{factr=2}"),
            "error: pass 'scale-tasks': unknown option 'factr' (valid: factor, "
            "kind, phase, name, lane, layer, within, class, min-bytes)");
  EXPECT_EQ(roundTrip("scale-tasks{factor=fast}"),
            "error: pass 'scale-tasks': option 'factor': expected a number, "
            "found 'fast'");
  EXPECT_EQ(roundTrip("scale-tasks{factor=-1}"),
            "error: pass 'scale-tasks': factor must be in [0, 1e6], not -1");
  EXPECT_EQ(roundTrip("scale-tasks{factor=1 factor=2}"),
            "error: pass 'scale-tasks': option 'factor' given twice");
  EXPECT_EQ(roundTrip("scale-tasks{factor=2"),
            "error: invalid pipeline 'scale-tasks{factor=2': unbalanced '{'");
  EXPECT_EQ(roundTrip("scale-tasks}"),
            "error: invalid pipeline 'scale-tasks}': unbalanced '}'");
  EXPECT_EQ(roundTrip("scale-tasks,,print<stats>"),
            "error: invalid pipeline 'scale-tasks,,print<stats>': empty pass "
            "name");
  EXPECT_EQ(roundTrip("scale-tasks{} x"),
            "error: invalid pipeline 'scale-tasks{} x': unexpected text after "
            "'}'");
  EXPECT_EQ(
      roundTrip("remove-tasks"),
      "error: pass 'remove-tasks': give at least one of kind=, phase=, "
      "name=, lane=, layer=, within=, class=, min-bytes= (it would remove "
      "every task)");
  EXPECT_EQ(roundTrip("print<stats>{json}"),
            "error: pass 'print<stats>': expected key=value, found 'json'");
}

TEST_F(PipelineTest, RegistryRejectsClashes) {
  PassInfo Dup{"scale-tasks", "", "dup", {}, nullptr, nullptr};
  EXPECT_EQ(llvm::toString(R.registerPass(Dup)),
            "pass name 'scale-tasks' is already registered");
  PassInfo FlagClash{"new-pass", "print<stats>", "dup", {}, nullptr, nullptr};
  EXPECT_EQ(llvm::toString(R.registerPass(FlagClash)),
            "pass flag 'print<stats>' of 'new-pass' is already registered");
}

TEST_F(PipelineTest, PrintPassesListsOptions) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  R.printPasses(OS);
  EXPECT_NE(OS.str().find("  scale-tasks\n"), std::string::npos);
  EXPECT_NE(OS.str().find("factor=1  multiply durations"), std::string::npos);
}

} // namespace
