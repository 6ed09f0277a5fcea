//===- RunReadersTest.cpp - CSV, JSON and trace runs, and their errors ----===//
//
// Each reader on a small run it must accept, and each problem the readers
// promise to name, with the message checked word for word: these messages
// are the interface a person fixing a run file sees.
//
//===----------------------------------------------------------------------===//

#include "daydream/SeqPoint/RunReaders.h"
#include "daydream/Import/InputFile.h"

#include "gtest/gtest.h"

using namespace dd;
using namespace dd::seqpoint;

namespace {

llvm::Expected<RunProfile> csv(llvm::StringRef Text,
                               const RunReadOptions &O = {}) {
  auto In = import::makeInputFile("run.csv", Text);
  if (!In)
    return In.takeError();
  return readRunCsv(*In, O);
}

llvm::Expected<RunProfile> json(llvm::StringRef Text,
                                const RunReadOptions &O = {}) {
  auto In = import::makeInputFile("run.json", Text);
  if (!In)
    return In.takeError();
  return readRunJson(*In, O);
}

std::string csvError(llvm::StringRef Text, const RunReadOptions &O = {}) {
  auto R = csv(Text, O);
  return R ? std::string("(no error)") : llvm::toString(R.takeError());
}

std::string jsonError(llvm::StringRef Text) {
  auto R = json(Text);
  return R ? std::string("(no error)") : llvm::toString(R.takeError());
}

TEST(CsvRunTest, ReadsColumnsInAnyOrder) {
  auto R = csv("# made by hand\n"
               "time_us,loss,seq_len,iteration\n"
               "12.5,0.1,7,3\r\n"
               "\n"
               ",0.2,9,1\n"
               "1e3,0.3,4,2\n");
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_EQ(R->size(), 3u);
  // Sorted by iteration.
  EXPECT_EQ(R->iteration(0), 1);
  EXPECT_EQ(R->lengths(0)[0], 9);
  EXPECT_FALSE(R->hasTime(0));
  EXPECT_EQ(R->iteration(1), 2);
  EXPECT_DOUBLE_EQ(R->timeUs(1), 1000);
  EXPECT_EQ(R->iteration(2), 3);
  EXPECT_DOUBLE_EQ(R->timeUs(2), 12.5);
  EXPECT_EQ(R->numTimed(), 2u);
}

TEST(CsvRunTest, ExtraLengths) {
  RunReadOptions O;
  O.LengthColumns = {"seq_len", "seq_len2"};
  auto R = csv("iteration,seq_len,seq_len2,time_us\n0,3,4,1\n1,5,6,2\n", O);
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(R->lengths(1), (llvm::ArrayRef<int64_t>{5, 6}));
  EXPECT_EQ(csvError("iteration,seq_len,time_us\n0,3,1\n1,5,2\n", O),
            "run.csv:1: no 'seq_len2' column (the header is "
            "'iteration,seq_len,time_us'; a run needs iteration, the length "
            "columns and the time)");
}

TEST(CsvRunTest, Errors) {
  EXPECT_EQ(csvError(""), "run.csv: empty file");
  EXPECT_EQ(csvError("# nothing\n\n"), "run.csv: empty file");
  EXPECT_EQ(csvError("iteration,seq_len,time_us\n"),
            "run.csv: no iterations after the header");
  EXPECT_EQ(csvError("iteration,seq_len,time_us\n4,10,100\n"),
            "run.csv:2:1: only one iteration (4): SeqPoint needs a run of at "
            "least two");
  EXPECT_EQ(csvError("iteration,time_us\n0,1\n"),
            "run.csv:1: no 'seq_len' column (the header is "
            "'iteration,time_us'; a run needs iteration, the length columns "
            "and the time)");
  EXPECT_EQ(csvError("iteration,seq_len,time_us\n0,abc,1\n1,2,3\n"),
            "run.csv:2:3: seq_len 'abc' is not a whole number");
  EXPECT_EQ(csvError("iteration,seq_len,time_us\n0,4,1\n1, 2.5,3\n"),
            "run.csv:3:4: seq_len '2.5' is not a whole number");
  EXPECT_EQ(csvError("iteration,seq_len,time_us\n0,4,fast\n"),
            "run.csv:2:5: time_us 'fast' is not a number");
  EXPECT_EQ(csvError("iteration,seq_len,time_us\n0,4,nan\n"),
            "run.csv:2:5: time_us 'nan' is not a number");
  EXPECT_EQ(csvError("iteration,seq_len,time_us\n0,4,-3.5\n"),
            "run.csv:2:5: time_us -3.5 is negative");
  EXPECT_EQ(csvError("iteration,seq_len,time_us\n0,-4,3\n"),
            "run.csv:2:3: seq_len -4 is negative");
  EXPECT_EQ(csvError("iteration,seq_len,time_us\n0,,3\n"),
            "run.csv:2:3: missing seq_len");
  EXPECT_EQ(csvError("iteration,seq_len,time_us\n0,4\n"),
            "run.csv:2: 2 fields where the header has 3");
  EXPECT_EQ(csvError("iteration,seq_len,time_us\n0,4,1\n2,5,1\n0,6,1\n"),
            "run.csv:4:1: duplicate iteration 0 (also at run.csv:2:1)");
}

TEST(JsonRunTest, BothShapes) {
  auto A = json(R"([{"iteration": 1, "seq_len": 5, "time_us": 2.5},
                    {"iteration": 0, "seq_len": 3.0, "time_us": null},
                    {"iteration": 2, "seq_len": 4}])");
  ASSERT_TRUE(bool(A)) << llvm::toString(A.takeError());
  ASSERT_EQ(A->size(), 3u);
  EXPECT_EQ(A->iteration(0), 0);
  EXPECT_EQ(A->lengths(0)[0], 3);
  EXPECT_FALSE(A->hasTime(0));
  EXPECT_DOUBLE_EQ(A->timeUs(1), 2.5);
  EXPECT_FALSE(A->hasTime(2));
  auto B = json(R"({"model": "gnmt", "iterations": [
                    {"iteration": 0, "seq_len": 3, "time_us": 1},
                    {"iteration": 1, "seq_len": 4, "time_us": 2}]})");
  ASSERT_TRUE(bool(B));
  EXPECT_EQ(B->size(), 2u);
}

