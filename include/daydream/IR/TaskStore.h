//===- TaskStore.h - The graph's flat arrays, owned or borrowed -*- C++ -*-===//
//
// The flat arrays Graph keeps its tasks and edges in: a growable array like
// std::vector, which can also start as a view of records that someone else
// keeps alive. A graph read from a file views the file's own task and edge
// arrays through a private, copy-on-write mapping (IRReader.cpp), so
// reading it touches only pages the page cache already holds instead of
// copying every record into fresh memory; on the virtual machines this runs
// on, handing out fresh pages costs more than all the rest of loading. A
// record a pass changes copies its page then, privately. Records added
// go after them in place while the borrowed memory has room (a file's
// records mapped with room after them: GrowableFileMapping.h); the first
// growth past it copies the records into owned memory, with room to grow
// further.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IR_TASKSTORE_H
#define DAYDREAM_IR_TASKSTORE_H

#include "daydream/IR/GrowableFileMapping.h"
#include "daydream/IR/Types.h"

#include "llvm/ADT/ArrayRef.h"

#include <algorithm>
#include <cassert>
#include <vector>

namespace dd {

template <class T> class FlatStore {
public:
  FlatStore() = default;
  FlatStore(FlatStore &&O) noexcept { *this = std::move(O); }
  FlatStore &operator=(FlatStore &&O) noexcept {
    Owned = std::move(O.Owned);
    Data = O.Data;
    Size = O.Size;
    Borrowed = O.Borrowed;
    Room = std::move(O.Room);
    BorrowedCapacity = O.BorrowedCapacity;
    GrowTo = O.GrowTo;
    O.Owned.clear();
    O.Data = nullptr;
    O.Size = 0;
    O.Borrowed = false;
    O.BorrowedCapacity = 0;
    O.GrowTo = 0;
    return *this;
  }
  FlatStore(const FlatStore &) = delete;
  FlatStore &operator=(const FlatStore &) = delete;

  /// Views \p Ts in place, writable; they must outlive the store or its
  /// first growth, whichever comes first. The store must be empty. Room
  /// reserved before is given back, but remembered as the room to take on
  /// the first growth.
  void borrow(llvm::MutableArrayRef<T> Ts) {
    assert(Size == 0 && "borrowing into a non-empty store");
    GrowTo = Owned.capacity();
    std::vector<T>().swap(Owned); // no capacity kept in reserve
    Data = Ts.data();
    Size = Ts.size();
    Borrowed = true;
    BorrowedCapacity = Size;
  }
  /// The same for \p Ts at the start of \p Mapping, which the store keeps
  /// alive: records added go after them in place while the mapping has
  /// room.
  void borrow(llvm::MutableArrayRef<T> Ts,
              std::unique_ptr<GrowableFileMapping> Mapping) {
    assert(reinterpret_cast<char *>(Ts.data()) == Mapping->data() &&
           "records not at the start of their mapping");
    borrow(Ts);
    BorrowedCapacity = std::max(Size, Mapping->capacity() / sizeof(T));
    Room = std::move(Mapping);
  }
  /// Whether the records are still someone else's memory.
  bool borrowed() const { return Borrowed; }

  size_t size() const { return Size; }
  bool empty() const { return Size == 0; }
  T &operator[](size_t I) {
    assert(I < Size);
    return Data[I];
  }
  const T &operator[](size_t I) const {
    assert(I < Size);
    return Data[I];
  }
  T *begin() { return Data; }
  T *end() { return Data + Size; }
  const T *begin() const { return Data; }
  const T *end() const { return Data + Size; }
  operator llvm::ArrayRef<T>() const { return {Data, Size}; }
  operator llvm::MutableArrayRef<T>() { return {Data, Size}; }

  /// Room for \p N records. A borrowed store ignores it: reserving would
  /// copy every record now, whether or not any is ever added.
  void reserve(size_t N) {
    if (Borrowed)
      return;
    Owned.reserve(N);
    Data = Owned.data();
  }
  /// Room for \p N more records, owned (a borrowed store copies its
  /// records out first); returns where they will go, for the caller to
  /// fault in at once.
  T *roomFor(size_t N) {
    if (Borrowed) {
      if (N <= BorrowedCapacity - Size)
        return Data + Size;
      own(Size + N);
    }
    Owned.reserve(Size + N);
    sync();
    return Data + Size;
  }
  void push_back(const T &X) {
    if (Borrowed) {
      if (Size != BorrowedCapacity) {
        Data[Size++] = X;
        return;
      }
      own(Size + 1);
    }
    Owned.push_back(X);
    sync();
  }
  void append(llvm::ArrayRef<T> Xs) {
    if (Borrowed) {
      if (Xs.size() <= BorrowedCapacity - Size) {
        std::copy(Xs.begin(), Xs.end(), Data + Size);
        Size += Xs.size();
        return;
      }
      own(Size + Xs.size());
    }
    Owned.insert(Owned.end(), Xs.begin(), Xs.end());
    sync();
  }

  /// Drops the records from \p N on (a borrowed store just views fewer).
  void truncate(size_t N) {
    assert(N <= Size);
    if (Borrowed) {
      Size = N;
      if (N == 0)
        *this = FlatStore();
      return;
    }
    Owned.resize(N);
    sync();
  }
  void clear() { truncate(0); }

private:
  /// Copies the borrowed records into owned memory with room for \p MinSize,
  /// for what was reserved before borrowing, and at least an eighth more,
  /// as the reader reserves for passes that add records.
  void own(size_t MinSize) {
    std::vector<T> Copy;
    Copy.reserve(std::max({MinSize, GrowTo, Size + Size / 8}));
    Copy.assign(Data, Data + Size);
    Owned = std::move(Copy);
    Borrowed = false;
    BorrowedCapacity = 0;
    Room.reset();
    sync();
  }
  void sync() {
    Data = Owned.data();
    Size = Owned.size();
  }

  std::vector<T> Owned;
  T *Data = nullptr;
  size_t Size = 0;
  bool Borrowed = false;
  /// Records the borrowed memory has room for, from Data on.
  size_t BorrowedCapacity = 0;
  /// The mapping the borrowed records lie in, where the store keeps it.
  std::unique_ptr<GrowableFileMapping> Room;
  size_t GrowTo = 0;
};

/// The graph's task array.
using TaskStore = FlatStore<Task>;
/// The graph's edge array.
using EdgeStore = FlatStore<Edge>;

} // namespace dd

#endif // DAYDREAM_IR_TASKSTORE_H
