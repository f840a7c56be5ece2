// LAMMPS lattices (`lattice STYLE SCALE [keyword values ...]`) and the points they put in a
// block.
//
// Styles sc, bcc, fcc, hcp, diamond (3-d), sq, sq2, hex (2-d), custom (a1 a2 a3 and basis
// given), and none (only a spacing); keywords origin, orient x|y|z, spacing, and for custom
// a1, a2, a3 and basis, with LAMMPS's checks (orient vectors orthogonal and right-handed,
// primitive vectors not collinear, basis and origin inside the unit cell, 2-d lattices in the
// xy plane). In lj units SCALE is a reduced density and the scale is (basis atoms / cell volume
// / density)^(1/dimension), the cell volume being a1 . (a2 x a3); in other units SCALE is the
// scale. The spacings (region's lattice units) are the extents of the unit cell as it lands in
// the box, unless `spacing` gives them (in units of the scale).
//
// Points are generated in LAMMPS's order and with LAMMPS's arithmetic (Lattice::lattice2box:
// x_box = R scale P (i + b) + origin offset, with P the primitive vectors as columns and R the
// normalized orient vectors as rows; cells z outer, then y, x, basis atom), so that coordinates
// agree bit for bit with create_atoms and `velocity ... loop geom` gives the same velocities.
#pragma once

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "tessera/md/units.hpp"

namespace tessera::md {

struct Lattice {
  using Vector = std::array<double, 3>;
  using Matrix = std::array<Vector, 3>;  // rows

  std::string style = "none";
  double scale = 1.0;
  Matrix primitive{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};  // a1 a2 a3 as columns
  Matrix priminv{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  Matrix rotaterow{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};  // orient x, y, z normalized, as rows
  Vector origin{0, 0, 0};                               // in fractions of the spacings
  Vector spacings{1, 1, 1};                             // xlattice, ylattice, zlattice
  std::vector<Vector> basis;

  // `lattice ARGS...` (ARGS[0] the style). Throws ConfigError with LAMMPS's reasons.
  static Lattice make(const std::vector<std::string>& args, const Units& units, int dimension);

  // LAMMPS's xlattice, ylattice, zlattice: the spacing along each axis (region's lattice units).
  double spacing(int d) const { return spacings[static_cast<std::size_t>(d)]; }

  // A point of lattice coordinates (cells) in the box, and back (LAMMPS's lattice2box and
  // box2lattice).
  Vector to_box(const Vector& lattice) const;
  Vector to_lattice(const Vector& box) const;

  // The lattice points of the cells that meet [lo, hi] (box coordinates) for which accept(p)
  // is true, in creation order; with `basis_index`, the basis atom (0-based) of each point too.
  std::vector<Vector> points(const Vector& lo, const Vector& hi,
                             const std::function<bool(const Vector&)>& accept,
                             std::vector<int>* basis_index = nullptr) const;
  // At least as many points as points(lo, hi, ...) returns, without making them (for a memory
  // check).
  double count_bound(const Vector& lo, const Vector& hi) const;
};

}  // namespace tessera::md
