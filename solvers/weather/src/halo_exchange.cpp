#include "tessera/weather/halo_exchange.hpp"

#include <algorithm>

#include "tessera/core/error.hpp"

namespace tessera::weather {
namespace {

// The cells of a block that an 8-neighbour copy covers along one axis: in the
// receiver, [begin, begin + n) local indices; in the sender, [source, source + n).
struct Span1 {
  int begin, source, n;
};
Span1 span_along(int direction, int my_size, int neighbour_size, int halo) {
  if (direction < 0) return {-halo, neighbour_size - halo, halo};
  if (direction > 0) return {my_size, 0, halo};
  return {0, 0, my_size};
}

}  // namespace

ExchangePlan compile_halo_exchange(Runtime& runtime, const Decomposition& d,
                                   std::span<const Field> fields, const std::string& name) {
  ExchangePlanBuilder builder(name);
  const Grid& g = d.grid();
  for (const Field& f : fields) {
    for (const auto& [bc, periodic, axis] : {std::tuple{f.boundary_x.get(), g.periodic_x, "x"},
                                             std::tuple{f.boundary_y.get(), g.periodic_y, "y"}})
      if (bc && bc->periodic() != periodic)
        throw ConfigError("field '" + f.name + "' has a " + bc->name() + " boundary in " + axis +
                          " but the grid is " + (periodic ? "" : "not ") + "periodic in " + axis +
                          "; give every field of a periodic axis a Periodic boundary");
    const int h = f.halo;
    if (h == 0) continue;
    for (int tile = 0; tile < d.tiles(); ++tile) {
      const BlockLayout me = layout_of(d, tile, h);
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          if (dx == 0 && dy == 0) continue;
          const int n = d.tile_at(d.block_x(tile) + dx, d.block_y(tile) + dy);
          if (n < 0) continue;
          const BlockLayout other = layout_of(d, n, h);
          if (other.width < h || other.height < h)
            throw ConfigError("field '" + f.name + "' needs a halo of " + std::to_string(h) +
                              " cells but tile " + std::to_string(n) + " holds a block of only " +
                              std::to_string(other.width) + " x " + std::to_string(other.height) +
                              " cells; use a larger grid or fewer tiles");
          const Span1 sx = span_along(dx, me.width, other.width, h);
          const Span1 sy = span_along(dy, me.height, other.height, h);
          if (sx.n >= sy.n) {  // rows are the longer runs: one contiguous copy per row
            for (int r = 0; r < sy.n; ++r)
              builder.copy(f.variable, n, other.index(sx.source, sy.source + r), f.variable, tile,
                           me.index(sx.begin, sy.begin + r), static_cast<std::size_t>(sx.n));
          } else {  // columns are longer: one strided copy per column
            for (int c = 0; c < sx.n; ++c)
              builder.copy_strided(f.variable, n, other.index(sx.source + c, sy.source),
                                   other.stride(), f.variable, tile,
                                   me.index(sx.begin + c, sy.begin), me.stride(),
                                   static_cast<std::size_t>(sy.n));
          }
        }
    }
  }
  return runtime.compile(builder);
}

}  // namespace tessera::weather
