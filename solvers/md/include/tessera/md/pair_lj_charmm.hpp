// pair_style lj/charmm/coul/long INNER OUTER [RC_COUL]: the CHARMM force field's pair terms, as
// LAMMPS's PairLJCharmmCoulLong (KSPACE package); lj/charmm/coul/charmm and
// lj/charmm/coul/charmm/implicit INNER OUTER [INNER_COUL RC_COUL] (LAMMPS's MOLECULE package)
// the same with CHARMM's switched short-range Coulomb term in place of the kspace style's
// (pair_coul.hpp's coul::Charmm; INNER_COUL RC_COUL default to INNER OUTER):
//   E = 4 eps [(s/r)^12 - (s/r)^6] S(r) + qqrd2e q_i q_j erfc(g r) / r
// the Lennard-Jones term switched off smoothly between INNER and OUTER by CHARMM's switching
// function S(r) = (rc^2 - r^2)^2 (rc^2 + 2 r^2 - 3 ri^2) / (rc^2 - ri^2)^3 (Brooks et al., J.
// Comput. Chem. 4, 187 (1983); 1 below ri = INNER, 0 beyond rc = OUTER), the Coulomb term the
// real-space part of the kspace style's sum within RC_COUL (default OUTER).
//   pair_coeff I J EPSILON SIGMA [EPSILON14 SIGMA14]
// EPSILON14 and SIGMA14 (default EPSILON and SIGMA) are the 1-4 pairs' coefficients, which the
// pair style does not use: dihedral_style charmm computes those pairs (Pair::charmm_one_four).
// No cutoff per pair. Unlike pairs mix by the arithmetic rule unless pair_modify mix says
// otherwise (epsilon and epsilon14 by LAMMPS's mix_energy, sigma and sigma14 by mix_distance).
// No shift and no tail correction (LAMMPS has neither for these styles); the long-range forms read
// the real-space term from LAMMPS's table (pair_modify table, tabinner), as lj/cut/coul/long
// (pair_coul.hpp). The rest is
// PairPairwise's (pair_pairwise.hpp).
#pragma once

#include <array>
#include <cmath>
#include <optional>
#include <sstream>
#include <string>

#include "tessera/core/error.hpp"
#include "tessera/md/pair_coul.hpp"

