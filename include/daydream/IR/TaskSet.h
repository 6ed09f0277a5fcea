//===- TaskSet.h - A set of tasks, numbered in id order --------*- C++ -*-===//
//
// A bit per task slot and a count per 64 of them: membership and each
// member's number among the members in O(1), in 1/32 of the memory of an
// index per slot. Passes and primitives use it to key side arrays by the
// few tasks they act on.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IR_TASKSET_H
#define DAYDREAM_IR_TASKSET_H

#include "daydream/IR/Types.h"

#include "llvm/Support/MathExtras.h"

#include <cstdint>
#include <vector>

namespace dd {

/// A set of tasks (the removed ones, the merged-away ones, the launchers a
/// pass looks for): a bit per task slot, and each member's number in id
/// order (0..R-1) in O(1) by counting the bits before it. On a graph of a
/// million tasks that is 200 KB, which stays in cache while the edges are
/// swept, where an index per slot would be 4 MB to fill and miss in.
class TaskSet {
public:
  explicit TaskSet(size_t NumSlots) : Bits((NumSlots + 63) / 64, 0) {}

  /// False if \p T was in already.
  bool insert(TaskId T) {
    uint64_t Bit = uint64_t(1) << (T % 64);
    if (Bits[T / 64] & Bit)
      return false;
    Bits[T / 64] |= Bit;
    ++Count;
    return true;
  }
  bool contains(TaskId T) const { return (Bits[T / 64] >> (T % 64)) & 1; }
  size_t size() const { return Count; }

  /// The members in id order; numbers them. Call once all are in.
  std::vector<TaskId> freeze() {
    std::vector<TaskId> Members;
    Members.reserve(Count);
    for (size_t W = 0; W != Bits.size(); ++W)
      for (uint64_t B = Bits[W]; B; B &= B - 1)
        Members.push_back(TaskId(W * 64 + llvm::countTrailingZeros(B)));
    numberMembers();
    return Members;
  }
  /// Numbers the members (index()) without listing them.
  void numberMembers() {
    Rank.resize(Bits.size());
    uint32_t Before = 0;
    for (size_t W = 0; W != Bits.size(); ++W) {
      Rank[W] = Before;
      Before += llvm::countPopulation(Bits[W]);
    }
  }
  /// The number of \p T, or NoId if it is not in the set.
  uint32_t index(TaskId T) const {
    uint64_t W = Bits[T / 64], Bit = uint64_t(1) << (T % 64);
    if (!(W & Bit))
      return NoId;
    return Rank[T / 64] + llvm::countPopulation(W & (Bit - 1));
  }

private:
  std::vector<uint64_t> Bits;
  std::vector<uint32_t> Rank;
  size_t Count = 0;
};

} // namespace dd

#endif // DAYDREAM_IR_TASKSET_H
