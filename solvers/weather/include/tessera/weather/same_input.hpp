// require_same_input: every rank reads weather_ipu's input files itself (the topography, an
// --initial CSV or NetCDF file, a --restart checkpoint) and keeps the part its tiles own. A
// file that differs between ranks (another node's copy, a file replaced while the ranks read
// it) gives the tiles of different ranks different data, and a run that fails far from the
// cause ("the layer dried out", NaNs at a rank boundary). This check compares a hash of what
// each rank read and stops every rank with the same ConfigError, naming the input and the
// ranks that read something else than rank 0.
//
// When core reads inputs on one rank and broadcasts them (read_on_root), these inputs can
// move to it; the check then always passes and can go.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera::weather {

// Throws ConfigError (collective: every rank throws it) when `bytes` differ between the ranks
// of `comm`; `what` names the input ("the topography read from 'FILE'"). Collective.
void require_same_input(MPI_Comm comm, const std::string& bytes, const std::string& what);
void require_same_input(MPI_Comm comm, const std::vector<double>& values, const std::string& what);

}  // namespace tessera::weather
