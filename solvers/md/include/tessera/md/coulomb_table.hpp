// LAMMPS's tabulated real-space Ewald Coulomb term (pair_modify table N, tabinner R), as its
// long-range pair styles use it by default (N = 12, R = sqrt(2)): the force, plain Coulomb and
// energy prefactors qqrd2e/r (erfc(g r) + 2/sqrt(pi) g r exp(-g^2 r^2)), qqrd2e/r and
// qqrd2e/r erfc(g r) in 2^N bins indexed by the bits of r^2 as a float, linearly interpolated
// in r^2; pairs closer than the inner cutoff take the direct formula. Built exactly as LAMMPS's
// Pair::init_bitmap and Pair::init_tables (src/pair.cpp) build it, without rRESPA or MSM, so
// that a pair's force is LAMMPS's bit for bit.
//
// Units: r^2 in the simulation's distance unit squared; the prefactors include qqrd2e (energy x
// distance / charge^2), so force = q_i q_j * force_prefactor(bin), forcecoul in LAMMPS's sense
// (fpair = forcecoul / r^2). Immutable once built; safe to share between threads.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera::md {

class CoulombTable {
 public:
  // bits: N of pair_modify table (where LAMMPS's bitmap stops, ConfigError: more bits than a
  // float has, fewer than 3 for the mantissa); inner: tabinner; cut_coul: the Coulomb cutoff.
  CoulombTable(int bits, double inner, double cut_coul, double g_ewald, double qqrd2e);

  // Whether a pair at r^2 reads the table (LAMMPS: rsq > tabinnersq); closer pairs are computed.
  bool covers(double rsq) const { return rsq > inner_sq_; }

  // A pair's bin and its fraction of the way to the next entry.
  struct Bin {
    std::uint32_t index;
    double fraction;
  };
  Bin bin(double rsq) const {
    const float f = static_cast<float>(rsq);
    const std::uint32_t index = (std::bit_cast<std::uint32_t>(f) & mask_) >> shift_;
    return {index, (f - r_[index]) * dr_[index]};
  }
  double force(const Bin& b) const { return f_[b.index] + b.fraction * df_[b.index]; }
  double coulomb(const Bin& b) const { return c_[b.index] + b.fraction * dc_[b.index]; }
  double energy(const Bin& b) const { return e_[b.index] + b.fraction * de_[b.index]; }

  // Bytes of the eight arrays (what a tile holding them is charged).
  std::size_t bytes() const { return 8 * r_.size() * sizeof(double); }

 private:
  double inner_sq_ = 0;
  std::uint32_t mask_ = 0;
  int shift_ = 0;
  std::vector<double> r_, f_, c_, e_, dr_, df_, dc_, de_;
};

}  // namespace tessera::md
