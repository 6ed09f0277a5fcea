//===- SchedulingPolicy.cpp - The built-in scheduling policies ------------===//
//
// The policies dd-sim can name on its command line. recorded-order and
// shortest-first read one field of the task, so they need no prepare() step;
// note-priority reads the "priority" notes that passes leave on tasks, once,
// in prepare().
//
//===----------------------------------------------------------------------===//

#include "daydream/Sim/SchedulingPolicy.h"

#include "daydream/IR/Graph.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

#include <tuple>
#include <vector>

using namespace dd;

SchedulingPolicy::~SchedulingPolicy() = default;

namespace {

class RecordedOrderPolicy final : public SchedulingPolicy {
public:
  llvm::StringRef name() const override { return "recorded-order"; }
  int64_t priority(const Graph &G, TaskId T) const override {
    return G.task(T).StartNs;
  }
};

class ShortestFirstPolicy final : public SchedulingPolicy {
public:
  llvm::StringRef name() const override { return "shortest-first"; }
  int64_t priority(const Graph &G, TaskId T) const override {
    return G.task(T).DurationNs;
  }
};

/// Notes are free-form strings, so their values are parsed once here rather
/// than on every priority() call; the result is a dense rank per task so that
/// noted and unnoted tasks share one scale.
class NotePriorityPolicy final : public SchedulingPolicy {
public:
  llvm::StringRef name() const override { return "note-priority"; }

  void prepare(const Graph &G) override {
    std::vector<int64_t> Noted(G.numTaskSlots(), 0);
    std::vector<bool> HasNote(G.numTaskSlots(), false);
    for (const TaskNote &N : G.notes()) {
      int64_t Value;
      if (N.Task < G.numTaskSlots() && G.isLive(N.Task) &&
          G.str(N.Key) == PriorityNoteKey &&
          !llvm::StringRef(G.str(N.Value)).trim().getAsInteger(10, Value)) {
        Noted[N.Task] = Value;
        HasNote[N.Task] = true;
      }
    }
    std::vector<TaskId> Scheduled;
    for (LaneId L = 0; L != G.numLanes(); ++L)
      if (G.lane(L).Order == LaneOrder::ByPriority)
        for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T))
          Scheduled.push_back(T);
    auto Key = [&](TaskId T) {
      return std::make_tuple(!HasNote[T], Noted[T], G.task(T).StartNs, T);
    };
    llvm::sort(Scheduled, [&](TaskId A, TaskId B) { return Key(A) < Key(B); });
    Rank.assign(G.numTaskSlots(), 0);
    for (size_t I = 0; I != Scheduled.size(); ++I)
      Rank[Scheduled[I]] = int64_t(I);
  }

  int64_t priority(const Graph &, TaskId T) const override {
    return T < Rank.size() ? Rank[T] : 0;
  }

private:
  std::vector<int64_t> Rank;
};

} // namespace

std::unique_ptr<SchedulingPolicy> dd::createRecordedOrderPolicy() {
  return std::make_unique<RecordedOrderPolicy>();
}

std::unique_ptr<SchedulingPolicy> dd::createShortestFirstPolicy() {
  return std::make_unique<ShortestFirstPolicy>();
}

std::unique_ptr<SchedulingPolicy> dd::createNotePriorityPolicy() {
  return std::make_unique<NotePriorityPolicy>();
}

llvm::ArrayRef<llvm::StringRef> dd::builtinPolicyNames() {
  static const llvm::StringRef Names[] = {"recorded-order", "shortest-first",
                                          "note-priority"};
  return Names;
}

llvm::Expected<std::unique_ptr<SchedulingPolicy>>
dd::createSchedulingPolicy(llvm::StringRef Name) {
  if (Name == "recorded-order")
    return createRecordedOrderPolicy();
  if (Name == "shortest-first")
    return createShortestFirstPolicy();
  if (Name == "note-priority")
    return createNotePriorityPolicy();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "unknown scheduling policy '" + Name +
          "'; valid policies are: " + llvm::join(builtinPolicyNames(), ", "));
}
