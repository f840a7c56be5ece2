// pair_style soft RC: E = A [1 + cos(pi r / rc)], r < rc, as LAMMPS's PairSoft (pair_coeff I J
// A [RC]), the cosine that pushes overlapping atoms apart; unlike pairs mixed as LAMMPS mixes
// them (A geometric, rc by the mix rule). Its energy is 0 at rc: shift means nothing and is
// refused. The rest is PairPairwise's (pair_pairwise.hpp).
#pragma once

#include <cmath>

#include "tessera/md/pair_pairwise.hpp"

namespace tessera::md {

struct Soft : pairwise::Plain {
  static constexpr const char* name = "soft";
  static constexpr std::size_t coefficients = 1;
  static constexpr const char* usage = "A";
  static constexpr bool shifts = false, mixes = true, has_tail = false, takes_nocoeff = false;
  using Coeffs = std::array<double, coefficients>;
  struct Derived {
    double prefactor, cut;
  };
  static void check(const Coeffs&) {}
  static Derived derive(const Coeffs& c, double cut, bool) { return {c[0], cut}; }
  static Coeffs mix(const Coeffs& a, const Coeffs& b, const std::string&) {
    return {std::sqrt(a[0] * b[0])};
  }
  template <bool Energy>
  static double force(const Derived& d, double rsq, double& energy) {
    const double r = std::sqrt(rsq);
    const double arg = M_PI * r / d.cut;
    if constexpr (Energy) energy = d.prefactor * (1.0 + std::cos(arg));
    return r > 0.0 ? d.prefactor * std::sin(arg) * M_PI / d.cut / r : 0.0;
  }
};
using PairSoft = PairPairwise<Soft>;

}  // namespace tessera::md
