//===- MpiProcessGroup.h - dd-sim's processes on MPI ------------*- C++ -*-===//
//
// The ProcessGroup (Sim/ProcessGroup.h) of a dd-sim that mpirun started:
// MPI_COMM_WORLD, point-to-point messages of 64-bit integers, one tag a
// channel. Built only where CMake found MPI (DAYDREAM_HAVE_MPI), and only
// into dd-sim, so that nothing else links libmpi.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TOOLS_DDSIM_MPIPROCESSGROUP_H
#define DAYDREAM_TOOLS_DDSIM_MPIPROCESSGROUP_H

#include "daydream/Sim/ProcessGroup.h"

#include <mpi.h>

#include <deque>
#include <vector>

namespace dd {

class MpiProcessGroup final : public ProcessGroup {
public:
  /// Whether mpirun (Open MPI's, or any launcher that sets PMI_SIZE)
  /// started this process. MPI_Init without one costs a third of a second,
  /// so a dd-sim run alone does not call it.
  static bool launched();
  /// MPI_Init; MPI_Finalize on destruction.
  MpiProcessGroup(int &Argc, char **&Argv);
  ~MpiProcessGroup() override;
  MpiProcessGroup(const MpiProcessGroup &) = delete;
  MpiProcessGroup &operator=(const MpiProcessGroup &) = delete;

  unsigned index() const override { return Index; }
  unsigned size() const override { return Size; }
  void send(unsigned To, Channel C, llvm::ArrayRef<int64_t> Values) override;
  unsigned receive(unsigned From, Channel C,
                   std::vector<int64_t> &Values) override;
  void finishSends() override;
  std::vector<uint8_t> agree(bool Ok) override;

private:
  /// Frees the buffers of sends that completed.
  void reap();

  unsigned Index = 0, Size = 1;
  /// A send in flight owns its buffer until MPI_Test says it is done.
  struct Pending {
    std::vector<int64_t> Buffer;
    MPI_Request Request;
  };
  std::deque<Pending> InFlight;
};

} // namespace dd

#endif // DAYDREAM_TOOLS_DDSIM_MPIPROCESSGROUP_H
