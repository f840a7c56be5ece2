// Domain: the orthorhombic box, periodic or not in each dimension, and its spatial
// decomposition into one sub-box per tile, with the ghost segments each tile sends.
//
// Tiles form a px x py x pz grid (the factorisation of the tile count with the
// least sub-box surface, as LAMMPS chooses its processor grid). Tile (a, b, c)
// owns [lo + L*a/px, lo + L*(a+1)/px) x ... ; an atom belongs to the tile whose
// sub-box holds its wrapped position.
//
// Ghosts: a tile sends copies of its atoms to every tile whose sub-box,
// extended by the ghost cutoff, they fall in, through periodic images when the
// box wraps. Each (destination tile, image shift) pair is one segment; the
// segments of a tile are fixed by the geometry, and every tile has the same
// number of them (a segment that would cross a non-periodic face is inactive: it
// sends nothing).
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace tessera::md {

struct Box {
  std::array<double, 3> lo{0, 0, 0}, hi{0, 0, 0};
  double length(int d) const {
    return hi[static_cast<std::size_t>(d)] - lo[static_cast<std::size_t>(d)];
  }
  double volume() const { return length(0) * length(1) * length(2); }
};

// The faces' boundary conditions, as LAMMPS's boundary command: for each dimension a lower and
// an upper face, each p (periodic, both faces or neither), f (fixed: an atom that crosses it is
// lost), s (shrink-wrapped: at every reneighboring the face moves to the outermost atom, 1e-4
// of the first box length beyond it) or m (shrink-wrapped, never inside where it was set).
// A separation along one periodic dimension of length `length`, moved to the nearest image when
// it is longer than half the box (LAMMPS's Domain::minimum_image: one shift, no more).
inline double minimum_image(double delta, double length) {
  if (std::fabs(delta) > 0.5 * length) delta += delta < 0.0 ? length : -length;
  return delta;
}

struct Boundary {
  std::array<std::array<char, 2>, 3> face{{{'p', 'p'}, {'p', 'p'}, {'p', 'p'}}};
  bool periodic(std::size_t d) const { return face[d][0] == 'p'; }
  bool shrinks(std::size_t d, std::size_t side) const {
    return face[d][side] == 's' || face[d][side] == 'm';
  }
  bool any_shrinks() const {
    for (std::size_t d = 0; d < 3; ++d)
      if (shrinks(d, 0) || shrinks(d, 1)) return true;
    return false;
  }
  // "pp", "fs": as LAMMPS's dumps print them.
  std::string letters(std::size_t d) const { return {face[d][0], face[d][1]}; }
};

class Domain {
 public:
  struct Segment {
    int destination;
    std::array<double, 3> shift;  // added to a sent atom's position
    bool active = true;           // false: it would cross a non-periodic face
    std::array<int, 3> images{};  // box lengths the shift is made of (shift = -images * L)
  };

  Domain() = default;
  // In 2-d (dimension 2) the grid has one layer in z and no ghosts cross z.
  Domain(const Box& box, int tiles, double ghost_cutoff, int dimension = 3,
         std::array<bool, 3> periodic = {true, true, true});
  // The same tile grid over another box (a shrink-wrapped one), its segments anew.
  Domain resized(const Box& box) const;
  // The same segments over a box of other lengths (a barostat's, between rebuilds): their
  // destinations stay, their shifts follow the lengths.
  void rescale(const Box& box);

  const Box& box() const { return box_; }
  const std::array<int, 3>& grid() const { return grid_; }
  double ghost_cutoff() const { return ghost_cutoff_; }
  int tiles() const { return grid_[0] * grid_[1] * grid_[2]; }

  std::array<double, 3> sub_lo(int tile) const;
  std::array<double, 3> sub_hi(int tile) const;
  // The tile owning a position inside the box.
  int owner(const std::array<double, 3>& x) const;
  // Wraps x into the box in its periodic dimensions, counting crossings in image.
  // False (x and image unchanged in that dimension) when x is not finite or its image count
  // would leave int's range.
  [[nodiscard]] bool wrap(double* x, int* image) const;

  const std::vector<Segment>& segments(int tile) const {
    return segments_[static_cast<std::size_t>(tile)];
  }
  int segments_per_tile() const {
    return segments_.empty() ? 0 : static_cast<int>(segments_[0].size());
  }

 private:
  std::array<int, 3> coords(int tile) const;
  void build_segments();
  double sub_lo_1d(int d, int k) const {
    const auto i = static_cast<std::size_t>(d);
    return box_.lo[i] + box_.length(d) * k / grid_[i];
  }
  Box box_;
  std::array<int, 3> grid_{1, 1, 1};
  double ghost_cutoff_ = 0;
  int dimension_ = 3;
  std::array<bool, 3> periodic_{true, true, true};
  std::vector<std::vector<Segment>> segments_;
};

}  // namespace tessera::md
