//===- MpiProcessGroup.cpp - dd-sim's processes on MPI --------------------===//
//
// Errors are MPI's default, MPI_ERRORS_ARE_FATAL: a lost process or link
// ends the whole job with MPI's message, and mpirun's exit status says so;
// there is nothing a replay could do with half its times.
//
//===----------------------------------------------------------------------===//

#include "MpiProcessGroup.h"

#include <cstdlib>

using namespace dd;

bool MpiProcessGroup::launched() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") ||
         std::getenv("PMIX_RANK");
}

/// -help and -version exit() from the option parser, on every process; a
/// process that ends without MPI_Finalize makes mpirun call the whole job
/// failed.
static void finalizeAtExit() {
  int Initialized = 0, Finalized = 0;
  MPI_Initialized(&Initialized);
  MPI_Finalized(&Finalized);
  if (Initialized && !Finalized)
    MPI_Finalize();
}

MpiProcessGroup::MpiProcessGroup(int &Argc, char **&Argv) {
  MPI_Init(&Argc, &Argv);
  std::atexit(finalizeAtExit);
  int I = 0, N = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &I);
  MPI_Comm_size(MPI_COMM_WORLD, &N);
  Index = static_cast<unsigned>(I);
  Size = static_cast<unsigned>(N);
}

MpiProcessGroup::~MpiProcessGroup() {
  finishSends();
  MPI_Finalize();
}

void MpiProcessGroup::reap() {
  while (!InFlight.empty()) {
    int Done = 0;
    MPI_Test(&InFlight.front().Request, &Done, MPI_STATUS_IGNORE);
    if (!Done)
      return;
    InFlight.pop_front();
  }
}

void MpiProcessGroup::send(unsigned To, Channel C,
                           llvm::ArrayRef<int64_t> Values) {
  reap();
  InFlight.push_back(
      {std::vector<int64_t>(Values.begin(), Values.end()), MPI_REQUEST_NULL});
  Pending &P = InFlight.back();
  MPI_Isend(P.Buffer.data(), static_cast<int>(P.Buffer.size()), MPI_INT64_T,
            static_cast<int>(To), static_cast<int>(C), MPI_COMM_WORLD,
            &P.Request);
}

unsigned MpiProcessGroup::receive(unsigned From, Channel C,
                                  std::vector<int64_t> &Values) {
  MPI_Status Status;
  MPI_Probe(From == AnyProcess ? MPI_ANY_SOURCE : static_cast<int>(From),
            static_cast<int>(C), MPI_COMM_WORLD, &Status);
  int Count = 0;
  MPI_Get_count(&Status, MPI_INT64_T, &Count);
  const size_t Old = Values.size();
  Values.resize(Old + static_cast<size_t>(Count));
  MPI_Recv(Values.data() + Old, Count, MPI_INT64_T, Status.MPI_SOURCE,
           Status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return static_cast<unsigned>(Status.MPI_SOURCE);
}

void MpiProcessGroup::finishSends() {
  for (Pending &P : InFlight)
    MPI_Wait(&P.Request, MPI_STATUS_IGNORE);
  InFlight.clear();
}

std::vector<uint8_t> MpiProcessGroup::agree(bool Ok) {
  std::vector<uint8_t> All(Size);
  uint8_t Mine = Ok;
  MPI_Allgather(&Mine, 1, MPI_UINT8_T, All.data(), 1, MPI_UINT8_T,
                MPI_COMM_WORLD);
  return All;
}