TEST(JsonRunTest, Errors) {
  EXPECT_EQ(jsonError("[{\"iteration\": 0"),
            "run.json: malformed JSON: The JSON document has an improper "
            "structure: missing or superfluous commas, braces, missing keys, "
            "etc.");
  EXPECT_EQ(jsonError("{\"runs\": []}"),
            "run.json: not a run (expected [{\"iteration\": N, ...}, ...], "
            "{\"iterations\": [...]} or a trace's {\"traceEvents\": [...]})");
  EXPECT_EQ(jsonError("[]"), "run.json: no iterations");
  EXPECT_EQ(jsonError("[1, 2]"), "run.json: iterations[0]: not an object");
  EXPECT_EQ(jsonError(R"([{"seq_len": 3}])"),
            "run.json: iterations[0]: missing \"iteration\"");
  EXPECT_EQ(jsonError(R"([{"iteration": 0, "seq_len": 3},
                          {"iteration": 1}])"),
            "run.json: iterations[1]: missing \"seq_len\"");
  EXPECT_EQ(jsonError(R"([{"iteration": 0, "seq_len": "3"}])"),
            "run.json: iterations[0]: \"seq_len\" is not a whole number");
  EXPECT_EQ(jsonError(R"([{"iteration": 0, "seq_len": -3}])"),
            "run.json: iterations[0]: \"seq_len\" is negative");
  EXPECT_EQ(jsonError(R"([{"iteration": 0, "seq_len": 3, "time_us": "1"}])"),
            "run.json: iterations[0]: \"time_us\" is not a number");
  EXPECT_EQ(jsonError(R"([{"iteration": 0, "seq_len": 3, "time_us": -1}])"),
            "run.json: iterations[0]: \"time_us\" is negative");
  EXPECT_EQ(jsonError(R"([{"iteration": 0, "seq_len": 3}])"),
            "run.json: iterations[0]: only one iteration (0): SeqPoint needs "
            "a run of at least two");
  EXPECT_EQ(jsonError(R"([{"iteration": 0, "seq_len": 3},
                          {"iteration": 0, "seq_len": 4}])"),
            "run.json: iterations[1]: duplicate iteration 0 (also at "
            "run.json: iterations[0])");
}

