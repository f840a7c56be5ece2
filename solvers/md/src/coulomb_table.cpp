// LAMMPS's Pair::init_bitmap and Pair::init_tables (src/pair.cpp), without rRESPA or MSM,
// followed operation by operation: the float r^2 of each bin's lower edge, its float square
// root, libm's erfc and exp, and the deltas to the next bin (periodic at the end, and to the
// cutoff in the bin that holds it).
#include "tessera/md/coulomb_table.hpp"

#include <cfloat>
#include <climits>
#include <cmath>
#include <string>

#include "tessera/core/error.hpp"

namespace tessera::md {
namespace {

constexpr double kIsPi4 = 1.12837916709551257389;  // 2 / sqrt(pi), LAMMPS's MY_ISPI4

float as_float(std::uint32_t bits) { return std::bit_cast<float>(bits); }
std::uint32_t as_bits(float f) { return std::bit_cast<std::uint32_t>(f); }

}  // namespace

CoulombTable::CoulombTable(int bits, double inner, double cut_coul, double g_ewald, double qqrd2e) {
  if (bits > static_cast<int>(sizeof(float)) * CHAR_BIT)
    throw ConfigError("pair_modify table " + std::to_string(bits) +
                      ": Too many total bits for bitmapped lookup table (LAMMPS's limit is 32)");
  // init_bitmap: the exponent and mantissa bits that span inner^2 .. cut_coul^2.
  int nlowermin = 1;
  while (!((std::pow(2.0, nlowermin) <= inner * inner) &&
           (std::pow(2.0, nlowermin + 1.0) > inner * inner))) {
    if (std::pow(2.0, nlowermin) <= inner * inner)
      ++nlowermin;
    else
      --nlowermin;
  }
  int nexpbits = 0;
  const double required_range = cut_coul * cut_coul / std::pow(2.0, nlowermin);
  double available_range = 2.0;
  while (available_range < required_range) {
    ++nexpbits;
    available_range = std::pow(2.0, std::pow(2.0, nexpbits));
  }
  const int nmantbits = bits - nexpbits;
  if (nexpbits > static_cast<int>(sizeof(float)) * CHAR_BIT - FLT_MANT_DIG)
    throw ConfigError("pair_modify table: Too many exponent bits for lookup table (tabinner " +
                      std::to_string(inner) + ", Coulomb cutoff " + std::to_string(cut_coul) + ")");
  if (nmantbits + 1 > FLT_MANT_DIG)
    throw ConfigError("pair_modify table " + std::to_string(bits) +
                      ": Too many mantissa bits for lookup table");
  if (nmantbits < 3)
    throw ConfigError("pair_modify table " + std::to_string(bits) +
                      ": Too few bits for lookup table");
  shift_ = FLT_MANT_DIG - (nmantbits + 1);
  mask_ = static_cast<std::uint32_t>((std::uint64_t{1} << (bits + shift_)) - 1);
  const std::uint32_t maskhi = as_bits(static_cast<float>(cut_coul * cut_coul)) & ~mask_;
  const std::uint32_t masklo = as_bits(static_cast<float>(inner * inner)) & ~mask_;

  // init_tables: each bin's lower edge, in r^2 as a float (above inner^2: the bins below it
  // wrap around to the top of the range).
  const double inner_sq = inner * inner;
  const std::size_t n = std::size_t{1} << bits;
  for (auto* v : {&r_, &f_, &c_, &e_, &dr_, &df_, &dc_, &de_}) v->assign(n, 0.0);
  float minrsq = as_float(maskhi);
  for (std::size_t i = 0; i < n; ++i) {
    float rsq = as_float(static_cast<std::uint32_t>(i << shift_) | masklo);
    if (rsq < inner_sq) rsq = as_float(static_cast<std::uint32_t>(i << shift_) | maskhi);
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
  const std::uint32_t min_index = (as_bits(minrsq) & mask_) >> shift_;
  const std::uint32_t max_index =
      min_index == 0 ? static_cast<std::uint32_t>(n - 1) : min_index - 1;
  float edge = as_float(static_cast<std::uint32_t>(max_index << shift_) | maskhi);
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
