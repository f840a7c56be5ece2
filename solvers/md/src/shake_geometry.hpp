// The geometry of fix shake's and fix rattle's clusters (fix_shake.cpp, fix_rattle.cpp):
// their atoms and constraints by flag, and where a tile keeps an atom's values. Internal.
#pragma once

#include <array>
#include <cstddef>
#include <span>

#include "tessera/md/fix.hpp"

namespace tessera::md::shake {

// The atoms of a cluster of this flag, and its constraints as (atom, atom) places.
inline int cluster_atoms(int flag) { return flag == 1 ? 3 : flag; }
struct Constraint {
  int a, b;
};
inline int constraints_of(int flag, std::array<Constraint, 3>& out) {
  if (flag == 1) {
    out = {{{0, 1}, {0, 2}, {1, 2}}};
    return 3;
  }
  for (int k = 1; k < flag; ++k) out[static_cast<std::size_t>(k - 1)] = {0, k};
  return flag - 1;
}

inline double dot(const double* a, const double* b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// Atom i's 3 values among a tile's own atoms' (i below their count) and then its ghosts'.
inline const double* place(std::span<const double> own, std::span<const double> ghosts,
                           std::size_t i) {
  const std::size_t nlocal = own.size() / 3;
  return i < nlocal ? &own[3 * i] : &ghosts[3 * (i - nlocal)];
}

// The inverse masses of a cluster's n atoms, given as the tile's indices (owned, then ghosts).
inline std::array<double, 4> inverse_masses(const FixTile& t, const std::array<int, 4>& atom,
                                            int n) {
  const auto nlocal = static_cast<std::size_t>(t.nlocal);
  std::array<double, 4> inv{};
  for (int p = 0; p < n; ++p) {
    const auto i = static_cast<std::size_t>(atom[static_cast<std::size_t>(p)]);
    const int type = i < nlocal ? t.type[i] : t.ghost_type[i - nlocal];
    inv[static_cast<std::size_t>(p)] = 1.0 / t.mass[static_cast<std::size_t>(type)];
  }
  return inv;
}

// The determinant of the leading n x n block (n = 2 or 3), and the 3 x 3 inverse by cofactors
// times determinv = 1 / determinant, both as LAMMPS's shake3/shake4/shake3angle and
// FixRattle's solve2x2exactly/solve3x3exactly write them.
inline double determinant(const double a[3][3], int n) {
  if (n == 2) return a[0][0] * a[1][1] - a[0][1] * a[1][0];
  return a[0][0] * a[1][1] * a[2][2] + a[0][1] * a[1][2] * a[2][0] + a[0][2] * a[1][0] * a[2][1] -
         a[0][0] * a[1][2] * a[2][1] - a[0][1] * a[1][0] * a[2][2] - a[0][2] * a[1][1] * a[2][0];
}
inline void inverse3(const double a[3][3], double determinv, double ai[3][3]) {
  ai[0][0] = determinv * (a[1][1] * a[2][2] - a[1][2] * a[2][1]);
  ai[0][1] = -determinv * (a[0][1] * a[2][2] - a[0][2] * a[2][1]);
  ai[0][2] = determinv * (a[0][1] * a[1][2] - a[0][2] * a[1][1]);
  ai[1][0] = -determinv * (a[1][0] * a[2][2] - a[1][2] * a[2][0]);
  ai[1][1] = determinv * (a[0][0] * a[2][2] - a[0][2] * a[2][0]);
  ai[1][2] = -determinv * (a[0][0] * a[1][2] - a[0][2] * a[1][0]);
  ai[2][0] = determinv * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  ai[2][1] = -determinv * (a[0][0] * a[2][1] - a[0][1] * a[2][0]);
  ai[2][2] = determinv * (a[0][0] * a[1][1] - a[0][1] * a[1][0]);
}

}  // namespace tessera::md::shake
