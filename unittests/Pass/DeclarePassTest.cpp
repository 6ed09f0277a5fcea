//===- DeclarePassTest.cpp - A pass declared once in its class ------------===//
//
// passInfo<PassT>() reads the name, flag, description, options and traits
// from the class alone, and its entry builds the pass from text as
// makePass<PassT>() does from typed options.
//
//===----------------------------------------------------------------------===//

#include "daydream/Pass/DeclarePass.h"
#include "daydream/IR/Graph.h"

#include "gtest/gtest.h"

using namespace dd;

namespace {

struct StretchOptions {
  double Factor = 2;
  bool Gaps = false;
};

void declare(PassOptionParser &P, StretchOptions &O) {
  P.add("factor", O.Factor, "multiply durations by this");
  P.add("gaps", O.Gaps, "and the gaps");
}

llvm::Error validate(const StretchOptions &O) {
  return O.Factor > 0 ? llvm::Error::success()
                      : optionError("factor must be positive");
}

class Stretch {
public:
  static constexpr const char *Name = "stretch";
  static constexpr const char *Flag = "st";
  static constexpr const char *Description = "make tasks longer";
  using OptionsT = StretchOptions;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;
  static constexpr bool AddsTasks = true;

  explicit Stretch(StretchOptions O) : O(O) {}
  llvm::Expected<PreservedAnalyses> run(Graph &, AnalysisManager &) {
    return PreservedAnalyses::all();
  }
  StretchOptions O;
};

/// The least a pass declares: no flag, no validate(), no traits.
class Report {
public:
  static constexpr const char *Name = "print<report>";
  static constexpr const char *Description = "say something";
  using OptionsT = StretchOptions;
  static constexpr auto Declare = &declare;
  static constexpr bool IsPrinter = true;

  explicit Report(StretchOptions) {}
  llvm::Expected<PreservedAnalyses> run(Graph &, AnalysisManager &) {
    return PreservedAnalyses::all();
  }
};

std::string pipeline(const PassConcept &P) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  P.printPipeline(OS);
  return OS.str();
}

TEST(DeclarePassTest, InfoComesFromTheClass) {
  PassInfo I = passInfo<Stretch>();
  EXPECT_EQ(I.Name, "stretch");
  EXPECT_EQ(I.Flag, "st");
  EXPECT_EQ(I.Description, "make tasks longer");
  std::vector<PassOptionDoc> Options = I.Options();
  ASSERT_EQ(Options.size(), 2u);
  EXPECT_EQ(Options[0].Key, "factor");
  EXPECT_EQ(Options[0].Default, "2");
  EXPECT_EQ(passSynopsis(I.Name, Options), "stretch{factor=2 gaps=false}");
  EXPECT_EQ(I.Traits.describe(), "adds tasks");
  EXPECT_EQ(passInfo<Report>().Flag, "");
  EXPECT_EQ(passInfo<Report>().Traits.describe(), "printer");
}

TEST(DeclarePassTest, TextAndTypedOptionsBuildTheSamePass) {
  auto FromText = passInfo<Stretch>().Create("factor=3 gaps=true");
  ASSERT_TRUE(bool(FromText)) << llvm::toString(FromText.takeError());
  auto Typed = makePass<Stretch>(StretchOptions{3, true});
  ASSERT_TRUE(bool(Typed)) << llvm::toString(Typed.takeError());
  EXPECT_EQ(pipeline(**FromText), "stretch{factor=3 gaps=true}");
  EXPECT_EQ(pipeline(**Typed), pipeline(**FromText));
  EXPECT_TRUE((*Typed)->addsTasks());
  EXPECT_FALSE((*Typed)->isPrinter());
}

TEST(DeclarePassTest, BothWaysValidate) {
  auto FromText = passInfo<Stretch>().Create("factor=-1");
  ASSERT_FALSE(bool(FromText));
  EXPECT_EQ(llvm::toString(FromText.takeError()),
            "pass 'stretch': factor must be positive");
  auto Typed = makePass<Stretch>(StretchOptions{-1, false});
  ASSERT_FALSE(bool(Typed));
  EXPECT_EQ(llvm::toString(Typed.takeError()),
            "pass 'stretch': factor must be positive");
}

TEST(DeclarePassTest, TraitsDefaultToOff) {
  auto P = makePass<Report>(StretchOptions{});
  ASSERT_TRUE(bool(P));
  EXPECT_TRUE((*P)->isPrinter());
  EXPECT_FALSE((*P)->addsTasks());
  EXPECT_FALSE((*P)->handlesRankCopies());
  PassManager PM;
  EXPECT_TRUE(PM.onlyPrinters());
  PM.addPass(std::move(*P));
  EXPECT_TRUE(PM.onlyPrinters());
  PM.addPass(std::move(*makePass<Stretch>(StretchOptions{})));
  EXPECT_FALSE(PM.onlyPrinters());
}

} // namespace
