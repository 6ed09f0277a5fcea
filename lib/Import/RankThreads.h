//===- RankThreads.h - The ranks of a job, a thread each --------*- C++ -*-===//
//
// A job's ranks are read and lowered independently of one another, so they
// run a thread each; what joins them (the job's graph, in rank order) stays
// on one thread, and nothing a thread does depends on when the others ran,
// so the job's graph is the same at any number of threads.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_IMPORT_RANKTHREADS_H
#define DAYDREAM_LIB_IMPORT_RANKTHREADS_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace dd::import {

/// The threads for \p N ranks: \p Requested (0: one per core), at most N.
inline unsigned rankThreads(unsigned Requested, size_t N) {
  unsigned T =
      Requested ? Requested : std::max(1u, std::thread::hardware_concurrency());
  return unsigned(std::min<size_t>(T, std::max<size_t>(N, 1)));
}

/// Calls \p Work(I) for every I in [\p Begin, \p End), on up to \p Threads
/// threads (on this one alone when 1), and returns when all have returned.
inline void forEachRank(size_t Begin, size_t End, unsigned Threads,
                        llvm::function_ref<void(size_t)> Work) {
  if (Threads <= 1 || End - Begin <= 1) {
    for (size_t I = Begin; I < End; ++I)
      Work(I);
    return;
  }
  std::atomic<size_t> Next{Begin};
  auto Run = [&] {
    for (size_t I; (I = Next++) < End;)
      Work(I);
  };
  std::vector<std::thread> Others;
  for (unsigned W = 1; W < Threads && W < End - Begin; ++W)
    Others.emplace_back(Run);
  Run();
  for (std::thread &T : Others)
    T.join();
}

} // namespace dd::import

#endif // DAYDREAM_LIB_IMPORT_RANKTHREADS_H
