#include "tessera/weather/grid.hpp"

#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>

#include "tessera/core/error.hpp"

namespace tessera::weather {

std::string describe_cell(const Grid& g, int i, int j, bool geographic) {
  char text[256];
  if (geographic)
    std::snprintf(text, sizeof text,
                  "(i, j) = (%d, %d) of the %d x %d grid, at lon %.6g, lat %.6g degrees", i, j,
                  g.nx, g.ny, g.x_center(i) * 180 / std::numbers::pi,
                  g.y_center(j) * 180 / std::numbers::pi);
  else
    std::snprintf(text, sizeof text,
                  "(i, j) = (%d, %d) of the %d x %d grid, at x = %.6g km, y = %.6g km", i, j, g.nx,
                  g.ny, g.x_center(i) / 1000, g.y_center(j) / 1000);
  return text;
}

Decomposition::Decomposition(const Grid& grid, int tiles, int min_block) : grid_(grid) {
  if (grid.nx < 1 || grid.ny < 1)
    throw ConfigError("the grid must have at least one cell in each direction (got " +
                      std::to_string(grid.nx) + " x " + std::to_string(grid.ny) + ")");
  double best = INFINITY;
  for (int a = 1; a <= tiles; ++a) {
    if (tiles % a != 0) continue;
    const int b = tiles / a;
    // The smallest block of an uneven split is floor(n / parts) cells.
    if (grid.nx / a < min_block || grid.ny / b < min_block) continue;
    const double perimeter = static_cast<double>(grid.nx) / a + static_cast<double>(grid.ny) / b;
    if (perimeter < best) best = perimeter, px_ = a, py_ = b;
  }
  if (best == INFINITY)
    throw ConfigError("a " + std::to_string(grid.nx) + " x " + std::to_string(grid.ny) +
                      " grid cannot be split over " + std::to_string(tiles) +
                      " tiles in blocks of at least " + std::to_string(min_block) +
                      " cells a side; use a larger grid or fewer tiles (--tiles-per-ipu)");
}

int Decomposition::tile_at(int bx, int by) const {
  if (bx < 0 || bx >= px_) {
    if (!grid_.periodic_x) return -1;
    bx = (bx + px_) % px_;
  }
  if (by < 0 || by >= py_) {
    if (!grid_.periodic_y) return -1;
    by = (by + py_) % py_;
  }
  return bx + px_ * by;
}

}  // namespace tessera::weather
