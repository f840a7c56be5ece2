// LAMMPS lattices (`lattice sc|bcc|fcc|diamond VALUE`) and the points they put in a block.
//
// In lj units VALUE is a reduced density and the cubic cell edge is
// (basis atoms / density)^(1/3); in other units VALUE is the cell edge.
// Points are generated in LAMMPS's order and with LAMMPS's arithmetic
// (z outer, then y, x, basis atom), so that coordinates agree bit for bit with
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
  double spacing = 1.0;  // cell edge (xlattice = ylattice = zlattice)
  std::vector<std::array<double, 3>> basis;

  static Lattice make(const std::string& style, double value, const Units& units);

  // The lattice points of the cells that meet [lo, hi] (box coordinates) for which accept(p)
  // is true, in creation order.
  std::vector<std::array<double, 3>> points(
      const std::array<double, 3>& lo, const std::array<double, 3>& hi,
      const std::function<bool(const std::array<double, 3>&)>& accept) const;
  // At least as many points as points(lo, hi, ...) returns, without making them (for a memory
  // check).
  double count_bound(const std::array<double, 3>& lo, const std::array<double, 3>& hi) const;
};

}  // namespace tessera::md
