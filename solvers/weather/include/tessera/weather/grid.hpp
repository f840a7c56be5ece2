// Grid: a structured 2-D grid with Arakawa C staggering, and its decomposition
// into one rectangular block of cells per tile.
//
// Cell (i, j), 0 <= i < nx, 0 <= j < ny, has its centre at
// (x0 + (i + 1/2) dx, y0 + (j + 1/2) dy). On the C grid (Arakawa & Lamb 1977)
// scalars live at centres, the x-velocity at the west face of each cell
// (x0 + i dx), the y-velocity at the south face (y0 + j dy) and the vorticity
// at the south-west corner. Every staggered field stores nx x ny values per
// the same (i, j) index; the east or north face of the last cell is the first
// halo value of the block that owns it.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>

#include "tessera/core/error.hpp"

namespace tessera::weather {

enum class Stagger { center, face_x, face_y, corner };

// How far a stencil reads from the point it writes, in cells, per direction
// (GridTools' extent). Halo widths are derived from extents, never written by hand.
struct Extent {
  int west = 0, east = 0, south = 0, north = 0;

  // The extent of a stencil that reads the output of `inner` through `*this`.
  constexpr Extent then(const Extent& inner) const {
    return {west + inner.west, east + inner.east, south + inner.south, north + inner.north};
  }
  // The smallest extent covering both.
  constexpr Extent merge(const Extent& o) const {
    return {west > o.west ? west : o.west, east > o.east ? east : o.east,
            south > o.south ? south : o.south, north > o.north ? north : o.north};
  }
  // The halo width a field read through this extent needs.
  constexpr int halo() const {
    int h = west;
    for (int e : {east, south, north}) h = e > h ? e : h;
    return h;
  }
};

struct Grid {
  int nx = 0, ny = 0;     // cells
  double dx = 1, dy = 1;  // m
  double x0 = 0, y0 = 0;  // south-west corner, m
  bool periodic_x = false, periodic_y = false;

  double x_center(int i) const { return x0 + (i + 0.5) * dx; }
  double y_center(int j) const { return y0 + (j + 0.5) * dy; }
  double x_face(int i) const { return x0 + i * dx; }
  double y_face(int j) const { return y0 + j * dy; }
  double length_x() const { return nx * dx; }
  double length_y() const { return ny * dy; }
};

// Cell (i, j) for messages: "(i, j) = (3, 7) of the 64 x 32 grid, at x = 350 km, y = 750 km"
// or, on a geographic grid (dx, dy, x0, y0 in radians), "at lon 33.75, lat -12.5 degrees".
std::string describe_cell(const Grid& g, int i, int j, bool geographic = false);

// px x py blocks, block (bx, by) on tile bx + px * by; the factorisation of the
// tile count with the shortest total block perimeter (the least halo traffic),
// blocks at least `min_block` cells wide and high. Throws ConfigError when the
// grid cannot be split so.
class Decomposition {
 public:
  Decomposition(const Grid& grid, int tiles, int min_block);

  const Grid& grid() const { return grid_; }
  int px() const { return px_; }
  int py() const { return py_; }
  int tiles() const { return px_ * py_; }
  int block_x(int tile) const { return tile % px_; }
  int block_y(int tile) const { return tile / px_; }
  // First global cell index of the block, and its size.
  int x_begin(int tile) const { return start(grid_.nx, px_, block_x(tile)); }
  int y_begin(int tile) const { return start(grid_.ny, py_, block_y(tile)); }
  int width(int tile) const { return start(grid_.nx, px_, block_x(tile) + 1) - x_begin(tile); }
  int height(int tile) const { return start(grid_.ny, py_, block_y(tile) + 1) - y_begin(tile); }
  // The tile holding block (bx, by), wrapping periodic axes; -1 outside the domain.
  int tile_at(int bx, int by) const;
  bool on_west(int tile) const { return block_x(tile) == 0; }
  bool on_east(int tile) const { return block_x(tile) == px_ - 1; }
  bool on_south(int tile) const { return block_y(tile) == 0; }
  bool on_north(int tile) const { return block_y(tile) == py_ - 1; }

 private:
  static int start(int m, int n, int b) {
    return static_cast<int>(static_cast<long long>(m) * b / n);
  }
  Grid grid_;
  int px_ = 1, py_ = 1;
};

}  // namespace tessera::weather
