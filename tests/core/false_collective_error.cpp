// A program whose last rank throws an error marked collective that the other ranks never
// meet: they wait in a barrier. run_main must not let them wait forever: the throwing rank
// reports the error as its own and aborts the job (issue 21). Exits 0 only if that failed.
#include <mpi.h>

#include <cstdio>

#include "tessera/core/environment.hpp"
#include "tessera/core/error.hpp"

int main(int argc, char** argv) {
  return tessera::run_main(argc, argv, [](int, char**) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == size - 1) {
      tessera::ConfigError e("only rank " + std::to_string(rank) + " sees this error");
      e.set_collective();  // wrongly
      throw e;
    }
    MPI_Barrier(MPI_COMM_WORLD);  // the last rank never arrives
    std::printf("the barrier returned\n");
    return 0;
  });
}
