// pair_style morse RC: E = D0 [exp(-2 alpha (r - r0)) - 2 exp(-alpha (r - r0))], r < rc, as
// LAMMPS's PairMorse (pair_coeff I J D0 ALPHA R0 [RC]); pair_modify shift yes subtracts E(rc).
// Unlike pairs are not mixed. The rest is PairPairwise's (pair_pairwise.hpp).
#pragma once

#include <cmath>

#include "tessera/core/error.hpp"
#include "tessera/md/pair_pairwise.hpp"

namespace tessera::md {

struct Morse : pairwise::Plain {
  static constexpr const char* name = "morse";
  static constexpr std::size_t coefficients = 3;
  static constexpr const char* usage = "D0 ALPHA R0";
  static constexpr bool shifts = true, mixes = false, has_tail = false, takes_nocoeff = false;
  using Coeffs = std::array<double, coefficients>;
  struct Derived {
    double d0, alpha, r0, morse1, offset;
  };
  static void check(const Coeffs&) {}
  static Derived derive(const Coeffs& c, double cut, bool shift) {
    Derived d{c[0], c[1], c[2], 2.0 * c[0] * c[1], 0.0};
    if (shift) {
      const double alpha_dr = -c[1] * (cut - c[2]);
      d.offset = c[0] * (std::exp(2.0 * alpha_dr) - 2.0 * std::exp(alpha_dr));
    }
    return d;
  }
  template <bool Energy>
  static double force(const Derived& d, double rsq, double& energy) {
    const double r = std::sqrt(rsq);
    const double dexp = std::exp(-d.alpha * (r - d.r0));
    if constexpr (Energy) energy = d.d0 * (dexp * dexp - 2.0 * dexp) - d.offset;
    return d.morse1 * (dexp * dexp - dexp) / r;
  }
};
using PairMorse = PairPairwise<Morse>;

}  // namespace tessera::md