namespace tessera::md {

// What every CHARMM pair style's compute shares, as LAMMPS writes each: the Coulomb term within
// its cutoff, the Lennard-Jones force within OUTER switched beyond INNER by the style's
// switched_force, the energy by its lj_energy, the special pair's weights as factors.
template <class Style, bool Energy, bool Weighted>
double charmm_pair_force(const typename Style::Derived& d, double rsq, double qqi, double qi,
                         double qj, double& evdwl, double& ecoul, double flj, double fcoul) {
  const double r2inv = 1.0 / rsq;
  double forcecoul = 0.0, forcelj = 0.0, r6inv = 0.0, e = 0.0;
  if (rsq < d.coul.cutsq)
    forcecoul = d.coul.template force<Energy, Weighted>(rsq, r2inv, qqi, qi, qj, e, fcoul);
  if (rsq < d.cut_ljsq) {
    r6inv = r2inv * r2inv * r2inv;
    forcelj = r6inv * (d.lj1 * r6inv - d.lj2);
    if (rsq > d.cut_lj_innersq) forcelj = Style::switched_force(d, rsq, r6inv, forcelj);
    if constexpr (Weighted) forcelj *= flj;
  }
  if constexpr (Energy) {
    ecoul = e;
    evdwl = 0.0;
    if (rsq < d.cut_ljsq) {
      evdwl = Style::lj_energy(d, rsq, r6inv);
      if constexpr (Weighted) evdwl *= flj;
    }
  }
  return (forcecoul + forcelj) * r2inv;
}

template <class Term>
struct LJCharmmCoul {
  static constexpr bool charged = true, long_range = Term::long_range;
  static constexpr std::size_t parameters = 1;
  static constexpr const char* parameter_usage = "INNER";
  using Parameters = std::array<double, parameters>;
  static constexpr const char* name = Term::charmm;
  static constexpr bool coulomb_switched = Term::switched, implicit = Term::implicit;
  static constexpr std::size_t cutoffs = 2;
  static constexpr std::size_t coefficients = 4, required_coefficients = 2;
  static constexpr const char* usage = "EPSILON SIGMA [EPSILON14 SIGMA14]";
  static constexpr bool shifts = false, mixes = true, has_tail = false, takes_nocoeff = false;
  static constexpr bool pair_cutoffs = false;
  static constexpr const char* default_mix = "arithmetic";
  using Coeffs = std::array<double, coefficients>;
  struct Derived {
    double lj1, lj2, lj3, lj4, cut_ljsq, cut_lj_innersq, denom_lj, denom_lj_inv;
    Term coul;
  };
  static void check(const Coeffs&) {}
  // LAMMPS's PairLJCharmmCoulLong::init_one.
  static Coeffs mix(const Coeffs& a, const Coeffs& b, const std::string& rule) {
    return {
        coul::mix_energy(rule, a[0], b[0], a[1], b[1]), pairwise::mix_distance(rule, a[1], b[1]),
        coul::mix_energy(rule, a[2], b[2], a[3], b[3]), pairwise::mix_distance(rule, a[3], b[3])};
  }
  static std::array<double, 4> lj_factors(double eps, double sigma) {
    return {48.0 * eps * std::pow(sigma, 12.0), 24.0 * eps * std::pow(sigma, 6.0),
            4.0 * eps * std::pow(sigma, 12.0), 4.0 * eps * std::pow(sigma, 6.0)};
  }
  static Derived derive(const Coeffs& c, const pairwise::Cutoffs& cut, bool, const Parameters& p) {
    const double inner = p[0];
    if (!(inner < cut.lj)) {
      std::ostringstream why;
      why << "pair_style " << name << ": the inner cutoff " << inner
          << " must be below the outer cutoff " << cut.lj
          << " (LAMMPS: Pair inner cutoff >= Pair outer cutoff)";
      throw ConfigError(why.str());
    }
    const auto lj = lj_factors(c[0], c[1]);
    const double cut_ljsq = cut.lj * cut.lj, cut_lj_innersq = inner * inner;
    const double gap = cut_ljsq - cut_lj_innersq;
    return {lj[0],
            lj[1],
            lj[2],
            lj[3],
            cut_ljsq,
            cut_lj_innersq,
            gap * gap * gap,
            1.0 / (gap * gap * gap),
            Term::derive(cut, p.data())};
  }
  static std::array<double, 4> one_four(const Coeffs& c) { return lj_factors(c[2], c[3]); }
  // S(r) as each style computes it: lj/charmm/coul/long multiplies by the inverse of the
  // denominator, lj/charmm/coul/charmm divides by it.
  static double over_denominator(const Derived& d, double x) {
    if constexpr (Term::long_range)
      return x * d.denom_lj_inv;
    else
      return x / d.denom_lj;
  }
  // Beyond INNER: the Lennard-Jones force (times r) `forcelj` switched, and the energy.
  static double switched_force(const Derived& d, double rsq, double r6inv, double forcelj) {
    const double outside = d.cut_ljsq - rsq;
    const double switch1 =
        over_denominator(d, outside * outside * (d.cut_ljsq + 2.0 * rsq - 3.0 * d.cut_lj_innersq));
    const double switch2 = over_denominator(d, 12.0 * rsq * outside * (rsq - d.cut_lj_innersq));
    const double philj = r6inv * (d.lj3 * r6inv - d.lj4);
    return forcelj * switch1 + philj * switch2;
  }
  static double lj_energy(const Derived& d, double rsq, double r6inv) {
    double evdwl = r6inv * (d.lj3 * r6inv - d.lj4);
    if (rsq > d.cut_lj_innersq) {
      const double outside = d.cut_ljsq - rsq;
      evdwl *= over_denominator(
          d, outside * outside * (d.cut_ljsq + 2.0 * rsq - 3.0 * d.cut_lj_innersq));
    }
    return evdwl;
  }
  // LAMMPS's PairLJCharmmCoulLong::compute and PairLJCharmmCoulCharmm::compute, term by term.
  template <bool Energy, bool Weighted = false>
  static double force(const Derived& d, double rsq, double qqi, double qi, double qj, double& evdwl,
                      double& ecoul, double flj = 1.0, double fcoul = 1.0) {
    return charmm_pair_force<LJCharmmCoul, Energy, Weighted>(d, rsq, qqi, qi, qj, evdwl, ecoul, flj,
                                                             fcoul);
  }
};

// pair_style lj/charmmfsw/coul/long INNER OUTER [RC_COUL] and lj/charmmfsw/coul/charmmfsh INNER
// OUTER [RC_COUL] (the latter with pair_coul.hpp's force-shifted short-range Coulomb term,
// coul::ForceShifted, in place of the kspace style's): CHARMM's force-switched Lennard-Jones
// (Steinbach and Brooks, J. Comput. Chem. 15, 667 (1994)), as LAMMPS's PairLJCharmmfswCoulLong:
// between INNER and OUTER the force is the plain one times S(r) above, the energy the
// integral that goes with it, and below INNER the plain energy shifted by the constants that
// make it continuous. In units real it takes CHARMM's Coulomb constant, 332.0716 (LAMMPS's
// qqr2e_charmm_real; LAMMPS 332.06371), for every Coulomb term while it is the pair style
// (the kspace style's and dihedral charmmfsw's too), and says so as LAMMPS does. The
// coefficients, mixing and 1-4 pairs are lj/charmm/coul/long's; dihedral charmmfsw reads its
// cutoffs to shift the 1-4 energies alike.
template <class Term>
struct LJCharmmfswCoul : LJCharmmCoul<Term> {
  using Base = LJCharmmCoul<Term>;
  using typename Base::Coeffs;
  using typename Base::Parameters;
  static constexpr const char* name = Term::fsw;
  static constexpr bool force_switched = true;
  struct Derived {
    double lj1, lj2, lj3, lj4, cut_ljsq, cut_lj_innersq, denom_lj;
    double cut_lj6, cut_lj3, denom_lj12, denom_lj6, cut_lj6inv, cut_lj3inv, cut_lj_inner6inv,
        cut_lj_inner3inv;
    Term coul;
  };
  static std::optional<double> coulomb_constant(const PairContext& c) {
    if (c.units.style != "real") return std::nullopt;
    if (c.warn) c.warn("Switching to CHARMM coulomb energy conversion constant\n");
    return 332.0716;
  }
  // LAMMPS's PairLJCharmmfswCoulLong::init_style and init_one.
  static Derived derive(const Coeffs& c, const pairwise::Cutoffs& cut, bool shift,
                        const Parameters& p) {
    const auto b = Base::derive(c, cut, shift, p);  // checks INNER < OUTER
    const double inner = p[0], outer = cut.lj;
    const double cut_ljinv = 1.0 / outer, cut_lj_innerinv = 1.0 / inner;
    const double cut_lj3 = outer * outer * outer;
    const double cut_lj3inv = cut_ljinv * cut_ljinv * cut_ljinv;
    const double cut_lj_inner3inv = cut_lj_innerinv * cut_lj_innerinv * cut_lj_innerinv;
    const double cut_lj_inner3 = inner * inner * inner;
    const double cut_lj6 = b.cut_ljsq * b.cut_ljsq * b.cut_ljsq;
    const double cut_lj_inner6 = b.cut_lj_innersq * b.cut_lj_innersq * b.cut_lj_innersq;
    const double gap = b.cut_ljsq - b.cut_lj_innersq;
    return {b.lj1,
            b.lj2,
            b.lj3,
            b.lj4,
            b.cut_ljsq,
            b.cut_lj_innersq,
            gap * gap * gap,
            cut_lj6,
            cut_lj3,
            1.0 / (cut_lj6 - cut_lj_inner6),
            1.0 / (cut_lj3 - cut_lj_inner3),
            cut_lj3inv * cut_lj3inv,
            cut_lj3inv,
            cut_lj_inner3inv * cut_lj_inner3inv,
            cut_lj_inner3inv,
            b.coul};
  }
  static double switched_force(const Derived& d, double rsq, double, double forcelj) {
    const double outside = d.cut_ljsq - rsq;
    const double switch1 =
        outside * outside * (d.cut_ljsq + 2.0 * rsq - 3.0 * d.cut_lj_innersq) / d.denom_lj;
    return forcelj * switch1;
  }
  static double lj_energy(const Derived& d, double rsq, double r6inv) {
    if (rsq > d.cut_lj_innersq) {
      const double rinv = 1.0 / std::sqrt(rsq);
      const double r3inv = rinv * rinv * rinv;
      const double twelve =
          d.lj3 * d.cut_lj6 * d.denom_lj12 * (r6inv - d.cut_lj6inv) * (r6inv - d.cut_lj6inv);
      const double six =
          -d.lj4 * d.cut_lj3 * d.denom_lj6 * (r3inv - d.cut_lj3inv) * (r3inv - d.cut_lj3inv);
      return twelve + six;
    }
    const double twelve = r6inv * d.lj3 * r6inv - d.lj3 * d.cut_lj_inner6inv * d.cut_lj6inv;
    const double six = -d.lj4 * r6inv + d.lj4 * d.cut_lj_inner3inv * d.cut_lj3inv;
    return twelve + six;
  }
  // LAMMPS's PairLJCharmmfswCoulLong::compute and PairLJCharmmfswCoulCharmmfsh::compute.
  template <bool Energy, bool Weighted = false>
  static double force(const Derived& d, double rsq, double qqi, double qi, double qj, double& evdwl,
                      double& ecoul, double flj = 1.0, double fcoul = 1.0) {
    return charmm_pair_force<LJCharmmfswCoul, Energy, Weighted>(d, rsq, qqi, qi, qj, evdwl, ecoul,
                                                                flj, fcoul);
  }
};

using PairLJCharmmCoulLong = PairPairwise<LJCharmmCoul<coul::Long>>;
using PairLJCharmmfswCoulLong = PairPairwise<LJCharmmfswCoul<coul::Long>>;
using PairLJCharmmfswCoulCharmmfsh = PairPairwise<LJCharmmfswCoul<coul::ForceShifted>>;
using PairLJCharmmCoulCharmm = PairPairwise<LJCharmmCoul<coul::Charmm<false>>>;
using PairLJCharmmCoulCharmmImplicit = PairPairwise<LJCharmmCoul<coul::Charmm<true>>>;

}  // namespace tessera::md
