//===- dd-sim.cpp - Simulate a trace graph and report ---------------------===//
//
// The whole tool is the library driver ddSimMain (lib/Tools/DdSimMain.cpp).
// Started by mpirun, it joins the other processes first (built with MPI) or
// refuses to run as so many copies of one simulation (built without).
//
//===----------------------------------------------------------------------===//

#include "daydream/Tools/Drivers.h"

#ifdef DAYDREAM_HAVE_MPI
#include "MpiProcessGroup.h"
#endif

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int Argc, char **Argv) {
#ifdef DAYDREAM_HAVE_MPI
  if (dd::MpiProcessGroup::launched()) {
    dd::MpiProcessGroup Processes(Argc, Argv);
    // Process 0 writes the report; what another would print on its
    // standard output (-help, -version) would only repeat it.
    if (Processes.index() != 0 && !std::freopen("/dev/null", "w", stdout))
      return 1;
    return dd::ddSimMain(Argc, Argv, &Processes);
  }
#else
  const char *Size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (Size && std::strcmp(Size, "1") != 0) {
    // Said once for the job, by its first process.
    const char *Rank = std::getenv("OMPI_COMM_WORLD_RANK");
    if (!Rank || std::strcmp(Rank, "0") == 0)
      std::fprintf(stderr, "dd-sim: error: started by mpirun, but this "
                           "dd-sim was built without MPI; install Open MPI "
                           "(utils/install-deps.sh) and build again\n");
    return 1;
  }
#endif
  return dd::ddSimMain(Argc, Argv);
}
