//===- SchedulingPolicy.h - Who runs next on a ByPriority lane -*- C++ -*-===//
//
// A lane whose Lane::Order is LaneOrder::ByPriority does not replay its tasks
// in recorded order: whenever it falls idle with several ready tasks, the
// simulator asks a SchedulingPolicy which one goes first. This is the hook
// that what-if passes such as priority-based parameter propagation (P3) plug
// into; the policy only ranks tasks, the simulator owns the timing model (see
// Simulator.h).
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SIM_SCHEDULINGPOLICY_H
#define DAYDREAM_SIM_SCHEDULINGPOLICY_H

#include "daydream/IR/Types.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>

namespace dd {

class Graph;

class SchedulingPolicy {
public:
  virtual ~SchedulingPolicy();

  /// The name dd-sim's -policy= option knows this policy by.
  virtual llvm::StringRef name() const = 0;

  /// Called once before a simulation that consults the policy (one with a
  /// ByPriority lane), so a policy can precompute per-task priorities in O(n)
  /// instead of walking the graph on every priority() call.
  virtual void prepare(const Graph &G) {}

  /// The rank of live task \p T among the ready tasks of its ByPriority lane:
  /// lower runs first, equal ranks go to the lower TaskId. Called once per
  /// task on a ByPriority lane, after prepare().
  virtual int64_t priority(const Graph &G, TaskId T) const = 0;
};

/// Ranks by recorded start time, so a lane replays in the order the trace saw
/// whenever the tasks are ready in time. The default.
std::unique_ptr<SchedulingPolicy> createRecordedOrderPolicy();

/// Ranks by duration: the shortest ready task runs first.
std::unique_ptr<SchedulingPolicy> createShortestFirstPolicy();

/// Ranks by the integer a pass recorded in the task's "priority" note
/// (Graph::addNote; lower runs first), so that passes such as p3 can say
/// which communication goes first without a schema change. Tasks without a
/// valid note rank after every noted one, in recorded order: on a graph with
/// no such notes this policy schedules exactly like recorded-order.
std::unique_ptr<SchedulingPolicy> createNotePriorityPolicy();

/// The key of the task note that createNotePriorityPolicy() reads.
inline constexpr const char *PriorityNoteKey = "priority";

/// The built-in policy called \p Name ("recorded-order", "shortest-first",
/// "note-priority"); fails with a message listing the valid names otherwise.
llvm::Expected<std::unique_ptr<SchedulingPolicy>>
createSchedulingPolicy(llvm::StringRef Name);

/// The names createSchedulingPolicy() accepts, default first.
llvm::ArrayRef<llvm::StringRef> builtinPolicyNames();

} // namespace dd

#endif // DAYDREAM_SIM_SCHEDULINGPOLICY_H
