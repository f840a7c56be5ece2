// GoogleTest main for tests that may run under mpirun: every rank runs every
// test, only rank 0 prints, and the run passes only if every rank passed.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

#include "tessera/core/environment.hpp"

namespace {
// Prints the failures of a rank other than 0, which has no result printer.
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_,
                   r.file_name() ? r.file_name() : "?", r.line_number(), r.summary());
  }

 private:
  int rank_;
};
}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (env.rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(env.rank()));
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (failed && env.rank() == 0) std::fprintf(stderr, "a test failed on at least one rank\n");
  return failed;
}
