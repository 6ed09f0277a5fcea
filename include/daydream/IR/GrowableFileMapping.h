//===- GrowableFileMapping.h - File records with room after -*- C++ -*-===//
//
// Part of a file mapped privately and writable (copy-on-write) at the start
// of a larger reservation of address space, so that the array of records it
// holds can grow in place. A graph read from a file uses its task and edge
// records where the file holds them (TaskStore.h); a pass that adds tasks
// then had to copy every record into fresh memory first, half a gigabyte at
// ten million tasks and half of activation-checkpointing's run. With room
// reserved after them, the added records go straight after the file's, in
// anonymous pages that cost nothing until written.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IR_GROWABLEFILEMAPPING_H
#define DAYDREAM_IR_GROWABLEFILEMAPPING_H

#include <cstddef>
#include <cstdint>
#include <memory>

namespace dd {

class GrowableFileMapping {
public:
  /// Maps bytes [\p Offset, \p Offset + \p Bytes) of the open file \p FD
  /// privately, followed by room up to \p Capacity bytes in all (address
  /// space only until written). Null where the system refuses, or offers no
  /// such mapping: the caller then uses the records where they are.
  static std::unique_ptr<GrowableFileMapping>
  map(int FD, uint64_t Offset, size_t Bytes, size_t Capacity);

  GrowableFileMapping(const GrowableFileMapping &) = delete;
  GrowableFileMapping &operator=(const GrowableFileMapping &) = delete;
  ~GrowableFileMapping();

  /// The first mapped byte of the file's part.
  char *data() const { return Data; }
  /// Writable bytes from data() on: the file's part and the room after it.
  size_t capacity() const { return Capacity; }

private:
  GrowableFileMapping(void *Base, size_t Length, char *Data, size_t Capacity)
      : Base(Base), Length(Length), Data(Data), Capacity(Capacity) {}

  void *Base;    // the reservation, page-aligned
  size_t Length; // its length
  char *Data;
  size_t Capacity;
};

} // namespace dd

#endif // DAYDREAM_IR_GROWABLEFILEMAPPING_H
