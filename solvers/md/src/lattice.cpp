#include "tessera/md/lattice.hpp"

#include <cmath>

#include "tessera/core/error.hpp"

namespace tessera::md {

Lattice Lattice::make(const std::string& style, double value, const Units& units) {
  Lattice l;
  l.style = style;
  if (style == "sc") {
    l.basis = {{0.0, 0.0, 0.0}};
  } else if (style == "bcc") {
    l.basis = {{0.0, 0.0, 0.0}, {0.5, 0.5, 0.5}};
  } else if (style == "fcc") {
    l.basis = {{0.0, 0.0, 0.0}, {0.5, 0.5, 0.0}, {0.5, 0.0, 0.5}, {0.0, 0.5, 0.5}};
  } else if (style == "diamond") {
    l.basis = {{0.0, 0.0, 0.0},    {0.0, 0.5, 0.5},    {0.5, 0.0, 0.5},    {0.5, 0.5, 0.0},
               {0.25, 0.25, 0.25}, {0.25, 0.75, 0.75}, {0.75, 0.25, 0.75}, {0.75, 0.75, 0.25}};
  } else {
    throw ConfigError("lattice " + style + ": unsupported style; use sc, bcc, fcc or diamond");
  }
  if (!(value > 0)) throw ConfigError("lattice " + style + ": the scale must be positive");
  // LAMMPS: scale = pow(nbasis / volume / scale, 1 / dimension) in lj units, the
  // unit cell volume being 1 for these cubic lattices.
  l.spacing = units.style == "lj"
                  ? std::pow(static_cast<double>(l.basis.size()) / 1.0 / value, 1.0 / 3.0)
                  : value;
  return l;
}

double Lattice::count_bound(const std::array<double, 3>& lo,
                            const std::array<double, 3>& hi) const {
  double cells = 1;
  for (int d = 0; d < 3; ++d) cells *= std::ceil(hi[d] / spacing) - std::floor(lo[d] / spacing) + 3;
  return cells * static_cast<double>(basis.size());
}

std::vector<std::array<double, 3>> Lattice::points(
    const std::array<double, 3>& lo, const std::array<double, 3>& hi,
    const std::function<bool(const std::array<double, 3>&)>& accept) const {
  std::array<int, 3> first{}, last{};
  for (int d = 0; d < 3; ++d) {
    // Cell indices are ints: a region beyond 2^30 lattice spacings from the origin would
    // overflow them (undefined behaviour in the conversion).
    if (!(std::fabs(lo[d] / spacing) < 1073741824.0) ||
        !(std::fabs(hi[d] / spacing) < 1073741824.0))
      throw ConfigError(
          "create_atoms: the region reaches more than 2^30 lattice spacings from the origin; "
          "move the box nearer the origin or use a coarser lattice");
    first[d] = static_cast<int>(std::floor(lo[d] / spacing)) - 1;
    last[d] = static_cast<int>(std::ceil(hi[d] / spacing)) + 1;
  }
  std::vector<std::array<double, 3>> out;
  for (int k = first[2]; k <= last[2]; ++k)
    for (int j = first[1]; j <= last[1]; ++j)
      for (int i = first[0]; i <= last[0]; ++i)
        for (const auto& b : basis) {
          // (i + b) * scale, as lattice2box computes it for the identity orientation.
          const std::array<double, 3> p{(i + b[0]) * spacing, (j + b[1]) * spacing,
                                        (k + b[2]) * spacing};
          if (accept(p)) out.push_back(p);
        }
  return out;
}

}  // namespace tessera::md
