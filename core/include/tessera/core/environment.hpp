// Environment: MPI for the lifetime of a program, and the error convention of
// Tessera's programs.
//
//   int main(int argc, char** argv) {
//     return tessera::run_main(argc, argv, [](int argc, char** argv) { ...; return 0; });
//   }
//
// run_main initialises MPI (thread level "funneled": only the main thread calls
// MPI), runs the body, and turns an exception into `ERROR: <message>` on
// standard error and exit code 1. An error every rank agreed on is printed by
// rank 0 alone; any other error, seen by one rank only, is printed by that rank,
// which then aborts the job so that no rank waits forever (LAMMPS's one()). A rank whose
// error is marked collective waits at most 10 s for the others to stop with it; if they do
// not, the mark was wrong and it aborts the job the same way, so that a rank-local error
// never leaves the others waiting. A body that returns normally but whose standard output
// could not be written (`> /dev/full`, a full disk) ends with `ERROR: writing standard output
// failed: <reason>` and exit code 1.
//
// Everything that talks to MPI (a Runtime, default_threads) first calls require_mpi, so
// that a program which never initialised MPI gets a tessera::Error saying what to do
// instead of MPI aborting the process.
#pragma once

#include <mpi.h>

#include <functional>
#include <string>

#include "tessera/core/error.hpp"

namespace tessera {

class Environment {
 public:
  Environment(int& argc, char**& argv);
  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  bool owns_mpi_ = false;
  int rank_ = 0, size_ = 1;
};

int run_main(int argc, char** argv, const std::function<int(int, char**)>& body);

// Flushes standard output; the reason of a failure is kept for run_main to report at the end
// (stdio forgets it once the buffer is dropped). Programs call it after their progress lines.
void flush_standard_output();

// Throws Error when MPI is not running (never initialised, or already finalised): `who`
// (say "a tessera::Runtime") needs MPI, and the message says how to provide it.
void require_mpi(const std::string& who);

// Host threads for one rank by default: the hardware threads of the node
// divided by the ranks of `comm` that share the node, at least 1 (collective over `comm`).
int default_threads(MPI_Comm comm);

}  // namespace tessera
