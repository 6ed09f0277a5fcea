//===- IndexEvents.cpp - Sort events and link them by correlation ---------===//
//
// The first lowering step: sort calls by thread and time, activities by
// stream and time, merge calls nested in calls (a driver call inside the
// runtime call that made it), and link every GPU activity to the call that
// launched it through the CUPTI correlation id. Flow events are never needed.
//
//===----------------------------------------------------------------------===//

#include "LoweringContext.h"
#include "SortRuns.h"

#include <algorithm>

using namespace dd;
using namespace dd::import;
using namespace dd::import::lowering;

void lowering::indexEvents(Context &C) {
  TraceModel &M = C.M;
  // Stable sorts keep the input order of identical events, so the result
  // does not depend on the sort implementation.
  stableSortByBucket(
      M.Calls, [](const ApiCall &A) { return A.Thread; },
      [](const ApiCall &A, const ApiCall &B) {
        return std::make_pair(A.StartNs, -A.EndNs) <
               std::make_pair(B.StartNs, -B.EndNs);
      });
  stableSortByBucket(
      M.Activities, [](const GpuActivity &A) { return A.Stream; },
      [](const GpuActivity &A, const GpuActivity &B) {
        return std::make_pair(A.StartNs, A.EndNs) <
               std::make_pair(B.StartNs, B.EndNs);
      });
  stableSortByBucket(
      M.Ranges, [](const CpuRange &R) { return R.Thread; },
      [](const CpuRange &A, const CpuRange &B) {
        return std::make_pair(A.StartNs, -A.EndNs) <
               std::make_pair(B.StartNs, -B.EndNs);
      });

  // Nested calls: a call inside the last top-level call of its thread.
  C.CallRoot.resize(M.Calls.size());
  uint32_t Root = NoId;
  for (uint32_t I = 0; I != M.Calls.size(); ++I) {
    const ApiCall &Call = M.Calls[I];
    if (Root != NoId && M.Calls[Root].Thread == Call.Thread &&
        Call.StartNs >= M.Calls[Root].StartNs &&
        Call.EndNs <= M.Calls[Root].EndNs) {
      C.CallRoot[I] = Root;
      ++C.Stats.NestedCalls;
      continue;
    }
    C.CallRoot[I] = Root = I;
  }

  C.CallByCorrelation.reserve(M.Calls.size());
  for (uint32_t I = 0; I != M.Calls.size(); ++I) {
    uint32_t Corr = M.Calls[I].Correlation;
    if (Corr == 0)
      continue;
    auto [It, New] = C.CallByCorrelation.try_emplace(Corr, C.CallRoot[I]);
    if (!New && It->second != C.CallRoot[I])
      ++C.Stats.DuplicateCorrelations;
  }

  C.StreamActivities.assign(M.Streams.size(), {});
  C.ActivityCall.assign(M.Activities.size(), NoId);
  C.IssueNs.assign(M.Activities.size(), 0);
  for (uint32_t A = 0; A != M.Activities.size(); ++A) {
    const GpuActivity &Act = M.Activities[A];
    std::vector<uint32_t> &OnStream = C.StreamActivities[Act.Stream];
    auto It = Act.Correlation ? C.CallByCorrelation.find(Act.Correlation)
                              : C.CallByCorrelation.end();
    if (It != C.CallByCorrelation.end())
      C.ActivityCall[A] = It->second;
    else
      ++C.Stats.UnmatchedActivities;
    int64_t Issue = C.ActivityCall[A] != NoId
                        ? M.Calls[C.ActivityCall[A]].StartNs
                        : Act.StartNs;
    // Streams run in issue order; clamp so searches by issue time can use
    // binary search even if clocks disagree slightly.
    if (!OnStream.empty())
      Issue = std::max(Issue, C.IssueNs[OnStream.back()]);
    C.IssueNs[A] = Issue;
    OnStream.push_back(A);
  }
}
