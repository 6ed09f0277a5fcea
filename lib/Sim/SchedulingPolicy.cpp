//===- SchedulingPolicy.cpp - The built-in scheduling policies ------------===//
//
// The policies dd-sim can name on its command line. They read one field of
// the task, so they need no prepare() step; a policy that derives priorities
// from the graph's structure would compute them there, once.
//
//===----------------------------------------------------------------------===//

#include "daydream/Sim/SchedulingPolicy.h"

#include "daydream/IR/Graph.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

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

} // namespace

std::unique_ptr<SchedulingPolicy> dd::createRecordedOrderPolicy() {
  return std::make_unique<RecordedOrderPolicy>();
}

std::unique_ptr<SchedulingPolicy> dd::createShortestFirstPolicy() {
  return std::make_unique<ShortestFirstPolicy>();
}

llvm::ArrayRef<llvm::StringRef> dd::builtinPolicyNames() {
  static const llvm::StringRef Names[] = {"recorded-order", "shortest-first"};
  return Names;
}

llvm::Expected<std::unique_ptr<SchedulingPolicy>>
dd::createSchedulingPolicy(llvm::StringRef Name) {
  if (Name == "recorded-order")
    return createRecordedOrderPolicy();
  if (Name == "shortest-first")
    return createShortestFirstPolicy();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "unknown scheduling policy '" + Name +
          "'; valid policies are: " + llvm::join(builtinPolicyNames(), ", "));
}
