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

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
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
/// noted and unnoted tasks share one scale. Only tasks on ByPriority lanes
/// are ever ranked, a few percent of a graph after p3, so everything here is
/// sized by them: arrays of one slot per task would cost more in page faults
/// at ten million tasks than the event-driven replay that follows.
class NotePriorityPolicy final : public SchedulingPolicy {
public:
  llvm::StringRef name() const override { return "note-priority"; }

  void prepare(const Graph &G) override {
    const size_t N = G.numTaskSlots();
    std::vector<TaskId> Scheduled;
    llvm::BitVector IsScheduled(N);
    for (LaneId L = 0; L != G.numLanes(); ++L)
      if (G.lane(L).Order == LaneOrder::ByPriority)
        for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T)) {
          Scheduled.push_back(T);
          IsScheduled.set(T);
        }

    // The last valid note of a task wins.
    llvm::DenseMap<TaskId, int64_t> Noted;
    for (const TaskNote &Note : G.notes()) {
      int64_t Value;
      if (Note.Task < N && IsScheduled.test(Note.Task) &&
          G.str(Note.Key) == PriorityNoteKey &&
          !llvm::StringRef(G.str(Note.Value)).trim().getAsInteger(10, Value))
        Noted[Note.Task] = Value;
    }

    // (unnoted, note, recorded start, id): a total order.
    std::vector<std::tuple<bool, int64_t, int64_t, TaskId>> Keys;
    Keys.reserve(Scheduled.size());
    for (TaskId T : Scheduled) {
      auto It = Noted.find(T);
      bool HasNote = It != Noted.end();
      Keys.emplace_back(!HasNote, HasNote ? It->second : 0, G.task(T).StartNs,
                        T);
    }
    llvm::sort(Keys);
    Rank.clear();
    Rank.reserve(Keys.size());
    for (size_t I = 0; I != Keys.size(); ++I)
      Rank[std::get<3>(Keys[I])] = int64_t(I);
  }

  int64_t priority(const Graph &, TaskId T) const override {
    auto It = Rank.find(T);
    return It == Rank.end() ? 0 : It->second;
  }

private:
  llvm::DenseMap<TaskId, int64_t> Rank;
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
