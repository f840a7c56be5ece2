// pair_style buck RC: the Buckingham potential E = A exp(-r/rho) - C/r^6, r < rc, as LAMMPS's
// PairBuck (pair_coeff I J A RHO C [RC]); pair_modify shift yes subtracts E(rc), tail yes adds
// LAMMPS's long-range correction. Unlike pairs are not mixed. The rest is PairPairwise's.
#pragma once

#include <cmath>

#include "tessera/core/error.hpp"
#include "tessera/md/pair_pairwise.hpp"

namespace tessera::md {

struct Buck : pairwise::Plain {
  static constexpr const char* name = "buck";
  static constexpr std::size_t coefficients = 3;
  static constexpr const char* usage = "A RHO C";
  static constexpr bool shifts = true, mixes = false, has_tail = true, takes_nocoeff = false;
  using Coeffs = std::array<double, coefficients>;
  struct Derived {
    double a, c, rhoinv, buck1, buck2, offset;
  };
  static void check(const Coeffs& c) {
    if (!(c[1] > 0)) throw ConfigError("pair_coeff: buck's rho must be positive");
  }
  static Derived derive(const Coeffs& c, double cut, bool shift) {
    Derived d{c[0], c[2], 1.0 / c[1], c[0] / c[1], 6.0 * c[2], 0.0};
    if (shift) d.offset = c[0] * std::exp(-cut / c[1]) - c[2] / std::pow(cut, 6.0);
    return d;
  }
  // LAMMPS's PairBuck::init_one, per N_i N_j.
  static std::array<double, 2> tail(const Coeffs& c, double rc) {
    const double rho1 = c[1], rho2 = rho1 * rho1, rho3 = rho2 * rho1;
    const double rc2 = rc * rc, rc3 = rc2 * rc;
    const double etail =
        2.0 * M_PI *
        (c[0] * std::exp(-rc / rho1) * rho1 * (rc2 + 2.0 * rho1 * rc + 2.0 * rho2) -
         c[2] / (3.0 * rc3));
    const double ptail =
        (-1 / 3.0) * 2.0 * M_PI *
        (-c[0] * std::exp(-rc / rho1) * (rc3 + 3.0 * rho1 * rc2 + 6.0 * rho2 * rc + 6.0 * rho3) +
         2.0 * c[2] / rc3);
    return {etail, ptail};
  }
  template <bool Energy>
  static double force(const Derived& d, double rsq, double& energy) {
    const double r2inv = 1.0 / rsq;
    const double r6inv = r2inv * r2inv * r2inv;
    const double r = std::sqrt(rsq);
    const double rexp = std::exp(-r * d.rhoinv);
    if constexpr (Energy) energy = d.a * rexp - d.c * r6inv - d.offset;
    return (d.buck1 * r * rexp - d.buck2 * r6inv) * r2inv;
  }
};
using PairBuck = PairPairwise<Buck>;

}  // namespace tessera::md
