//===- HandOverWaits.cpp - Self time that was a wait for another thread ---===//
//
// A thread that hands work to another and waits for it is inside some range
// while it waits: the main thread's "## backward ##" annotation while the
// autograd engine's thread runs the backward, a DataLoader's __next__ while
// its pin-memory thread pins the batch. That stretch of the range's self
// time is not work: kept as a task, it would last as long as recorded
// whatever a pass did to the work it waited for. So a piece of self time
// (at least LoweringOptions::ThreadIdleNs long) is taken to have waited for
// another thread B when B
//   - was idle when the piece began (its last task before ended by then),
//   - worked during the piece, at least ThreadIdleNs in all, in tasks that
//     all began and ended inside it,
//   - and was idle again when the piece ended;
// the piece then starts only where B's last such task ended (the latest of
// several such threads), and is dropped if nothing is left. What it waited
// for is the cross-thread edge addCrossThreadEdges() finds for what comes
// next on the thread: the lane was idle until B's work ended. The rules
// keep out a thread that merely ran beside this one (a pin-memory thread
// pinning the next batch while the main thread runs Python: it is busy
// across the piece's ends) and one that polled briefly (a few cudaEventQuery
// calls), and they need no names, so they hold for any thread that hands
// over this way.
//
//===----------------------------------------------------------------------===//

#include "LoweringContext.h"

#include <algorithm>

using namespace dd;
using namespace dd::import;
using namespace dd::import::lowering;

namespace {

/// A thread's tasks to be (pieces and root calls), as intervals sorted by
/// start, with running sums of their lengths and maxima of their ends.
struct ThreadWork {
  std::vector<int64_t> Start, End, BusyBefore, MaxEndBefore;

  void add(int64_t S, int64_t E) {
    if (BusyBefore.empty()) {
      BusyBefore.push_back(0);
      MaxEndBefore.push_back(INT64_MIN);
    }
    Start.push_back(S);
    End.push_back(E);
    BusyBefore.push_back(BusyBefore.back() + (E - S));
    MaxEndBefore.push_back(std::max(MaxEndBefore.back(), E));
  }
  bool empty() const { return Start.empty(); }

  /// If the thread waited on looks like this one during [S, E) (see
  /// above), where its work there ended; else INT64_MIN.
  int64_t handedOverEnd(int64_t S, int64_t E, int64_t MinBusy) const {
    size_t Lo = std::upper_bound(Start.begin(), Start.end(), S) - Start.begin();
    size_t Hi = std::lower_bound(Start.begin(), Start.end(), E) - Start.begin();
    if (Lo == Hi || MaxEndBefore[Lo] > S) // no work inside, or busy at S
      return INT64_MIN;
    int64_t LastEnd = std::max(MaxEndBefore[Hi], MaxEndBefore[Lo]);
    if (LastEnd > E || BusyBefore[Hi] - BusyBefore[Lo] < MinBusy)
      return INT64_MIN;
    return LastEnd;
  }
};

} // namespace

void lowering::cutHandOverWaits(Context &C) {
  const TraceModel &M = C.M;
  int64_t MinNs = C.Opts.ThreadIdleNs;
  if (!C.Opts.InferDependencies || C.Pieces.empty())
    return;
  // Each thread's work: its pieces and root calls merged by start (both
  // are sorted by thread, then start).
  std::vector<ThreadWork> Work(M.Threads.size());
  {
    size_t P = 0, K = 0;
    auto CallOf = [&](size_t I) { return C.CallRoot[I] == I; };
    while (P != C.Pieces.size() || K != M.Calls.size()) {
      if (K != M.Calls.size() && !CallOf(K)) {
        ++K;
        continue;
      }
      bool TakeCall = P == C.Pieces.size() ||
                      (K != M.Calls.size() &&
                       std::make_pair(M.Calls[K].Thread, M.Calls[K].StartNs) <
                           std::make_pair(M.Ranges[C.Pieces[P].Range].Thread,
                                          C.Pieces[P].StartNs));
      if (TakeCall) {
        const ApiCall &Call = M.Calls[K++];
        Work[Call.Thread].add(Call.StartNs, std::max(Call.EndNs, Call.StartNs));
      } else {
        const SelfPiece &Pc = C.Pieces[P++];
        Work[M.Ranges[Pc.Range].Thread].add(Pc.StartNs, Pc.EndNs);
      }
    }
  }
  std::vector<uint32_t> Busy;
  for (uint32_t T = 0; T != Work.size(); ++T)
    if (!Work[T].empty())
      Busy.push_back(T);
  if (Busy.size() < 2)
    return;

  size_t Kept = 0;
  for (size_t I = 0; I != C.Pieces.size(); ++I) {
    SelfPiece Pc = C.Pieces[I];
    if (Pc.EndNs - Pc.StartNs >= MinNs) {
      uint32_t Thread = M.Ranges[Pc.Range].Thread;
      int64_t Waited = INT64_MIN;
      for (uint32_t T : Busy)
        if (T != Thread)
          Waited = std::max(Waited,
                            Work[T].handedOverEnd(Pc.StartNs, Pc.EndNs, MinNs));
      if (Waited != INT64_MIN) {
        ++C.Stats.HandOverWaits;
        Pc.StartNs = Waited;
        if (Pc.StartNs >= Pc.EndNs)
          continue; // nothing left
      }
    }
    C.Pieces[Kept++] = Pc;
  }
  C.Pieces.resize(Kept);
}
