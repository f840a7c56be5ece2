// The short-range Coulomb pair styles, as LAMMPS's (atom_style charge; qqrd2e is Coulomb's
// constant in the units' energy and charge units, the dielectric constant 1):
//   coul/cut RC                    E = qqrd2e q_i q_j / r, r < rc (PairCoulCut)
//   coul/debye KAPPA RC            E = qqrd2e q_i q_j exp(-kappa r) / r (PairCoulDebye)
//   lj/cut/coul/cut RC [RC_COUL]   lj/cut's 4 eps [(s/r)^12 - (s/r)^6] within rc, plus coul/cut
//                                  within rc_coul (PairLJCutCoulCut)
//   lj/cut/coul/debye KAPPA RC [RC_COUL]
//                                  the same with coul/debye's screening (PairLJCutCoulDebye)
//   buck/coul/cut RC [RC_COUL]     buck's A exp(-r/rho) - C/r^6 plus coul/cut (PairBuckCoulCut)
//   coul/long RC                   E = qqrd2e q_i q_j erfc(g r) / r, the real-space part of a
//                                  kspace style's Ewald sum (PairCoulLong)
//   lj/cut/coul/long RC [RC_COUL]  lj/cut plus coul/long (PairLJCutCoulLong); pair_coeff I J
//                                  EPSILON SIGMA [RC]: the Coulomb cutoff is global only
//   buck/coul/long RC [RC_COUL]    buck plus coul/long (PairBuckCoulLong); pair_coeff I J A RHO
//                                  C [RC]
// The long-range styles take g from the kspace style and erfc from Abramowitz and Stegun's
// 7.1.26 as LAMMPS computes it (its EWALD_P, A1..A5; relative error below 1.5e-7). LAMMPS
// tabulates it by default (pair_modify table 12, within about 1e-6 of it); md_ipu always
// computes it, as LAMMPS does with pair_modify table 0.
// pair_coeff I J [EPSILON SIGMA | A RHO C] [RC [RC_COUL]]. lj/cut/coul/* mix unlike pairs
// (epsilon, sigma and both cutoffs by pair_modify mix, as LAMMPS's mix_energy and
// mix_distance); coul/cut and coul/debye mix only their cutoffs; buck/coul/cut does not mix.
// pair_modify shift and tail act on the van der Waals part and its cutoff. Each term's
// arithmetic is LAMMPS's, in its order, so that forces agree to the last bits. The rest is
// PairPairwise's (pair_pairwise.hpp).
#pragma once

#include <array>
#include <cmath>
#include <string>

#include "tessera/core/error.hpp"
#include "tessera/md/pair_buck.hpp"
#include "tessera/md/pair_pairwise.hpp"

