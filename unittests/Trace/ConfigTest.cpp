//===- ConfigTest.cpp - The launcher's environment variables --------------===//

#include "Config.h"
#include "BufferPool.h"

#include "daydream/Trace/RecordFile.h"

#include <gtest/gtest.h>

#include <map>

using namespace dd::trace;

namespace {

bool read(const std::map<std::string, std::string> &Env, TraceConfig &C,
          std::string &Err) {
  return readConfig(
      [&](const char *Name) -> const char * {
        auto It = Env.find(Name);
        return It == Env.end() ? nullptr : It->second.c_str();
      },
      C, Err);
}

TEST(ConfigTest, Defaults) {
  TraceConfig C;
  std::string Err;
  ASSERT_TRUE(read({{env::OutputDir, "/tmp/out"}}, C, Err)) << Err;
  EXPECT_EQ(C.OutputDir, "/tmp/out");
  EXPECT_EQ(C.CuptiLibrary, "libcupti.so");
  EXPECT_EQ(C.BufferPoolBytes, uint64_t(256) << 20);
  EXPECT_FALSE(C.HasWindow);
  EXPECT_FALSE(C.Memory);
}

TEST(ConfigTest, Everything) {
  TraceConfig C;
  std::string Err;
  ASSERT_TRUE(read({{env::OutputDir, "out"},
                    {env::CuptiLibrary, "/opt/cuda/libcupti.so.13"},
                    {env::BufferMiB, "64"},
                    {env::Window, "3:7"},
                    {env::WindowRange, "train"},
                    {env::Memory, "1"}},
                   C, Err))
      << Err;
  EXPECT_EQ(C.CuptiLibrary, "/opt/cuda/libcupti.so.13");
  EXPECT_EQ(C.BufferPoolBytes, uint64_t(64) << 20);
  EXPECT_TRUE(C.HasWindow);
  EXPECT_EQ(C.WindowFirst, 3u);
  EXPECT_EQ(C.WindowLast, 7u);
  EXPECT_EQ(C.WindowRange, "train");
  EXPECT_TRUE(C.Memory);
}

TEST(ConfigTest, Errors) {
  struct Case {
    std::map<std::string, std::string> Env;
    const char *Message;
  } Cases[] = {
      {{}, "DDTRACE_OUTPUT_DIR is not set"},
      {{{env::OutputDir, ""}}, "DDTRACE_OUTPUT_DIR is not set"},
      {{{env::OutputDir, "o"}, {env::BufferMiB, "0"}},
       "invalid DDTRACE_BUFFER_MB '0'"},
      {{{env::OutputDir, "o"}, {env::BufferMiB, "12MB"}},
       "invalid DDTRACE_BUFFER_MB '12MB'"},
      {{{env::OutputDir, "o"}, {env::BufferMiB, "-5"}},
       "invalid DDTRACE_BUFFER_MB '-5'"},
      {{{env::OutputDir, "o"}, {env::Window, "7"}},
       "DDTRACE_WINDOW: invalid window '7'"},
      {{{env::OutputDir, "o"}, {env::Memory, "yes"}},
       "invalid DDTRACE_MEMORY 'yes'"},
  };
  for (const Case &C : Cases) {
    TraceConfig Config;
    std::string Err;
    EXPECT_FALSE(read(C.Env, Config, Err)) << C.Message;
    EXPECT_EQ(Err.rfind(C.Message, 0), 0u) << Err;
  }
}

TEST(BufferPoolTest, LendsUpToTheCap) {
  BufferPool Pool(3ull * 4096, 4096);
  EXPECT_EQ(Pool.bufferBytes(), 4096u);
  EXPECT_EQ(Pool.capacity(), 3u);
  uint8_t *A = Pool.acquire(), *B = Pool.acquire(), *C = Pool.acquire();
  ASSERT_TRUE(A && B && C);
  for (uint8_t *P : {A, B, C})
    EXPECT_EQ(reinterpret_cast<uintptr_t>(P) % BufferPool::Alignment, 0u);
  EXPECT_EQ(Pool.acquire(), nullptr);
  EXPECT_EQ(Pool.refusals(), 1u);
  Pool.release(B);
  EXPECT_EQ(Pool.acquire(), B);
  Pool.release(A);
  Pool.release(B);
  Pool.release(C);
  Pool.release(nullptr);
}

TEST(BufferPoolTest, SmallCapMakesOneSmallerBuffer) {
  BufferPool Pool(1000, 8 << 20);
  EXPECT_EQ(Pool.bufferBytes(), 1000u);
  EXPECT_EQ(Pool.capacity(), 1u);
  BufferPool Odd(4 << 20, 1001); // rounded down to the alignment
  EXPECT_EQ(Odd.bufferBytes(), 1000u);
  uint8_t *P = Pool.acquire();
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(Pool.acquire(), nullptr);
  Pool.release(P);
}

} // namespace
