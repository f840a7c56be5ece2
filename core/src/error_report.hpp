// Moving an error from the rank that raised it to every rank (internal).
#pragma once

#include <mpi.h>

#include <exception>
#include <string>

namespace tessera {

// An error reduced to what crosses a rank boundary: its class and its message.
struct ErrorReport {
  enum Kind : int { generic = 0, config, format, exchange, comm, tile_memory };
  int kind = generic;
  std::string message;
};

// What `error` (raised on `tile`) is; errors that are not tessera::Error are
// wrapped with the tile's id.
ErrorReport describe_error(const std::exception_ptr& error, int tile);
// Sends `report` from `root` to every rank of `comm` (collective).
void broadcast_error(MPI_Comm comm, int root, ErrorReport& report);
// Throws the tessera::Error subclass `report` names, marked collective.
[[noreturn]] void throw_collective(const ErrorReport& report, int tile, std::size_t tile_budget);

}  // namespace tessera
