//===- LoweringTestUtil.h - Hand-made trace models, lowered ---*- C++ -*-===//
//
// What the lowering tests share: a import::TraceModel built event by event,
// with times chosen so that expected edges, gaps and tasks can be worked out by
// hand, and its lowering checked by the verifier.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_UNITTESTS_IMPORT_LOWERINGTESTUTIL_H
#define DAYDREAM_UNITTESTS_IMPORT_LOWERINGTESTUTIL_H

#include "daydream/IR/Verifier.h"
#include "daydream/Import/Lowering.h"

#include "gtest/gtest.h"

namespace dd::testing {

/// Builds a TraceModel event by event.
struct ModelBuilder {
  import::TraceModel M;
  uint32_t Main = M.thread(100, 100);
  uint32_t S7 = M.stream(0, 7);

  void call(llvm::StringRef Name, int64_t Start, int64_t End, uint32_t Corr = 0,
            uint32_t Thread = 0) {
    M.Calls.push_back(import::ApiCall{Start, End, Thread,
                                      M.Strings.intern(Name), Corr,
                                      import::classifyApi(Name)});
  }
  void work(llvm::StringRef Name, int64_t Start, int64_t End, uint32_t Corr,
            uint32_t Stream = 0, TaskKind K = TaskKind::Kernel) {
    import::GpuActivity A;
    A.StartNs = Start;
    A.EndNs = End;
    A.Stream = Stream;
    A.Name = M.Strings.intern(Name);
    A.Correlation = Corr;
    A.Kind = K;
    M.Activities.push_back(A);
  }
  void range(llvm::StringRef Name, int64_t Start, int64_t End,
             import::RangeKind K = import::RangeKind::Op, uint32_t Thread = 0) {
    M.Ranges.push_back(
        import::CpuRange{Start, End, Thread, M.Strings.intern(Name), K});
  }
};

struct Lowered {
  Graph G;
  import::LoweringStats Stats;
};

inline Lowered lower(ModelBuilder &B, import::LoweringOptions Opts = {}) {
  Lowered L;
  auto G = import::lowerTrace(std::move(B.M), Opts, L.Stats);
  if (!G) {
    ADD_FAILURE() << llvm::toString(G.takeError());
    return L;
  }
  L.G = std::move(*G);
  llvm::Error E = verifyGraph(L.G);
  EXPECT_FALSE(bool(E)) << llvm::toString(std::move(E));
  return L;
}

} // namespace dd::testing

#endif // DAYDREAM_UNITTESTS_IMPORT_LOWERINGTESTUTIL_H
