//===- TaskStore.h - The graph's task array, owned or borrowed --*- C++ -*-===//
//
// The flat array Graph keeps its tasks in: a growable array like
// std::vector<Task>, which can also start as a view of task records that
// someone else keeps alive. A graph read from a file views the file's own
// task array through a private, copy-on-write mapping (IRReader.cpp), so
// reading it touches only pages the page cache already holds instead of
// copying every record into fresh memory; on the virtual machines this runs
// on, handing out fresh pages costs more than all the rest of loading. A
// task a pass changes copies its page then, privately. The first growth
// copies the records into owned memory, with room to grow further.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IR_TASKSTORE_H
#define DAYDREAM_IR_TASKSTORE_H

#include "daydream/IR/Types.h"

#include "llvm/ADT/ArrayRef.h"

#include <algorithm>
#include <cassert>
#include <vector>

namespace dd {

class TaskStore {
public:
  TaskStore() = default;
  TaskStore(TaskStore &&O) noexcept { *this = std::move(O); }
  TaskStore &operator=(TaskStore &&O) noexcept {
    Owned = std::move(O.Owned);
    Data = O.Data;
    Size = O.Size;
    Borrowed = O.Borrowed;
    O.Owned.clear();
    O.Data = nullptr;
    O.Size = 0;
    O.Borrowed = false;
    return *this;
  }
  TaskStore(const TaskStore &) = delete;
  TaskStore &operator=(const TaskStore &) = delete;

  /// Views \p Ts in place, writable; they must outlive the store or its
  /// first growth, whichever comes first. The store must be empty.
  void borrow(llvm::MutableArrayRef<Task> Ts) {
    assert(Size == 0 && "borrowing into a non-empty store");
    std::vector<Task>().swap(Owned); // no capacity kept in reserve
    Data = Ts.data();
    Size = Ts.size();
    Borrowed = true;
  }
  /// Whether the tasks are still someone else's memory.
  bool borrowed() const { return Borrowed; }

  size_t size() const { return Size; }
  bool empty() const { return Size == 0; }
  Task &operator[](size_t I) {
    assert(I < Size);
    return Data[I];
  }
  const Task &operator[](size_t I) const {
    assert(I < Size);
    return Data[I];
  }
  operator llvm::ArrayRef<Task>() const { return {Data, Size}; }

  /// Room for \p N tasks. A borrowed store ignores it: reserving would copy
  /// every task now, whether or not any is ever added.
  void reserve(size_t N) {
    if (Borrowed)
      return;
    Owned.reserve(N);
    Data = Owned.data();
  }
  void push_back(const Task &T) {
    if (Borrowed)
      own(Size + 1);
    Owned.push_back(T);
    sync();
  }
  void append(llvm::ArrayRef<Task> Ts) {
    if (Borrowed)
      own(Size + Ts.size());
    Owned.insert(Owned.end(), Ts.begin(), Ts.end());
    sync();
  }

  /// Drops the tasks from \p N on (a borrowed store just views fewer).
  void truncate(size_t N) {
    assert(N <= Size);
    if (Borrowed) {
      Size = N;
      if (N == 0)
        *this = TaskStore();
      return;
    }
    Owned.resize(N);
    sync();
  }

private:
  /// Copies the borrowed tasks into owned memory with room for \p MinSize
  /// and an eighth more, as the reader reserves for passes that add tasks.
  void own(size_t MinSize) {
    std::vector<Task> Copy;
    Copy.reserve(std::max(MinSize, Size + Size / 8));
    Copy.assign(Data, Data + Size);
    Owned = std::move(Copy);
    Borrowed = false;
    sync();
  }
  void sync() {
    Data = Owned.data();
    Size = Owned.size();
  }

  std::vector<Task> Owned;
  Task *Data = nullptr;
  size_t Size = 0;
  bool Borrowed = false;
};

} // namespace dd

#endif // DAYDREAM_IR_TASKSTORE_H
