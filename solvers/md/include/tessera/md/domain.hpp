// Domain: the simulation box, orthogonal or triclinic, periodic or not in each dimension, and
// its spatial decomposition into one sub-box per tile, with the ghost segments each tile sends.
//
// A triclinic box (LAMMPS's: `region prism` boxes, tilt factors xy, xz, yz) has the edge vectors
// a = (lx, 0, 0), b = (xy, ly, 0), c = (xz, yz, lz) from its lower corner; a point's fractional
// coordinates (LAMMPS's lamda) are its position in units of those edges.
//
// Tiles form a px x py x pz grid (the factorisation of the tile count with the least sub-box
// surface, as LAMMPS chooses its processor grid). Tile (a, b, c) owns the fractional sub-box
// [a/px, (a+1)/px) x ... (for an orthogonal box, its lengths: [lo + L*a/px, lo + L*(a+1)/px));
// an atom belongs to the tile whose sub-box holds its wrapped position.
//
// Ghosts: a tile sends copies of its atoms to every tile whose sub-box, extended by the ghost
// cutoff, they fall in, through periodic images when the box wraps. Each (destination tile,
// image shift) pair is one segment; the segments of a tile are fixed by the geometry, and every
// tile has the same number of them (a segment that would cross a non-periodic face is inactive:
// it sends nothing).
//
// Rebuild coordinates: while atoms are sorted into tiles and ghosts chosen (Simulation::rebuild),
// positions are Cartesian in an orthogonal box and fractional in a triclinic one, as LAMMPS's
// are (its x2lamda before exchange and borders); sub_lo, sub_hi, owner, reach and
// Segment::rebuild_shift are in those coordinates.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera::md {

struct Box {
  std::array<double, 3> lo{0, 0, 0}, hi{0, 0, 0};
  // Tilt factors (LAMMPS's xy xz yz); zero and unused unless triclinic.
  double xy = 0, xz = 0, yz = 0;
  bool triclinic = false;
  double length(int d) const {
    return hi[static_cast<std::size_t>(d)] - lo[static_cast<std::size_t>(d)];
  }
  double volume() const { return length(0) * length(1) * length(2); }
  // n0 a + n1 b + n2 c: the displacement of n periods along each edge.
  std::array<double, 3> period_shift(const std::array<int, 3>& n) const {
    return {n[0] * length(0) + n[1] * xy + n[2] * xz, n[1] * length(1) + n[2] * yz,
            n[2] * length(2)};
  }
  // Component d of x with its images counted on, term by term as LAMMPS's Domain::unmap.
  double unwrapped(const double* x, const int* image, std::size_t d) const {
    if (d == 0) return x[0] + image[0] * length(0) + image[1] * xy + image[2] * xz;
    if (d == 1) return x[1] + image[1] * length(1) + image[2] * yz;
    return x[2] + image[2] * length(2);
  }
  std::array<double, 3> unwrap(const double* x, const int* image) const {
    return {unwrapped(x, image, 0), unwrapped(x, image, 1), unwrapped(x, image, 2)};
  }
  // The lengths of the edge vectors a, b, c and the angles between them, alpha (b, c), beta
  // (a, c), gamma (a, b) in degrees, as LAMMPS's thermo cella ... cellgamma and dump netcdf.
  std::array<double, 6> cell() const;
  // The corners of the box's bounding box (LAMMPS's boxlo_bound, boxhi_bound).
  // (with its arithmetic, as dumps print them to 17 digits).
  std::array<double, 3> bound_lo() const {
    const double x = std::min(lo[0], lo[0] + xy);
    return {std::min(x, x + xz), std::min(lo[1], lo[1] + yz), lo[2]};
  }
  std::array<double, 3> bound_hi() const {
    const double x = std::max(hi[0], hi[0] + xy);
    return {std::max(x, x + xz), std::max(hi[1], hi[1] + yz), hi[2]};
  }
};

// A box's shape matrix and its inverse in LAMMPS's Voigt order (xx yy zz yz xz xy: Domain::h and
// h_inv), for converting between Cartesian and fractional coordinates with LAMMPS's arithmetic.
struct BoxMatrix {
  explicit BoxMatrix(const Box& box);
  std::array<double, 6> h{}, h_inv{};
  std::array<double, 3> lo{};
  // LAMMPS's x2lamda and lamda2x (in and out may be the same array).
  void to_fraction(const double* x, double* f) const {
    const double d0 = x[0] - lo[0], d1 = x[1] - lo[1], d2 = x[2] - lo[2];
    f[0] = h_inv[0] * d0 + h_inv[5] * d1 + h_inv[4] * d2;
    f[1] = h_inv[1] * d1 + h_inv[3] * d2;
    f[2] = h_inv[2] * d2;
  }
  void to_cartesian(const double* f, double* x) const {
    const double f0 = f[0], f1 = f[1], f2 = f[2];
    x[0] = h[0] * f0 + h[5] * f1 + h[4] * f2 + lo[0];
    x[1] = h[1] * f1 + h[3] * f2 + lo[1];
    x[2] = h[2] * f2 + lo[2];
  }
  // The Cartesian bounding box of the fractional box [flo, fhi] (LAMMPS's Domain::bbox).
  void bounding_box(const std::array<double, 3>& flo, const std::array<double, 3>& fhi,
                    std::array<double, 3>& lo_out, std::array<double, 3>& hi_out) const;
};

