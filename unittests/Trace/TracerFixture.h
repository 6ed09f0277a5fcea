//===- TracerFixture.h - A tracer on the fake CUPTI, per test ---*- C++ -*-===//
//
// Each test gets an empty output folder, a fresh fake CUPTI and a
// configuration with small buffers; the tracer is finished and freed after
// the test, so that tests do not see each other's state.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_UNITTESTS_TRACE_TRACERFIXTURE_H
#define DAYDREAM_UNITTESTS_TRACE_TRACERFIXTURE_H

#include "Config.h"
#include "FakeCupti.h"
#include "TraceFile.h"
#include "Tracer.h"

#include "daydream/Trace/CuptiRecords.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <unistd.h>

namespace dd::trace::testing {

class TracerTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string Template =
        (std::filesystem::temp_directory_path() / "ddtrace-test-XXXXXX")
            .string();
    ASSERT_NE(mkdtemp(Template.data()), nullptr);
    Dir = Template;
    fake::reset();
    Config.OutputDir = Dir;
    Config.BufferBytes = 4096;
    Config.BufferPoolBytes = 4 * 4096;
  }

  void TearDown() override {
    finishTracing();
    resetTracingForTesting();
    fake::reset();
    std::filesystem::remove_all(Dir);
  }

  bool start() { return startTracing(fake::api(), Config); }
  /// This process's trace.
  std::string path() const {
    return Dir + "/" + std::to_string(getpid()) + ".ddrec";
  }
  TraceFile read() const { return readTraceFile(path()); }

  std::string Dir;
  TraceConfig Config;
};

/// Whether \p Text contains \p Part, saying what it holds when not.
inline ::testing::AssertionResult contains(const std::string &Text,
                                           const std::string &Part) {
  if (Text.find(Part) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "'" << Text << "' does not contain '" << Part << "'";
}

inline KernelRecord kernel(const char *Name, uint32_t Correlation,
                           uint64_t Start = 0) {
  KernelRecord K = {};
  K.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  K.name = Name;
  K.correlationId = Correlation;
  K.start = Start;
  K.end = Start + 10;
  K.streamId = 7;
  return K;
}

inline ApiRecord api(CUpti_ActivityKind Kind, uint32_t Cbid,
                     uint32_t Correlation) {
  ApiRecord A = {};
  A.kind = Kind;
  A.cbid = Cbid;
  A.correlationId = Correlation;
  A.processId = uint32_t(getpid());
  return A;
}

} // namespace dd::trace::testing

#endif // DAYDREAM_UNITTESTS_TRACE_TRACERFIXTURE_H
