//===- SelfTime.cpp - CPU ranges' self time as pieces ---------------------===//
//
// A CPU thread's time is the recorded ops' time: each instant belongs to the
// innermost range (op, annotation, module) open on the thread, unless a
// runtime call runs then, which is a task of its own; time no event covers
// is left as the next task's gap. A range's self time (its duration less
// the ranges and calls inside it) comes out in stretches, one before its
// first child, one between each two, one after its last: each stretch is a
// piece, which becomes a cpu-op task named by the range, with its layer and
// phase (Attribution.cpp), so that passes can select the CPU work a trace
// records, such as the DataLoader's. A piece is also cut where its thread's
// ProfilerStep begins or ends, so that a step's marker never falls inside a
// task; ranges running across a step boundary are counted.
//
// One sweep per thread over its ranges (sorted by start, the enclosing one
// first) with a stack of the open ones, subtracting the thread's calls with
// a cursor that only moves forward: linear in the ranges and calls.
//
//===----------------------------------------------------------------------===//

#include "LoweringContext.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace dd;
using namespace dd::import;
using namespace dd::import::lowering;

namespace {

/// The pieces of one thread, emitted in time order.
class ThreadSweep {
public:
  ThreadSweep(Context &C, std::vector<std::pair<int64_t, int64_t>> Calls,
              std::vector<int64_t> Bounds)
      : C(C), Calls(std::move(Calls)), Bounds(std::move(Bounds)) {}

  /// Self time of range \p R from \p A to \p B, less the calls in it.
  void selfTime(uint32_t R, int64_t A, int64_t B) {
    if (B <= A)
      return;
    while (NextCall != Calls.size() && Calls[NextCall].second <= A)
      ++NextCall;
    int64_t X = A;
    // What resumes the range's previous piece (after a child that took no
    // time) continues it; what follows a call does not.
    bool Continues = true;
    for (size_t K = NextCall; K != Calls.size() && Calls[K].first < B; ++K) {
      if (Calls[K].first > X)
        splitAtBounds(R, X, Calls[K].first, Continues);
      Continues = false;
      X = std::max(X, Calls[K].second);
      if (X >= B)
        return;
    }
    splitAtBounds(R, X, B, Continues);
  }

private:
  void splitAtBounds(uint32_t R, int64_t X, int64_t Y, bool Continues) {
    while (NextBound != Bounds.size() && Bounds[NextBound] < X)
      ++NextBound;
    if (NextBound != Bounds.size() && Bounds[NextBound] == X)
      Continues = false; // a step begins here
    for (size_t K = NextBound; K != Bounds.size() && Bounds[K] < Y; ++K) {
      if (Bounds[K] > X) {
        add(R, X, Bounds[K], Continues);
        X = Bounds[K];
      }
      Continues = false;
    }
    add(R, X, Y, Continues);
  }
  void add(uint32_t R, int64_t X, int64_t Y, bool Continues) {
    if (Continues && !C.Pieces.empty() && C.Pieces.back().Range == R &&
        C.Pieces.back().EndNs == X) {
      C.Pieces.back().EndNs = Y;
      return;
    }
    C.Pieces.push_back(SelfPiece{X, Y, R});
  }

  Context &C;
  /// The thread's root calls, [start, end], sorted by start.
  std::vector<std::pair<int64_t, int64_t>> Calls;
  /// Where the thread's steps begin and end, sorted.
  std::vector<int64_t> Bounds;
  size_t NextCall = 0, NextBound = 0;
};

struct OpenRange {
  int64_t EndNs;
  uint32_t Range;
};

} // namespace

void lowering::findSelfTime(Context &C) {
  const TraceModel &M = C.M;
  C.Pieces.reserve(2 * M.Ranges.size());
  std::vector<OpenRange> Stack;
  size_t Call = 0;
  for (size_t B = 0, E = 0; B != M.Ranges.size(); B = E) {
    uint32_t Thread = M.Ranges[B].Thread;
    for (E = B; E != M.Ranges.size() && M.Ranges[E].Thread == Thread; ++E)
      ;
    // The thread's root calls (sorted by thread, then start) and steps.
    while (Call != M.Calls.size() && M.Calls[Call].Thread < Thread)
      ++Call;
    std::vector<std::pair<int64_t, int64_t>> Calls;
    for (; Call != M.Calls.size() && M.Calls[Call].Thread == Thread; ++Call)
      if (C.CallRoot[Call] == Call)
        Calls.push_back({M.Calls[Call].StartNs,
                         std::max(M.Calls[Call].EndNs, M.Calls[Call].StartNs)});
    std::vector<int64_t> Bounds;
    for (size_t R = B; R != E; ++R)
      if (M.Ranges[R].Kind == RangeKind::Step) {
        Bounds.push_back(M.Ranges[R].StartNs);
        Bounds.push_back(M.Ranges[R].EndNs);
      }
    std::sort(Bounds.begin(), Bounds.end());
    Bounds.erase(std::unique(Bounds.begin(), Bounds.end()), Bounds.end());

    ThreadSweep Sweep(C, std::move(Calls), Bounds);
    Stack.clear();
    int64_t Cursor = INT64_MIN;
    auto Close = [&]() {
      OpenRange Top = Stack.back();
      Stack.pop_back();
      Sweep.selfTime(Top.Range, Cursor, Top.EndNs);
      Cursor = Top.EndNs;
    };
    for (size_t R = B; R != E; ++R) {
      const CpuRange &Rg = M.Ranges[R];
      if (Rg.Kind == RangeKind::Step)
        continue;
      while (!Stack.empty() && Stack.back().EndNs <= Rg.StartNs)
        Close();
      if (!Stack.empty())
        Sweep.selfTime(Stack.back().Range, Cursor, Rg.StartNs);
      Cursor = Rg.StartNs;
      Stack.push_back(OpenRange{C.RangeEnd[R], uint32_t(R)});
      auto Bound = std::upper_bound(Bounds.begin(), Bounds.end(), Rg.StartNs);
      if (Bound != Bounds.end() && *Bound < C.RangeEnd[R] &&
          C.Stats.RangesAcrossSteps++ == 0)
        C.Stats.AcrossStepsNote = llvm::formatv(
            "'{0}' from {1} ns to {2} ns runs across a step boundary at {3} ns",
            M.Strings.get(Rg.Name), Rg.StartNs, C.RangeEnd[R], *Bound);
    }
    while (!Stack.empty())
      Close();
  }
}