namespace tessera::md {

namespace coul {

// The Coulomb term alone, unscreened (screened: kappa > 0). qqi = qqrd2e q_i.
struct Term {
  double cutsq = 0, kappa = 0;
};
template <bool Screened>
inline double force(const Term& c, double rsq, double r2inv, double qqi, double qj) {
  if constexpr (Screened) {
    const double r = std::sqrt(rsq);
    const double rinv = 1.0 / r;
    return qqi * qj * std::exp(-c.kappa * r) * (c.kappa + rinv);
  } else {
    return qqi * qj * std::sqrt(r2inv);
  }
}
template <bool Screened>
inline double energy(const Term& c, double rsq, double r2inv, double qqi, double qj) {
  if constexpr (Screened) {
    const double r = std::sqrt(rsq);
    return qqi * qj * (1.0 / r) * std::exp(-c.kappa * r);
  } else {
    return qqi * qj * std::sqrt(r2inv);
  }
}

// The real-space Ewald term (LAMMPS's PairCoulLong without tables): qqi qj erfc(g r) / r and
// its force, erfc by LAMMPS's polynomial. Returns forcecoul (fpair = forcecoul / r^2).
struct Screening {
  double cutsq = 0, g_ewald = 0;
};
inline double long_force(const Screening& c, double rsq, double qqi, double qj, double& ecoul) {
  constexpr double ewald_f = 1.12837917, ewald_p = 0.3275911;
  constexpr double a1 = 0.254829592, a2 = -0.284496736, a3 = 1.421413741, a4 = -1.453152027,
                   a5 = 1.061405429;
  const double r = std::sqrt(rsq);
  const double grij = c.g_ewald * r;
  const double expm2 = std::exp(-grij * grij);
  const double t = 1.0 / (1.0 + ewald_p * grij);
  const double erfc = t * (a1 + t * (a2 + t * (a3 + t * (a4 + t * a5)))) * expm2;
  const double prefactor = qqi * qj / r;
  ecoul = prefactor * erfc;
  return prefactor * (erfc + ewald_f * grij * expm2);
}

// LAMMPS's Pair::mix_energy.
inline double mix_energy(const std::string& rule, double eps1, double eps2, double sig1,
                         double sig2) {
  if (rule == "sixthpower")
    return 2.0 * std::sqrt(eps1 * eps2) * std::pow(sig1, 3.0) * std::pow(sig2, 3.0) /
           (std::pow(sig1, 6.0) + std::pow(sig2, 6.0));
  return std::sqrt(eps1 * eps2);
}

}  // namespace coul

// coul/cut and coul/debye.
template <bool Screened>
struct CoulOnly {
  static constexpr const char* name = Screened ? "coul/debye" : "coul/cut";
  static constexpr bool charged = true, long_range = false;
  static constexpr std::size_t cutoffs = 1, parameters = Screened ? 1 : 0;
  static constexpr const char* parameter_usage = "KAPPA";
  static constexpr std::size_t coefficients = 0;
  static constexpr const char* usage = "";
  static constexpr bool shifts = false, mixes = true, has_tail = false, takes_nocoeff = false;
  using Coeffs = std::array<double, coefficients>;
  using Parameters = std::array<double, parameters>;
  struct Derived {
    coul::Term coul;
  };
  static void check(const Coeffs&) {}
  static Coeffs mix(const Coeffs&, const Coeffs&, const std::string&) { return {}; }
  static Derived derive(const Coeffs&, const pairwise::Cutoffs& cut, bool, const Parameters& p) {
    Derived d;
    d.coul.cutsq = cut.coul * cut.coul;
    if constexpr (Screened) d.coul.kappa = p[0];
    return d;
  }
  template <bool Energy>
  static double force(const Derived& d, double rsq, double qqi, double qj, double&, double& ecoul) {
    const double r2inv = 1.0 / rsq;
    if constexpr (Energy) ecoul = coul::energy<Screened>(d.coul, rsq, r2inv, qqi, qj);
    return coul::force<Screened>(d.coul, rsq, r2inv, qqi, qj) * r2inv;
  }
};

// lj/cut/coul/cut and lj/cut/coul/debye.
template <bool Screened>
struct LJCutCoul {
  static constexpr const char* name = Screened ? "lj/cut/coul/debye" : "lj/cut/coul/cut";
  static constexpr bool charged = true, long_range = false;
  static constexpr std::size_t cutoffs = 2, parameters = Screened ? 1 : 0;
  static constexpr const char* parameter_usage = "KAPPA";
  static constexpr std::size_t coefficients = 2;
  static constexpr const char* usage = "EPSILON SIGMA";
  static constexpr bool shifts = true, mixes = true, has_tail = true, takes_nocoeff = false;
  using Coeffs = std::array<double, coefficients>;
  using Parameters = std::array<double, parameters>;
  struct Derived {
    double lj1, lj2, lj3, lj4, offset, cut_ljsq;
    coul::Term coul;
  };
  static void check(const Coeffs&) {}
  static Coeffs mix(const Coeffs& a, const Coeffs& b, const std::string& rule) {
    return {coul::mix_energy(rule, a[0], b[0], a[1], b[1]),
            pairwise::mix_distance(rule, a[1], b[1])};
  }
  // LAMMPS's PairLJCutCoulCut::init_one.
  static Derived derive(const Coeffs& c, const pairwise::Cutoffs& cut, bool shift,
                        const Parameters& p) {
    const double eps = c[0], sigma = c[1];
    Derived d{48.0 * eps * std::pow(sigma, 12.0),
              24.0 * eps * std::pow(sigma, 6.0),
              4.0 * eps * std::pow(sigma, 12.0),
              4.0 * eps * std::pow(sigma, 6.0),
              0.0,
              cut.lj * cut.lj,
              {cut.coul * cut.coul, 0.0}};
    if (shift && cut.lj > 0.0) {
      const double ratio = sigma / cut.lj;
      d.offset = 4.0 * eps * (std::pow(ratio, 12.0) - std::pow(ratio, 6.0));
    }
    if constexpr (Screened) d.coul.kappa = p[0];
    return d;
  }
  // etail and ptail per N_i N_j (LAMMPS's init_one, over the van der Waals cutoff).
  static std::array<double, 2> tail(const Coeffs& c, double rc) {
    const double sig2 = c[1] * c[1], sig6 = sig2 * sig2 * sig2;
    const double rc3 = rc * rc * rc, rc6 = rc3 * rc3, rc9 = rc3 * rc6;
    return {8.0 * M_PI * c[0] * sig6 * (sig6 - 3.0 * rc6) / (9.0 * rc9),
            16.0 * M_PI * c[0] * sig6 * (2.0 * sig6 - 3.0 * rc6) / (9.0 * rc9)};
  }
  template <bool Energy>
  static double force(const Derived& d, double rsq, double qqi, double qj, double& evdwl,
                      double& ecoul) {
    const double r2inv = 1.0 / rsq;
    double forcecoul = 0.0, forcelj = 0.0, r6inv = 0.0;
    if (rsq < d.coul.cutsq) forcecoul = coul::force<Screened>(d.coul, rsq, r2inv, qqi, qj);
    if (rsq < d.cut_ljsq) {
      r6inv = r2inv * r2inv * r2inv;
      forcelj = r6inv * (d.lj1 * r6inv - d.lj2);
    }
    if constexpr (Energy) {
      ecoul = rsq < d.coul.cutsq ? coul::energy<Screened>(d.coul, rsq, r2inv, qqi, qj) : 0.0;
      evdwl = rsq < d.cut_ljsq ? r6inv * (d.lj3 * r6inv - d.lj4) - d.offset : 0.0;
    }
    return (forcecoul + forcelj) * r2inv;
  }
};

// buck/coul/cut.
struct BuckCoulCut {
  static constexpr const char* name = "buck/coul/cut";
  static constexpr bool charged = true, long_range = false;
  static constexpr std::size_t cutoffs = 2, parameters = 0;
  static constexpr const char* parameter_usage = "";
  static constexpr std::size_t coefficients = 3;
  static constexpr const char* usage = "A RHO C";
  static constexpr bool shifts = true, mixes = false, has_tail = true, takes_nocoeff = false;
  using Coeffs = std::array<double, coefficients>;
  using Parameters = std::array<double, parameters>;
  struct Derived {
    Buck::Derived buck;
    double cut_ljsq, cut_coulsq;
  };
  static void check(const Coeffs& c) { Buck::check(c); }
  static Derived derive(const Coeffs& c, const pairwise::Cutoffs& cut, bool shift,
                        const Parameters&) {
    return {Buck::derive(c, cut.lj, shift), cut.lj * cut.lj, cut.coul * cut.coul};
  }
  static std::array<double, 2> tail(const Coeffs& c, double rc) { return Buck::tail(c, rc); }
  // LAMMPS's PairBuckCoulCut::compute: the Coulomb term as qqrd2e q_i q_j / r.
  template <bool Energy>
  static double force(const Derived& d, double rsq, double qqi, double qj, double& evdwl,
                      double& ecoul) {
    const double r2inv = 1.0 / rsq;
    const double r = std::sqrt(rsq);
    double forcecoul = 0.0, forcebuck = 0.0, r6inv = 0.0, rexp = 0.0;
    if (rsq < d.cut_coulsq) forcecoul = qqi * qj / r;
    if (rsq < d.cut_ljsq) {
      r6inv = r2inv * r2inv * r2inv;
      rexp = std::exp(-r * d.buck.rhoinv);
      forcebuck = d.buck.buck1 * r * rexp - d.buck.buck2 * r6inv;
    }
    if constexpr (Energy) {
      ecoul = rsq < d.cut_coulsq ? qqi * qj / r : 0.0;
      evdwl = rsq < d.cut_ljsq ? d.buck.a * rexp - d.buck.c * r6inv - d.buck.offset : 0.0;
    }
    return (forcecoul + forcebuck) * r2inv;
  }
};

// coul/long.
struct CoulLong {
  static constexpr const char* name = "coul/long";
  static constexpr bool charged = true, long_range = true;
  static constexpr std::size_t cutoffs = 1, parameters = 0;
  static constexpr const char* parameter_usage = "";
  static constexpr std::size_t coefficients = 0;
  static constexpr const char* usage = "";
  static constexpr bool shifts = false, mixes = true, has_tail = false, takes_nocoeff = false;
  using Coeffs = std::array<double, coefficients>;
  using Parameters = std::array<double, parameters>;
  struct Derived {
    coul::Screening coul;
  };
  static void check(const Coeffs&) {}
  static Coeffs mix(const Coeffs&, const Coeffs&, const std::string&) { return {}; }
  static Derived derive(const Coeffs&, const pairwise::Cutoffs& cut, bool, const Parameters&) {
    return {{cut.coul * cut.coul, cut.g_ewald}};
  }
  template <bool Energy>
  static double force(const Derived& d, double rsq, double qqi, double qj, double&, double& ecoul) {
    const double r2inv = 1.0 / rsq;
    double e;
    const double forcecoul = coul::long_force(d.coul, rsq, qqi, qj, e);
    if constexpr (Energy) ecoul = e;
    return forcecoul * r2inv;
  }
};

// lj/cut/coul/long.
struct LJCutCoulLong {
  static constexpr const char* name = "lj/cut/coul/long";
  static constexpr bool charged = true, long_range = true;
  static constexpr std::size_t cutoffs = 2, parameters = 0;
  static constexpr const char* parameter_usage = "";
  static constexpr std::size_t coefficients = 2;
  static constexpr const char* usage = "EPSILON SIGMA";
  static constexpr bool shifts = true, mixes = true, has_tail = true, takes_nocoeff = false;
  using Coeffs = std::array<double, coefficients>;
  using Parameters = std::array<double, parameters>;
  using LJ = LJCutCoul<false>;
  struct Derived {
    LJ::Derived lj;
    coul::Screening coul;
  };
  static void check(const Coeffs&) {}
  static Coeffs mix(const Coeffs& a, const Coeffs& b, const std::string& rule) {
    return LJ::mix(a, b, rule);
  }
  static Derived derive(const Coeffs& c, const pairwise::Cutoffs& cut, bool shift,
                        const Parameters&) {
    return {LJ::derive(c, cut, shift, {}), {cut.coul * cut.coul, cut.g_ewald}};
  }
  static std::array<double, 2> tail(const Coeffs& c, double rc) { return LJ::tail(c, rc); }
  // LAMMPS's PairLJCutCoulLong::compute.
  template <bool Energy>
  static double force(const Derived& d, double rsq, double qqi, double qj, double& evdwl,
                      double& ecoul) {
    const double r2inv = 1.0 / rsq;
    double forcecoul = 0.0, forcelj = 0.0, r6inv = 0.0, e = 0.0;
    if (rsq < d.coul.cutsq) forcecoul = coul::long_force(d.coul, rsq, qqi, qj, e);
    if (rsq < d.lj.cut_ljsq) {
      r6inv = r2inv * r2inv * r2inv;
      forcelj = r6inv * (d.lj.lj1 * r6inv - d.lj.lj2);
    }
    if constexpr (Energy) {
      ecoul = e;
      evdwl = rsq < d.lj.cut_ljsq ? r6inv * (d.lj.lj3 * r6inv - d.lj.lj4) - d.lj.offset : 0.0;
    }
    return (forcecoul + forcelj) * r2inv;
  }
};

// buck/coul/long.
struct BuckCoulLong {
  static constexpr const char* name = "buck/coul/long";
  static constexpr bool charged = true, long_range = true;
  static constexpr std::size_t cutoffs = 2, parameters = 0;
  static constexpr const char* parameter_usage = "";
  static constexpr std::size_t coefficients = 3;
  static constexpr const char* usage = "A RHO C";
  static constexpr bool shifts = true, mixes = false, has_tail = true, takes_nocoeff = false;
  using Coeffs = std::array<double, coefficients>;
  using Parameters = std::array<double, parameters>;
  struct Derived {
    Buck::Derived buck;
    double cut_ljsq;
    coul::Screening coul;
  };
  static void check(const Coeffs& c) { Buck::check(c); }
  static Derived derive(const Coeffs& c, const pairwise::Cutoffs& cut, bool shift,
                        const Parameters&) {
    return {Buck::derive(c, cut.lj, shift), cut.lj * cut.lj, {cut.coul * cut.coul, cut.g_ewald}};
  }
  static std::array<double, 2> tail(const Coeffs& c, double rc) { return Buck::tail(c, rc); }
  // LAMMPS's PairBuckCoulLong::compute.
  template <bool Energy>
  static double force(const Derived& d, double rsq, double qqi, double qj, double& evdwl,
                      double& ecoul) {
    const double r2inv = 1.0 / rsq;
    double forcecoul = 0.0, forcebuck = 0.0, r6inv = 0.0, rexp = 0.0, e = 0.0;
    if (rsq < d.coul.cutsq) forcecoul = coul::long_force(d.coul, rsq, qqi, qj, e);
    if (rsq < d.cut_ljsq) {
      const double r = std::sqrt(rsq);
      r6inv = r2inv * r2inv * r2inv;
      rexp = std::exp(-r * d.buck.rhoinv);
      forcebuck = d.buck.buck1 * r * rexp - d.buck.buck2 * r6inv;
    }
    if constexpr (Energy) {
      ecoul = e;
      evdwl = rsq < d.cut_ljsq ? d.buck.a * rexp - d.buck.c * r6inv - d.buck.offset : 0.0;
    }
    return (forcecoul + forcebuck) * r2inv;
  }
};

using PairCoulCut = PairPairwise<CoulOnly<false>>;
using PairCoulDebye = PairPairwise<CoulOnly<true>>;
using PairLJCutCoulCut = PairPairwise<LJCutCoul<false>>;
using PairLJCutCoulDebye = PairPairwise<LJCutCoul<true>>;
using PairBuckCoulCut = PairPairwise<BuckCoulCut>;
using PairCoulLong = PairPairwise<CoulLong>;
using PairLJCutCoulLong = PairPairwise<LJCutCoulLong>;
using PairBuckCoulLong = PairPairwise<BuckCoulLong>;

}  // namespace tessera::md
