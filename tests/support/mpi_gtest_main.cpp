// GoogleTest main for tests that may run under mpirun: every rank runs every
// test, only rank 0 prints, and the run passes only if every rank passed.
#include <gtest/gtest.h>
#include <mpi.h>

#include "tessera/core/environment.hpp"

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (env.rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (failed && env.rank() == 0) std::fprintf(stderr, "a test failed on at least one rank\n");
  return failed;
}
