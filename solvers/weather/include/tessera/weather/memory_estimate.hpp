// require_memory: refuses a grid too large for the machine before anything of its size is
// allocated (weather_ipu --ny 2147483647 allocated until it was killed).
//
// The estimate: `fields` fields of 8-byte values per cell on the tiles, each tile's block
// with a halo of `halo` cells on every side (blocks taken as squares of cells / tiles), and
// `root_arrays` whole-grid arrays of doubles on rank 0 (gathered output fields) plus
// `rank_arrays` on every rank (inputs read whole). It is a lower bound of what the run
// allocates, close for large grids.
#pragma once

#include <string>

#include "tessera/core/error.hpp"
#include "tessera/core/runtime.hpp"

namespace tessera::weather {

struct GridMemory {
  double nx = 0, ny = 0;  // cells (doubles: the check runs before a size is an int)
  int fields = 0, halo = 0;
  int root_arrays = 0, rank_arrays = 0;
};

// The fields a planar or spherical model and its integrator keep on the tiles: the state
// (`state_fields`) on 1 + the integrator's extra levels, and `work_fields` more.
int model_fields(const std::string& integrator, int state_fields, int work_fields);

// Throws ConfigError (on every rank) with the estimate and the limit when the ranks on this
// host together need more than its memory (host_memory_bytes, tessera/core/host_memory.hpp), or, on
// a target whose tiles have limited memory, when one tile's fields exceed it. `what` names
// the grid ("a 128 x 2147483647 grid"). Collective over the runtime's ranks.
void require_memory(Runtime& runtime, const GridMemory& m, const std::string& what);

}  // namespace tessera::weather
