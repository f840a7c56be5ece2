// LAMMPS lattices (`lattice STYLE VALUE`) and the points they put in a block.
//
// 3-d styles sc, bcc, fcc, diamond (cubic cells); 2-d styles sq, sq2 (square cells) and hex (a
// rectangular cell of sides 1 and sqrt(3) with two atoms). In lj units VALUE is a reduced
// density and the scale is (basis atoms / cell volume / density)^(1/dimension), the cell
// volume being its area in 2-d; in other units VALUE is the scale. Points are generated in
// LAMMPS's order and with LAMMPS's arithmetic (Lattice::lattice2box for the default
// orientation: z outer, then y, x, basis atom), so that coordinates agree bit for bit with
// create_atoms and `velocity ... loop geom` gives the same velocities.
#pragma once

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "tessera/md/units.hpp"

namespace tessera::md {

struct Lattice {
  std::string style = "none";
  double scale = 1.0;
  // The cell's edge vectors a1, a2, a3 (a diagonal cell: their lengths), in units of scale.
  std::array<double, 3> cell{1.0, 1.0, 1.0};
  std::vector<std::array<double, 3>> basis;

  // Throws ConfigError for an unknown style or one of the other dimension.
  static Lattice make(const std::string& style, double value, const Units& units, int dimension);

  // LAMMPS's xlattice, ylattice, zlattice: the spacing along each axis (region's lattice units).
  double spacing(int d) const { return cell[static_cast<std::size_t>(d)] * scale; }

  // The lattice points of the cells that meet [lo, hi] (box coordinates) for which accept(p)
  // is true, in creation order; with `basis_index`, the basis atom (0-based) of each point too.
  std::vector<std::array<double, 3>> points(
      const std::array<double, 3>& lo, const std::array<double, 3>& hi,
      const std::function<bool(const std::array<double, 3>&)>& accept,
      std::vector<int>* basis_index = nullptr) const;
  // At least as many points as points(lo, hi, ...) returns, without making them (for a memory
  // check).
  double count_bound(const std::array<double, 3>& lo, const std::array<double, 3>& hi) const;
};

}  // namespace tessera::md
