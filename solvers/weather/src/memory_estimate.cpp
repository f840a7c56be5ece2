#include "tessera/weather/memory_estimate.hpp"

#include <mpi.h>

#include <cmath>

#include "tessera/core/format.hpp"
#include "tessera/core/host_memory.hpp"

namespace tessera::weather {

int model_fields(const std::string& integrator, int state_fields, int work_fields) {
  const int levels = integrator == "rk4" ? 3 : 2;  // rk3: stage, k; leapfrog: previous, k
  return state_fields * (1 + levels) + work_fields;
}

void require_memory(Runtime& runtime, const GridMemory& m, const std::string& what) {
  const Target& target = runtime.target();
  const double cells = m.nx * m.ny, tiles = target.total_tiles();
  const double side = std::sqrt(cells / tiles) + 2 * m.halo;
  const double per_tile = side * side * m.fields * 8;
  const double local_tiles = static_cast<double>(runtime.local_tiles().size());
  const double mine = local_tiles * per_tile +
                      (m.rank_arrays + (runtime.rank() == 0 ? m.root_arrays : 0)) * cells * 8;
  MPI_Comm node;
  MPI_Comm_split_type(runtime.comm(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  double here = 0;
  MPI_Allreduce(&mine, &here, 1, MPI_DOUBLE, MPI_SUM, node);
  MPI_Comm_free(&node);
  // Every rank takes the same decision: the largest need of any host.
  double need = here;
  MPI_Allreduce(&here, &need, 1, MPI_DOUBLE, MPI_MAX, runtime.comm());
  const double have = static_cast<double>(host_memory_bytes());
  const std::string layout = std::to_string(m.fields) + " fields of 8-byte values per cell on " +
                             "the tiles, halos included, and " +
                             std::to_string(m.root_arrays + m.rank_arrays) +
                             " arrays of the whole grid on the host";
  if (have > 0 && need > have)
    throw ConfigError(what + " needs about " + format_bytes(need) + " of memory on one host (" +
                      layout + "), which has " + format_bytes(have) +
                      ": use a smaller grid (--nx, --ny, --resolution) or more hosts");
  if (target.memory_limited() && per_tile > static_cast<double>(target.tile_memory_bytes))
    throw ConfigError(what + " needs about " + format_bytes(per_tile) + " on each of the " +
                      std::to_string(target.total_tiles()) + " tiles of " + target.name + " (" +
                      std::to_string(m.fields) + " fields of 8-byte values per cell, halos " +
                      "included), which have " +
                      format_bytes(static_cast<double>(target.tile_memory_bytes)) +
                      ": use a smaller grid or more tiles (--tiles-per-ipu, --ipus)");
}

}  // namespace tessera::weather
