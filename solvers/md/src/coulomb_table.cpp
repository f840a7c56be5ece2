// LAMMPS's Pair::init_tables (src/pair.cpp) on Pair::init_bitmap's bins, without rRESPA or MSM,
// followed operation by operation: the float r^2 of each bin's lower edge, its float square
// root, libm's erfc and exp, and the deltas to the next bin (periodic at the end, and to the
// cutoff in the bin that holds it).
#include "tessera/md/coulomb_table.hpp"

#include <cmath>
#include <string>

#include "float_bitmap.hpp"

namespace tessera::md {
namespace {

constexpr double kIsPi4 = 1.12837916709551257389;  // 2 / sqrt(pi), LAMMPS's MY_ISPI4

}  // namespace

CoulombTable::CoulombTable(int bits, double inner, double cut_coul, double g_ewald, double qqrd2e) {
  const FloatBitmap b =
      float_bitmap(inner, cut_coul, bits, "pair_modify table " + std::to_string(bits));
  shift_ = b.nshiftbits;
  mask_ = static_cast<std::uint32_t>(b.nmask);

  // init_tables: each bin's lower edge, in r^2 as a float (above inner^2: the bins below it
  // wrap around to the top of the range).
  const double inner_sq = inner * inner;
  const std::size_t n = std::size_t{1} << bits;
  for (auto* v : {&r_, &f_, &c_, &e_, &dr_, &df_, &dc_, &de_}) v->assign(n, 0.0);
  float minrsq = bits_as_float(b.maskhi);
  for (std::size_t i = 0; i < n; ++i) {
    const float rsq = b.bin_edge(i, inner_sq);
    const double r = std::sqrt(rsq);  // sqrtf, as LAMMPS
    const double grij = g_ewald * r;
    const double expm2 = std::exp(-grij * grij);
    const double derfc = std::erfc(grij);
    r_[i] = rsq;
    c_[i] = qqrd2e / r;
    f_[i] = qqrd2e / r * (derfc + kIsPi4 * grij * expm2);
    e_[i] = qqrd2e / r * derfc;
    minrsq = std::fmin(minrsq, rsq);
  }
  inner_sq_ = minrsq;
  for (std::size_t i = 0; i + 1 < n; ++i) {
    dr_[i] = 1.0 / (r_[i + 1] - r_[i]);
    df_[i] = f_[i + 1] - f_[i];
    dc_[i] = c_[i + 1] - c_[i];
    de_[i] = e_[i + 1] - e_[i];
  }
  dr_[n - 1] = 1.0 / (r_[0] - r_[n - 1]);
  df_[n - 1] = f_[0] - f_[n - 1];
  dc_[n - 1] = c_[0] - c_[n - 1];
  de_[n - 1] = e_[0] - e_[n - 1];
  // The bin holding the largest r^2 ends at the cutoff, not at the next bin.
  const std::size_t min_index = b.bin(minrsq);
  const std::size_t max_index = min_index == 0 ? n - 1 : min_index - 1;
  float edge = bits_as_float(static_cast<std::int32_t>(max_index << shift_) | b.maskhi);
  const double cut_coulsq = cut_coul * cut_coul;
  if (edge < cut_coulsq) {
    edge = static_cast<float>(cut_coulsq);
    const double r = std::sqrt(edge);
    const double grij = g_ewald * r;
    const double expm2 = std::exp(-grij * grij);
    const double derfc = std::erfc(grij);
    dr_[max_index] = 1.0 / (edge - r_[max_index]);
    df_[max_index] = qqrd2e / r * (derfc + kIsPi4 * grij * expm2) - f_[max_index];
    dc_[max_index] = qqrd2e / r - c_[max_index];
    de_[max_index] = qqrd2e / r * derfc - e_[max_index];
  }
}

}  // namespace tessera::md
