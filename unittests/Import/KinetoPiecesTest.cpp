//===- KinetoPiecesTest.cpp - Parsing a trace in pieces changes nothing ---===//
//
// A large trace is parsed a piece of its events at a time, cut where the
// text looks like the end of one event and the start of the next
// (lib/Import/KinetoChunks.h). These tests read traces with tiny pieces and
// whole, and require the same model: on ordinary traces, on traces whose
// strings and nested args look like event boundaries, on metadata keys
// before and after the events, on random traces; and the same error on
// malformed ones. Read from a gzip still being inflated, a trace must be
// cut into the same pieces, however the bytes arrive.
//
//===----------------------------------------------------------------------===//

#include "GzipForTest.h"
#include "daydream/Import/KinetoReader.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <random>

using namespace dd;
using namespace dd::import;

namespace {

/// Everything the reader put in \p M, one line per record, except
/// Stats.Pieces, which says how it was read.
std::string describe(const TraceModel &M) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  auto Name = [&M](StrId Id) {
    return Id == NoId ? llvm::StringRef("-") : M.Strings.get(Id);
  };
  OS << "format " << M.Meta.SourceFormat << "\n";
  for (const Device &D : M.Meta.Devices)
    OS << "device " << D.Index << " " << D.Name << " " << D.SmCount << " "
       << D.MemoryBytes << "\n";
  for (const RankInfo &R : M.Meta.Ranks)
    OS << "rank " << R.Rank << "/" << R.WorldSize << "\n";
  for (const ThreadInfo &T : M.Threads)
    OS << "thread " << T.Pid << " " << T.Tid << " " << Name(T.Name) << "\n";
  for (const StreamInfo &S : M.Streams)
    OS << "stream " << S.Device << " " << S.Stream << " " << Name(S.Name)
       << "\n";
  for (const CpuRange &R : M.Ranges)
    OS << "range " << R.StartNs << " " << R.EndNs << " " << R.Thread << " "
       << Name(R.Name) << " " << int(R.Kind) << "\n";
  for (const ApiCall &C : M.Calls)
    OS << "call " << C.StartNs << " " << C.EndNs << " " << C.Thread << " "
       << Name(C.Name) << " " << C.Correlation << " " << int(C.Kind) << "\n";
  for (const GpuActivity &A : M.Activities)
    OS << "activity " << A.StartNs << " " << A.EndNs << " " << A.Stream << " "
       << Name(A.Name) << " " << A.Correlation << " " << int(A.Kind) << " "
       << A.HasAttrs << " " << A.Attrs.Bytes << " " << A.Attrs.Grid[0] << "\n";
  for (const SyncRecord &S : M.Syncs)
    OS << "sync " << S.Correlation << " " << int(S.Kind) << " " << S.Stream
       << "\n";
  for (const MemoryRecord &R : M.Memory)
    OS << "memory " << R.TimeNs << " " << R.Bytes << " " << R.Address << "\n";
  OS << "stats " << M.Stats.Events << " " << M.Stats.SkippedPython << " "
     << M.Stats.SkippedOther << " " << M.Stats.MissingFields << "\n";
  return Out;
}

/// The model of \p Json read with pieces of \p PieceBytes (0: whole), or
/// the error's message; \p Pieces gets Stats.Pieces. With \p AheadStep,
/// \p Json is gzipped and inflated beside the reader that many bytes at a
/// time, and no further than it asks (InflateAhead.h).
std::string readWith(llvm::StringRef Json, size_t PieceBytes,
                     uint64_t *Pieces = nullptr, size_t AheadStep = 0) {
  const std::string Gzip = AheadStep ? test::gzipOf(Json) : std::string();
  auto In = AheadStep ? makeInputFileAhead("t.json", Gzip, 0, AheadStep,
                                           /*OnDemand=*/true)
                      : makeInputFile("t.json", Json);
  if (!In)
    return "error: " + llvm::toString(In.takeError());
  KinetoOptions Opts;
  Opts.PieceBytes = PieceBytes;
  auto M = readKinetoTrace(*In, Opts);
  EXPECT_FALSE(bool(In->finishInflating()));
  if (!M)
    return "error: " + llvm::toString(M.takeError());
  if (Pieces)
    *Pieces = M->Stats.Pieces;
  return describe(*M);
}

/// Reads \p Json whole and in pieces of 1 to 200 bytes; the models (or the
/// errors) must agree. Some are read again from a gzip inflated ahead of
/// the reader a few bytes at a time, which must cut the same pieces.
/// Returns the most pieces any read used.
uint64_t expectSameInPieces(const std::string &Json) {
  std::string Whole = readWith(Json, 0);
  uint64_t MostPieces = 0;
  for (size_t Piece : {1, 7, 40, 200}) {
    uint64_t Pieces = 0;
    EXPECT_EQ(readWith(Json, Piece, &Pieces), Whole) << "pieces of " << Piece;
    MostPieces = std::max(MostPieces, Pieces);
    if (Piece != 7 && Piece != 200)
      continue;
    for (size_t Step : {1, 50}) {
      uint64_t AheadPieces = 0;
      EXPECT_EQ(readWith(Json, Piece, &AheadPieces, Step), Whole)
          << "pieces of " << Piece << ", inflated " << Step << " at a time";
      EXPECT_EQ(AheadPieces, Pieces);
    }
  }
  return MostPieces;
}

