// The geometry of fix shake's and fix rattle's clusters (fix_shake.cpp, fix_rattle.cpp):
// their atoms and constraints by flag, and where a tile keeps an atom's values. Internal.
#pragma once

#include <array>
#include <cstddef>
#include <span>

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

}  // namespace tessera::md::shake
