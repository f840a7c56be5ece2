#include "tessera/md/lattice.hpp"

#include <cmath>

#include "tessera/core/error.hpp"

namespace tessera::md {

Lattice Lattice::make(const std::string& style, double value, const Units& units, int dimension) {
  Lattice l;
  l.style = style;
  int style_dimension = 3;
  if (style == "sc") {
    l.basis = {{0.0, 0.0, 0.0}};
  } else if (style == "bcc") {
    l.basis = {{0.0, 0.0, 0.0}, {0.5, 0.5, 0.5}};
  } else if (style == "fcc") {
    l.basis = {{0.0, 0.0, 0.0}, {0.5, 0.5, 0.0}, {0.5, 0.0, 0.5}, {0.0, 0.5, 0.5}};
  } else if (style == "diamond") {
    l.basis = {{0.0, 0.0, 0.0},    {0.0, 0.5, 0.5},    {0.5, 0.0, 0.5},    {0.5, 0.5, 0.0},
               {0.25, 0.25, 0.25}, {0.25, 0.75, 0.75}, {0.75, 0.25, 0.75}, {0.75, 0.75, 0.25}};
  } else if (style == "sq") {
    style_dimension = 2;
    l.basis = {{0.0, 0.0, 0.0}};
  } else if (style == "sq2") {
    style_dimension = 2;
    l.basis = {{0.0, 0.0, 0.0}, {0.5, 0.5, 0.0}};
  } else if (style == "hex") {
    style_dimension = 2;
    l.cell = {1.0, std::sqrt(3.0), 1.0};
    l.basis = {{0.0, 0.0, 0.0}, {0.5, 0.5, 0.0}};
  } else {
    throw ConfigError("lattice " + style +
                      ": unsupported style; use sc, bcc, fcc or diamond (3-d), sq, sq2 or hex "
                      "(2-d)");
  }
  if (style_dimension != dimension)
    throw ConfigError("lattice " + style + " is a " + std::to_string(style_dimension) +
                      "-d lattice and the simulation is " + std::to_string(dimension) + "-d; use " +
                      (dimension == 2 ? "sq, sq2 or hex" : "sc, bcc, fcc or diamond"));
  if (!(value > 0)) throw ConfigError("lattice " + style + ": the scale must be positive");
  // LAMMPS: scale = pow(nbasis / volume / scale, 1 / dimension) in lj units, volume being the
  // cell's (its area in 2-d).
  const double volume = dimension == 2 ? l.cell[0] * l.cell[1] : l.cell[0] * l.cell[1] * l.cell[2];
  l.scale = units.style == "lj"
                ? std::pow(static_cast<double>(l.basis.size()) / volume / value, 1.0 / dimension)
                : value;
  return l;
}

double Lattice::count_bound(const std::array<double, 3>& lo,
                            const std::array<double, 3>& hi) const {
  double cells = 1;
  for (int d = 0; d < 3; ++d)
    cells *= std::ceil(hi[d] / spacing(d)) - std::floor(lo[d] / spacing(d)) + 3;
  return cells * static_cast<double>(basis.size());
}

std::vector<std::array<double, 3>> Lattice::points(
    const std::array<double, 3>& lo, const std::array<double, 3>& hi,
    const std::function<bool(const std::array<double, 3>&)>& accept,
    std::vector<int>* basis_index) const {
  std::array<int, 3> first{}, last{};
  for (int d = 0; d < 3; ++d) {
    // Cell indices are ints: a region beyond 2^30 lattice spacings from the origin would
    // overflow them (undefined behaviour in the conversion).
    if (!(std::fabs(lo[d] / spacing(d)) < 1073741824.0) ||
        !(std::fabs(hi[d] / spacing(d)) < 1073741824.0))
      throw ConfigError(
          "create_atoms: the region reaches more than 2^30 lattice spacings from the origin; "
          "move the box nearer the origin or use a coarser lattice");
    first[d] = static_cast<int>(std::floor(lo[d] / spacing(d))) - 1;
    last[d] = static_cast<int>(std::ceil(hi[d] / spacing(d))) + 1;
  }
  std::vector<std::array<double, 3>> out;
  for (int k = first[2]; k <= last[2]; ++k)
    for (int j = first[1]; j <= last[1]; ++j)
      for (int i = first[0]; i <= last[0]; ++i)
        for (std::size_t m = 0; m < basis.size(); ++m) {
          const auto& b = basis[m];
          // LAMMPS's lattice2box for the identity orientation: (a * (i + b)) * scale, where
          // a is the cell's edge (1 but for hex's sqrt(3)).
          const std::array<double, 3> p{(cell[0] * (i + b[0])) * scale,
                                        (cell[1] * (j + b[1])) * scale,
                                        (cell[2] * (k + b[2])) * scale};
          if (!accept(p)) continue;
          out.push_back(p);
          if (basis_index) basis_index->push_back(static_cast<int>(m));
        }
  return out;
}

}  // namespace tessera::md