const char *const Events[] = {
    R"J({"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "main"}})J",
    R"J({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 10.5, "dur": 20, "args": {"External id": 3}})J",
    R"J({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, "ts": 12, "dur": 5, "args": {"correlation": 77}})J",
    R"J({"ph": "s", "id": 77, "pid": 1, "tid": 2, "ts": 12, "cat": "ac2g", "name": "ac2g"})J",
    R"J({"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 30, "dur": 100, "args": {"device": 0, "stream": 7, "correlation": 77, "grid": [4, 1, 1], "block": [128, 1, 1]}})J",
    R"J({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 140, "dur": 8, "args": {"device": 0, "stream": 7, "bytes": 4096}})J",
    R"J({"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 2, "ts": 15, "args": {"Bytes": 512, "Addr": 99, "Device Type": 1, "Device Id": 0}})J",
    R"J({"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": 150, "dur": 2, "args": {"cuda_sync_kind": "Stream Sync", "stream": 7, "correlation": 78}})J",
};

std::string trace(llvm::StringRef Before, llvm::StringRef EventList,
                  llvm::StringRef After) {
  return ("{" + Before + "\"traceEvents\": [" + EventList + "]" + After + "}")
      .str();
}

std::string repeated(unsigned Times, llvm::StringRef Separator = ",\n  ") {
  std::string Out;
  for (unsigned I = 0; I < Times; ++I)
    for (const char *E : Events) {
      if (!Out.empty())
        Out += Separator;
      Out += E;
    }
  return Out;
}

TEST(KinetoPiecesTest, OrdinaryTraceIsReadInPieces) {
  std::string Json = trace(R"J("schemaVersion": 1, )J", repeated(5), "");
  EXPECT_GT(expectSameInPieces(Json), 10u);
}

TEST(KinetoPiecesTest, MetadataBeforeAndAfterTheEvents) {
  std::string Json = trace(
      R"J("deviceProperties": [{"id": 0, "name": "H200", "numSms": 132}], )J",
      repeated(4, ","),
      R"J(, "distributedInfo": {"rank": 3, "world_size": 8}, "baseTimeNanoseconds": 1000, "traceName": "x]}]")J");
  std::string Whole = readWith(Json, 0);
  EXPECT_NE(Whole.find("device 0 H200 132"), std::string::npos) << Whole;
  EXPECT_NE(Whole.find("rank 3/8"), std::string::npos) << Whole;
  EXPECT_GT(expectSameInPieces(Json), 10u);
}

TEST(KinetoPiecesTest, BoundariesInsideStringsAndNestedArgs) {
  // Text that looks like "},{" between events, inside names and inside a
  // nested array of objects: a cut there fails to parse, and the trace is
  // read whole instead, with the same model.
  std::string Tricky;
  for (unsigned I = 0; I < 6; ++I) {
    Tricky +=
        R"J({"ph": "X", "cat": "cpu_op", "name": "a},{b}, {c", "pid": 1, "tid": 2, "ts": 1, "dur": 2, "args": {"list": [{"x": 1}, {"y": "},{"}, {"z": [{}, {}]}]}},)J";
    Tricky +=
        R"J({"ph": "X", "cat": "kernel", "name": "k}\"},{", "pid": 0, "tid": 7, "ts": 3, "dur": 4, "args": {"stream": 7, "correlation": 5, "nested": [{"a": {}}, {"b": {}}]}},)J";
  }
  Tricky += Events[1];
  expectSameInPieces(trace("", Tricky, ""));
  // The same after ordinary events, which are read in pieces until then.
  expectSameInPieces(trace("", repeated(3) + "," + Tricky, ""));
}

TEST(KinetoPiecesTest, TraceEventsKeyInsideMetadata) {
  // The first "traceEvents" in the text is not the events array: the
  // piece-wise parse must notice and read the trace whole.
  std::string Json = trace(
      R"J("meta": {"traceEvents": [{"a": 1}, {"b": 2}]}, )J", repeated(3), "");
  expectSameInPieces(Json);
  uint64_t Pieces = 0;
  readWith(Json, 7, &Pieces);
  EXPECT_EQ(Pieces, 0u);
}

TEST(KinetoPiecesTest, BareArrayIsReadWhole) {
  std::string Json = "[" + repeated(3) + "]";
  expectSameInPieces(Json);
}

TEST(KinetoPiecesTest, MalformedTracesGiveTheWholeParseError) {
  std::string Good = trace("", repeated(4), R"J(, "traceName": "t")J");
  // Truncated at many places, a byte dropped, a byte doubled: the error
  // (or the model) is the one the whole parse gives.
  for (size_t Cut = 1; Cut < Good.size(); Cut += 37) {
    expectSameInPieces(Good.substr(0, Cut));
    expectSameInPieces(Good.substr(0, Cut) + Good.substr(Cut + 1));
    expectSameInPieces(Good.substr(0, Cut) + Good[Cut] + Good.substr(Cut));
  }
  // A trailing comma after the last event, and an empty slot between two.
  expectSameInPieces(trace("", repeated(3) + ",", ""));
  expectSameInPieces(trace("", repeated(2) + ",," + repeated(2), ""));
  // Content after the root.
  expectSameInPieces(Good + " {}");
}

TEST(KinetoPiecesTest, RandomTraces) {
  std::mt19937 Rng(12345);
  const char *Separators[] = {",", ", ", ",\n  ", " ,\t"};
  for (unsigned Round = 0; Round < 30; ++Round) {
    std::string List;
    unsigned N = 1 + Rng() % 40;
    for (unsigned I = 0; I < N; ++I) {
      if (I)
        List += Separators[Rng() % 4];
      List += Events[Rng() % (sizeof(Events) / sizeof(Events[0]))];
    }
    expectSameInPieces(
        trace(R"J("schemaVersion": 1, )J", List,
              Rng() % 2 ? R"J(, "baseTimeNanoseconds": 7)J" : ""));
  }
}

} // namespace