// A position in the coordinates whose constant planes are the box's faces (Cartesian in an
// orthogonal box, fractional in a triclinic one), with the faces' values there.
struct FaceCoordinates {
  std::array<double, 3> c, lo, hi;
};
FaceCoordinates face_coordinates(const Box& box, const std::array<double, 3>& x);
// Whether a triclinic box's tilts pass LAMMPS's limit (Domain::set_initial_box): xy or xz beyond
// half of lx with x periodic, yz beyond half of ly with y periodic.
bool skew_too_large(const Box& box, const std::array<bool, 3>& periodic);

// LAMMPS's Domain::minimum_image: each periodic component of a separation moved to its nearest
// image (one shift, no more), z first so that a triclinic box's tilts carry into y and x.
void minimum_image(const Box& box, const std::array<bool, 3>& periodic, double* delta);

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
  std::array<bool, 3> periodicity() const { return {periodic(0), periodic(1), periodic(2)}; }
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
  // From the boundary command's three words (each p, f, s, m, or two of f s m); throws
  // ConfigError naming `what`.
  static Boundary from_words(const std::string* words, const std::string& what);
};

class Domain {
 public:
  struct Segment {
    int destination;
    std::array<double, 3> shift;  // added to a sent atom's Cartesian position
    bool active = true;           // false: it would cross a non-periodic face
    std::array<int, 3> images{};  // box periods the shift is made of (shift = -period_shift(images))
    std::array<double, 3> rebuild_shift{};  // the same in rebuild coordinates
  };

  Domain() = default;
  // In 2-d (dimension 2) the grid has one layer in z and no ghosts cross z.
  Domain(const Box& box, int tiles, double ghost_cutoff, int dimension = 3,
         std::array<bool, 3> periodic = {true, true, true});
  // The same tile grid over another box (a shrink-wrapped or deformed one), its segments anew.
  Domain resized(const Box& box) const;
  // The same segments over a box of other lengths or tilts (a barostat's or fix deform's,
  // between rebuilds): their destinations stay, their shifts follow the box.
  void rescale(const Box& box);

  const Box& box() const { return box_; }
  bool triclinic() const { return box_.triclinic; }
  const std::array<int, 3>& grid() const { return grid_; }
  double ghost_cutoff() const { return ghost_cutoff_; }
  // The ghost cutoff in rebuild coordinates along each dimension (for a triclinic box, the
  // cutoff over the distance between the box's faces across that dimension).
  const std::array<double, 3>& reach() const { return reach_; }
  int tiles() const { return grid_[0] * grid_[1] * grid_[2]; }

  // The box's lower and upper faces in rebuild coordinates (0 and 1 when triclinic).
  double lo_1d(std::size_t d) const { return box_.triclinic ? 0.0 : box_.lo[d]; }
  double hi_1d(std::size_t d) const { return box_.triclinic ? 1.0 : box_.hi[d]; }
  // A tile's sub-box in rebuild coordinates.
  std::array<double, 3> sub_lo(int tile) const;
  std::array<double, 3> sub_hi(int tile) const;
  // The Cartesian bounding box of a tile's sub-box extended by the ghost cutoff: where its
  // atoms and ghosts lie at a rebuild.
  void ghost_bounds(int tile, std::array<double, 3>& lo, std::array<double, 3>& hi) const;
  // The tile owning a position inside the box, in rebuild coordinates.
  int owner(const std::array<double, 3>& x) const;
  // The same for a Cartesian position.
  int owner_of_position(const std::array<double, 3>& x) const;
  // Wraps a Cartesian x into the box in its periodic dimensions, counting crossings in image
  // (for a triclinic box through its fractional coordinates, as LAMMPS's Domain::remap; a
  // point inside is left as it is). False (x and image unchanged in that dimension) when x is
  // not finite or its image count would leave int's range.
  [[nodiscard]] bool wrap(double* x, int* image) const;
  // The same on rebuild coordinates (LAMMPS's Domain::pbc; fractional for a triclinic box).
  [[nodiscard]] bool wrap_rebuild(double* x, int* image) const;

  const std::vector<Segment>& segments(int tile) const {
    return segments_[static_cast<std::size_t>(tile)];
  }
  int segments_per_tile() const {
    return segments_.empty() ? 0 : static_cast<int>(segments_[0].size());
  }

 private:
  std::array<int, 3> coords(int tile) const;
  void build_segments();
  void set_shifts();
  double length_1d(std::size_t d) const { return box_.triclinic ? 1.0 : box_.length(static_cast<int>(d)); }
  double sub_lo_1d(int d, int k) const {
    const auto i = static_cast<std::size_t>(d);
    return lo_1d(i) + length_1d(i) * k / grid_[i];
  }
  Box box_;
  std::array<int, 3> grid_{1, 1, 1};
  double ghost_cutoff_ = 0;
  std::array<double, 3> reach_{};
  int dimension_ = 3;
  std::array<bool, 3> periodic_{true, true, true};
  std::vector<std::vector<Segment>> segments_;
};

}  // namespace tessera::md
