//===- ProcessEndTest.cpp - The trace ends however the process does -------===//
//
// Death tests: each runs in a forked child that starts the tracer on the
// fake CUPTI with the real exit, signal and fork handlers, and ends; the
// test then reads the file the child left.
//
//===----------------------------------------------------------------------===//

#include "Signals.h"
#include "TracerFixture.h"

#include <csignal>
#include <sys/wait.h>

using namespace dd::trace;
using namespace dd::trace::testing;

namespace {

class ProcessEndTest : public TracerTest {
protected:
  void SetUp() override {
    TracerTest::SetUp();
    ::testing::FLAGS_gtest_death_test_style = "fast";
  }

  /// In the child: trace one kernel with the process handlers installed.
  void startInChild() {
    if (!start())
      _exit(90);
    installProcessHandlers();
    if (!fake::emit(kernel("child-kernel", 1)))
      _exit(91);
  }

  /// The one trace the child left.
  TraceFile childTrace() {
    std::vector<std::string> Files = listDir(Dir);
    EXPECT_EQ(Files.size(), 1u);
    return Files.empty() ? TraceFile() : readTraceFile(Dir + "/" + Files[0]);
  }
};

TEST_F(ProcessEndTest, ExitEndsTheTrace) {
  EXPECT_EXIT(
      {
        startInChild();
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
  TraceFile File = childTrace();
  ASSERT_EQ(File.Error, "");
  EXPECT_EQ(File.kernelNames(), std::vector<std::string>{"child-kernel"});
  EXPECT_TRUE(File.endsCleanly());
}

TEST_F(ProcessEndTest, TerminatingSignalEndsTheTraceAndKills) {
  EXPECT_EXIT(
      {
        startInChild();
        raise(SIGTERM);
        _exit(92); // not reached: the signal kills
      },
      ::testing::KilledBySignal(SIGTERM), "");
  TraceFile File = childTrace();
  ASSERT_EQ(File.Error, "");
  EXPECT_EQ(File.kernelNames(), std::vector<std::string>{"child-kernel"});
  EXPECT_TRUE(File.endsCleanly());
}

void programHandler(int) { _exit(42); }

TEST_F(ProcessEndTest, ProgramHandlerIsCalledInstead) {
  EXPECT_EXIT(
      {
        signal(SIGINT, programHandler);
        startInChild();
        raise(SIGINT);
        _exit(93);
      },
      ::testing::ExitedWithCode(42), "");
  // The tracer left the signal to the program, whose handler chose _exit:
  // the trace was not ended (here nothing of it had been written out yet).
  TraceFile File = childTrace();
  EXPECT_FALSE(File.endsCleanly());
  EXPECT_TRUE(File.kernelNames().empty());
}

TEST_F(ProcessEndTest, IgnoredSignalStaysIgnored) {
  EXPECT_EXIT(
      {
        signal(SIGHUP, SIG_IGN);
        startInChild();
        raise(SIGHUP);
        std::exit(5);
      },
      ::testing::ExitedWithCode(5), "");
  EXPECT_TRUE(childTrace().endsCleanly());
}

TEST_F(ProcessEndTest, ForkChildLeavesTheParentsTrace) {
  EXPECT_EXIT(
      {
        startInChild();
        pid_t Child = fork();
        if (Child == 0) {
          // The atexit handler runs here too, and must do nothing.
          fake::emit(kernel("grandchild-kernel", 2));
          std::exit(0);
        }
        int Status = 0;
        waitpid(Child, &Status, 0);
        fake::emit(kernel("after-fork", 3));
        std::exit(WIFEXITED(Status) ? WEXITSTATUS(Status) : 94);
      },
      ::testing::ExitedWithCode(0), "");
  TraceFile File = childTrace();
  ASSERT_EQ(File.Error, "");
  EXPECT_EQ(File.kernelNames(),
            (std::vector<std::string>{"child-kernel", "after-fork"}));
  EXPECT_EQ(File.frames(FrameType::End).size(), 1u);
}

} // namespace
