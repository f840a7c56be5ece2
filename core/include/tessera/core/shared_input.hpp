// Inputs that every rank must see alike: read once, on one rank, and sent to all.
//
// A program that lets every rank read its own copy of an input file meets errors that only
// some ranks see (a file missing on one node, a different file under the same name), and
// ranks that take different paths through the same collective code: a hang. As LAMMPS does
// (its input script and data files are read by rank 0 and broadcast), Tessera's programs read
// their inputs on rank 0 only and send the bytes to every rank; then what any rank does with
// them every rank does, and an error in them is every rank's error (collective).
#pragma once

#include <mpi.h>

#include <functional>
#include <string>

#include "tessera/core/error.hpp"

namespace tessera {

// What read_on_root found: the file's bytes, or why it could not be read (on the root).
struct SharedFile {
  bool ok = false;
  std::string bytes;  // the file's contents when ok, else the reason (strerror) it failed
};

// Reads `path` on rank `root` of `comm` and sends the result to every rank (collective). No
// rank opens the file but the root.
SharedFile read_on_root(MPI_Comm comm, const std::string& path, int root = 0);

// Reads standard input to its end on rank `root` and sends it to every rank (collective), as
// LAMMPS reads its script when no -in is given. Not ok (nothing read) when the root's standard
// input is a terminal: a script typed line by line is not what an MPI job waits for.
SharedFile read_stdin_on_root(MPI_Comm comm, int root = 0);

// Runs `produce` on rank `root` only and sends the bytes it returns to every rank
// (collective): a file read piece by piece on one rank, a snapshot of a dump. An Error that
// `produce` throws is thrown on every rank with the same message and class (ConfigError,
// FormatError, else Error), so that all ranks take the same path.
std::string produce_on_root(MPI_Comm comm, const std::function<std::string()>& produce,
                            int root = 0);

// Throws ConfigError (collective) unless every rank of `comm` was started with the same
// command-line arguments: `program` runs one input on all its ranks, and reads it on rank 0
// only, so a rank given other arguments (mpirun's MPMD form `-np 1 prog A : -np 1 prog B`)
// would silently run rank 0's input instead of its own (collective).
void require_same_arguments(MPI_Comm comm, int argc, char** argv, const std::string& program);

}  // namespace tessera