/// Three steps on thread 1/1; aten::embedding's indices are [batch, length].
/// Ops on another thread, or outside every step, do not count.
const char *Trace = R"({"traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7", "pid": 1, "tid": 1, "ts": 100, "dur": 50},
  {"ph": "X", "cat": "cpu_op", "name": "aten::zeros", "pid": 1, "tid": 1, "ts": 101, "dur": 1, "args": {"Input Dims": [[], [], []]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::embedding", "pid": 1, "tid": 1, "ts": 102, "dur": 5, "args": {"Input Dims": [[1000, 64], [8, 12]]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::embedding", "pid": 1, "tid": 1, "ts": 110, "dur": 5, "args": {"Input Dims": [[1000, 64], [8, 99]]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 111, "dur": 5, "args": {"Input Dims": [[5, 5], [5, 5]]}},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#8", "pid": 1, "tid": 1, "ts": 200, "dur": 80},
  {"ph": "X", "cat": "cpu_op", "name": "aten::embedding", "pid": 1, "tid": 1, "ts": 202, "dur": 5, "args": {"Input Dims": [[1000, 64], [8, 30]]}},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#9", "pid": 1, "tid": 1, "ts": 300, "dur": 60.5},
  {"ph": "X", "cat": "cpu_op", "name": "aten::embedding", "pid": 1, "tid": 1, "ts": 301, "dur": 5, "args": {"Input Dims": [[1000, 64], [6, 20]]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::embedding", "pid": 1, "tid": 1, "ts": 400, "dur": 5, "args": {"Input Dims": [[1000, 64], [6, 77]]}}
]})";

TEST(TraceRunTest, FirstVaryingPosition) {
  auto R = json(Trace);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  // aten::zeros is missing from steps 8 and 9; embedding input 0 never
  // varies; input 1 dim 0 (the batch) is the first that does.
  EXPECT_EQ(R->lengthNames()[0], "aten::embedding input 1 dim 0");
  ASSERT_EQ(R->size(), 3u);
  EXPECT_EQ(R->iteration(0), 7);
  EXPECT_EQ(R->lengths(0)[0], 8);
  EXPECT_EQ(R->lengths(2)[0], 6);
  EXPECT_DOUBLE_EQ(R->timeUs(2), 60.5);
}

TEST(TraceRunTest, NamedPosition) {
  RunReadOptions O;
  O.Trace = {"aten::embedding", 1, 1};
  auto R = json(Trace, O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->lengthNames()[0], "aten::embedding input 1 dim 1");
  // The first embedding of each step.
  EXPECT_EQ(R->lengths(0)[0], 12);
  EXPECT_EQ(R->lengths(1)[0], 30);
  EXPECT_EQ(R->lengths(2)[0], 20);
  EXPECT_DOUBLE_EQ(R->timeUs(1), 80);

  O.Trace = {"aten::zeros", 0, 0};
  auto Missing = json(Trace, O);
  ASSERT_FALSE(bool(Missing));
  EXPECT_EQ(llvm::toString(Missing.takeError()),
            "run.json: ProfilerStep#7 has no aten::zeros input 0 dim 0");
}

TEST(TraceRunTest, Errors) {
  EXPECT_EQ(jsonError(R"({"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 1}]})"),
            "run.json: no ProfilerStep ranges (SeqPoint needs a trace of "
            "several iterations)");
  EXPECT_EQ(jsonError(R"({"traceEvents": [
      {"ph": "X", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
      {"ph": "X", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 5, "dur": 1}]})"),
            "run.json: no input dimension of the CPU ops in every "
            "ProfilerStep varies across steps; name the sequence length with "
            "-length-op, -length-input and -length-dim");
}

} // namespace
