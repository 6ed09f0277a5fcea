//===- ProcessGroup.h - What a replay over processes runs on ---*- C++ -*-===//
//
// What a simulation split over processes (DistributedReplay.h) needs from
// whatever carries its messages, and no more: each process's number and the
// count of them, point-to-point messages of 64-bit values on two channels,
// and one collective that tells every process which of them failed. dd-sim
// implements it on MPI (tools/dd-sim/MpiProcessGroup.h), the engine parallel
// discrete-event simulators (SST, ROSS, CODES) and ML clusters already run;
// the unit tests implement it on threads. The simulator library itself links
// no MPI, so the Python module and the other tools do not either.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SIM_PROCESSGROUP_H
#define DAYDREAM_SIM_PROCESSGROUP_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace dd {

class ProcessGroup {
public:
  /// Kept apart so that one kind of message never stands in for the other:
  /// a process that finished its share sends its results while another
  /// still waits for times.
  enum class Channel : int { Times = 1, Results = 2 };
  static constexpr unsigned AnyProcess = ~0u;

  virtual ~ProcessGroup();
  /// This process's number, 0 to size() - 1; process 0 reports.
  virtual unsigned index() const = 0;
  virtual unsigned size() const = 0;
  /// Sends \p Values to process \p To and returns at once, without waiting
  /// for it to be received (the values are copied). Messages from one
  /// process to another on one channel arrive in the order sent.
  virtual void send(unsigned To, Channel C, llvm::ArrayRef<int64_t> Values) = 0;
  /// Waits for the next message on \p C from \p From (or AnyProcess),
  /// appends its values to \p Values and returns its sender.
  virtual unsigned receive(unsigned From, Channel C,
                           std::vector<int64_t> &Values) = 0;
  /// Waits until every message this process sent was received.
  virtual void finishSends() = 0;
  /// Called by every process at the same point: whether each process
  /// passed \p Ok, indexed by process. A process that fails between two
  /// such points calls it with false, so that none waits for it forever.
  virtual std::vector<uint8_t> agree(bool Ok) = 0;
};

} // namespace dd

#endif // DAYDREAM_SIM_PROCESSGROUP_H
