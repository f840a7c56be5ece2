// The Coulomb pair styles, as LAMMPS's (atom_style charge; qqrd2e is Coulomb's
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
// The long-range styles take g from the kspace style and, as LAMMPS, read the real-space term
// from its table (pair_modify table N, default 12; tabinner R, default sqrt(2): CoulombTable)
// beyond R, and compute it within R or with table 0, erfc from Abramowitz and Stegun's 7.1.26 as
// LAMMPS computes it (its EWALD_P, A1..A5; relative error below 1.5e-7).
// pair_coeff I J [EPSILON SIGMA | A RHO C] [RC [RC_COUL]]. lj/cut/coul/* mix unlike pairs
// (epsilon, sigma and both cutoffs by pair_modify mix, as LAMMPS's mix_energy and
// mix_distance); coul/cut and coul/debye mix only their cutoffs; buck/coul/cut does not mix.
// pair_modify shift and tail act on the van der Waals part and its cutoff. Each term's
// arithmetic is LAMMPS's, in its order, so that forces agree to the last bits. The rest is
// PairPairwise's (pair_pairwise.hpp).
#pragma once

#include <array>
#include <cmath>
#include <sstream>
#include <string>

#include "tessera/core/error.hpp"
#include "tessera/md/coulomb_table.hpp"
#include "tessera/md/pair_buck.hpp"
#include "tessera/md/pair_pairwise.hpp"

namespace tessera::md {

namespace coul {

// The Coulomb terms, each as LAMMPS writes it (qqi = qqrd2e q_i). A Term has the names of the
// styles made of it (alone, with lj/cut, with buck), whether it is the real-space part of a kspace
// sum, its pair_style parameters, what it keeps of them (derive), and force: forcecoul (fpair =
// forcecoul / r^2) and, with Energy, the energy, for a pair within its cutoff; Weighted: of a
// special pair of Coulomb weight fcoul (special_bonds), as LAMMPS weighs it (a factor on the
// short-range terms; the long-range term takes out (1 - fcoul) of the plain Coulomb term, which
// the kspace sum holds in full).
struct Cut {  // coul/cut and lj/cut/coul/cut: qqi qj sqrt(1/r^2)
  static constexpr const char *alone = "coul/cut", *lj = "lj/cut/coul/cut", *buck = nullptr;
  static constexpr bool long_range = false;
  static constexpr std::size_t parameters = 0;
  static constexpr const char* parameter_usage = "";
  double cutsq = 0;
  static Cut derive(const pairwise::Cutoffs& cut, const double*) { return {cut.coul * cut.coul}; }
  template <bool Energy, bool Weighted = false>
  double force(double, double r2inv, double qqi, double /*qi*/, double qj, double& ecoul,
               double fcoul = 1.0) const {
    const double forcecoul = qqi * qj * std::sqrt(r2inv);
    if constexpr (Energy) ecoul = Weighted ? fcoul * forcecoul : forcecoul;
    return Weighted ? fcoul * forcecoul : forcecoul;
  }
};
struct CutOverR {  // buck/coul/cut: qqi qj / r
  static constexpr const char *alone = nullptr, *lj = nullptr, *buck = "buck/coul/cut";
  static constexpr bool long_range = false;
  static constexpr std::size_t parameters = 0;
  static constexpr const char* parameter_usage = "";
  double cutsq = 0;
  static CutOverR derive(const pairwise::Cutoffs& cut, const double*) {
    return {cut.coul * cut.coul};
  }
  template <bool Energy, bool Weighted = false>
  double force(double rsq, double, double qqi, double /*qi*/, double qj, double& ecoul,
               double fcoul = 1.0) const {
    const double r = std::sqrt(rsq);
    const double forcecoul = qqi * qj / r;
    if constexpr (Energy) ecoul = Weighted ? fcoul * forcecoul : forcecoul;
    return Weighted ? fcoul * forcecoul : forcecoul;
  }
};
struct Debye {  // qqi qj exp(-kappa r) / r
  static constexpr const char *alone = "coul/debye", *lj = "lj/cut/coul/debye", *buck = nullptr;
  static constexpr bool long_range = false;
  static constexpr std::size_t parameters = 1;
  static constexpr const char* parameter_usage = "KAPPA";
  double cutsq = 0, kappa = 0;
  static Debye derive(const pairwise::Cutoffs& cut, const double* p) {
    return {cut.coul * cut.coul, p[0]};
  }
  template <bool Energy, bool Weighted = false>
  double force(double rsq, double, double qqi, double /*qi*/, double qj, double& ecoul,
               double fcoul = 1.0) const {
    const double r = std::sqrt(rsq);
    const double rinv = 1.0 / r;
    const double screening = std::exp(-kappa * r);
    if constexpr (Energy) ecoul = (Weighted ? fcoul : 1.0) * qqi * qj * rinv * screening;
    return (Weighted ? fcoul : 1.0) * qqi * qj * screening * (kappa + rinv);
  }
};
// The real-space Ewald term qqi qj erfc(g r) / r: beyond the table's inner cutoff from LAMMPS's
// table (pair_modify table N, CoulombTable) as q_i q_j times its interpolated prefactors; within
// it, or with table 0, computed, erfc by LAMMPS's polynomial.
struct Long {
  static constexpr const char *alone = "coul/long", *lj = "lj/cut/coul/long",
                              *buck = "buck/coul/long", *charmm = "lj/charmm/coul/long",
                              *fsw = "lj/charmmfsw/coul/long";
  static constexpr bool implicit = false, switched = false;
  static constexpr bool long_range = true;
  static constexpr std::size_t parameters = 0;
  static constexpr const char* parameter_usage = "";
  double cutsq = 0, g_ewald = 0;
  const CoulombTable* table = nullptr;  // none with pair_modify table 0
  static Long derive(const pairwise::Cutoffs& cut, const double*) {
    return {cut.coul * cut.coul, cut.g_ewald, cut.coul_table};
  }
  template <bool Energy, bool Weighted = false>
  double force(double rsq, double, double qqi, double qi, double qj, double& ecoul,
               double fcoul = 1.0) const {
    if (table && table->covers(rsq)) {
      const CoulombTable::Bin bin = table->bin(rsq);
      double forcecoul = qi * qj * table->force(bin), prefactor = 0.0;
      if constexpr (Weighted)
        if (fcoul < 1.0) {
          prefactor = qi * qj * table->coulomb(bin);
          forcecoul -= (1.0 - fcoul) * prefactor;
        }
      if constexpr (Energy) {
        ecoul = qi * qj * table->energy(bin);
        if constexpr (Weighted)
          if (fcoul < 1.0) ecoul -= (1.0 - fcoul) * prefactor;
      }
      return forcecoul;
    }
    constexpr double ewald_f = 1.12837917, ewald_p = 0.3275911;
    constexpr double a1 = 0.254829592, a2 = -0.284496736, a3 = 1.421413741, a4 = -1.453152027,
                     a5 = 1.061405429;
    const double r = std::sqrt(rsq);
    const double grij = g_ewald * r;
    const double expm2 = std::exp(-grij * grij);
    const double t = 1.0 / (1.0 + ewald_p * grij);
    const double erfc = t * (a1 + t * (a2 + t * (a3 + t * (a4 + t * a5)))) * expm2;
    const double prefactor = qqi * qj / r;
    double forcecoul = prefactor * (erfc + ewald_f * grij * expm2);
    if constexpr (Weighted)
      if (fcoul < 1.0) forcecoul -= (1.0 - fcoul) * prefactor;
    if constexpr (Energy) {
      ecoul = prefactor * erfc;
      if constexpr (Weighted)
        if (fcoul < 1.0) ecoul -= (1.0 - fcoul) * prefactor;
    }
    return forcecoul;
  }
};

// CHARMM's switched Coulomb term (lj/charmm/coul/charmm), qqi qj / r, or with Implicit qqi qj / r^2
// (a dielectric proportional to r, lj/charmm/coul/charmm/implicit), times the switching function
// S(r) between the inner cutoff and the cutoff: the energy's switch as in lj/charmm/coul/long;
// the force as LAMMPS has it: the plain force times S(r) in PairLJCharmmCoulCharmm (not the
// energy's derivative, which would add S'(r) E), times S(r) + switch2 / 2 in
// PairLJCharmmCoulCharmmImplicit. A special pair's weight multiplies both.
template <bool Implicit>
struct Charmm {
  static constexpr const char *alone = nullptr, *lj = nullptr, *buck = nullptr,
                              *charmm = Implicit ? "lj/charmm/coul/charmm/implicit"
                                                 : "lj/charmm/coul/charmm",
                              *fsw = nullptr;
  static constexpr bool long_range = false, implicit = Implicit, switched = true;
  static constexpr std::size_t parameters = 0;
  static constexpr const char* parameter_usage = "";
  double cutsq = 0, cut_coul_innersq = 0, denom_coul = 0;
  static Charmm derive(const pairwise::Cutoffs& cut, const double*) {
    if (!(cut.coul_inner < cut.coul)) {
      std::ostringstream why;
      why << "pair_style " << charmm << ": the Coulomb inner cutoff " << cut.coul_inner
          << " must be below the Coulomb cutoff " << cut.coul
          << " (LAMMPS: Pair inner cutoff >= Pair outer cutoff)";
      throw ConfigError(why.str());
    }
    const double cutsq = cut.coul * cut.coul, innersq = cut.coul_inner * cut.coul_inner;
    const double gap = cutsq - innersq;
    return {cutsq, innersq, gap * gap * gap};
  }
  template <bool Energy, bool Weighted = false>
  double force(double rsq, double r2inv, double qqi, double /*qi*/, double qj, double& ecoul,
               double fcoul = 1.0) const {
    double forcecoul = Implicit ? 2.0 * qqi * qj * r2inv : qqi * qj * std::sqrt(r2inv);
    double switch1 = 1.0;
    if (rsq > cut_coul_innersq) {
      const double outside = cutsq - rsq;
      switch1 = outside * outside * (cutsq + 2.0 * rsq - 3.0 * cut_coul_innersq) / denom_coul;
      if constexpr (Implicit) {
        const double switch2 = 12.0 * rsq * outside * (rsq - cut_coul_innersq) / denom_coul;
        forcecoul *= switch1 + 0.5 * switch2;
      } else {
        forcecoul *= switch1;
      }
    }
    if constexpr (Energy) {
      ecoul = Implicit ? qqi * qj * r2inv : qqi * qj * std::sqrt(r2inv);
      if (rsq > cut_coul_innersq) ecoul *= switch1;
      if constexpr (Weighted) ecoul *= fcoul;
    }
    return Weighted ? fcoul * forcecoul : forcecoul;
  }
};

// CHARMM's force-shifted Coulomb term (lj/charmmfsw/coul/charmmfsh, LAMMPS's
// PairLJCharmmfswCoulCharmmfsh): E = qqi qj (1/r + r/rc^2 - 2/rc), force qqi qj (1/r - r/rc^2),
// both 0 at rc; a special pair's weight multiplies both.
struct ForceShifted {
  static constexpr const char *alone = nullptr, *lj = nullptr, *buck = nullptr, *charmm = nullptr,
                              *fsw = "lj/charmmfsw/coul/charmmfsh";
  static constexpr bool long_range = false, implicit = false, switched = false;
  static constexpr std::size_t parameters = 0;
  static constexpr const char* parameter_usage = "";
  double cutsq = 0, cut_coulinv = 0;
  static ForceShifted derive(const pairwise::Cutoffs& cut, const double*) {
    return {cut.coul * cut.coul, 1.0 / cut.coul};
  }
  template <bool Energy, bool Weighted = false>
  double force(double rsq, double r2inv, double qqi, double /*qi*/, double qj, double& ecoul,
               double fcoul = 1.0) const {
    const double r = std::sqrt(rsq);
    const double forcecoul = qqi * qj * (std::sqrt(r2inv) - r * cut_coulinv * cut_coulinv);
    if constexpr (Energy) {
      ecoul = qqi * qj * (std::sqrt(r2inv) + cut_coulinv * cut_coulinv * r - 2.0 * cut_coulinv);
      if constexpr (Weighted) ecoul *= fcoul;
    }
    return Weighted ? fcoul * forcecoul : forcecoul;
  }
};

// LAMMPS's Pair::mix_energy.
inline double mix_energy(const std::string& rule, double eps1, double eps2, double sig1,
                         double sig2) {
  if (rule == "sixthpower")
    return 2.0 * std::sqrt(eps1 * eps2) * std::pow(sig1, 3.0) * std::pow(sig2, 3.0) /
           (std::pow(sig1, 6.0) + std::pow(sig2, 6.0));
  return std::sqrt(eps1 * eps2);
}

// What every Coulomb style shares: the term's settings, and a pair's Coulomb cutoff of its own
// only for short-range terms with a van der Waals part.
template <class Term>
struct Charged {
  static constexpr bool charged = true, long_range = Term::long_range;
  static constexpr std::size_t parameters = Term::parameters;
  static constexpr const char* parameter_usage = Term::parameter_usage;
  using Parameters = std::array<double, parameters>;
};

}  // namespace coul

// coul/cut, coul/debye and coul/long: the Coulomb term alone; pair_coeff I J [RC] (coul/long: no
// cutoff of a pair's own).
template <class Term>
struct CoulOnly : coul::Charged<Term> {
  static constexpr const char* name = Term::alone;
  static constexpr std::size_t cutoffs = 1;
  static constexpr std::size_t coefficients = 0;
  static constexpr const char* usage = "";
  static constexpr bool shifts = false, mixes = true, has_tail = false, takes_nocoeff = false;
  using Coeffs = std::array<double, coefficients>;
  using Parameters = typename coul::Charged<Term>::Parameters;
  struct Derived {
    Term coul;
  };
  static void check(const Coeffs&) {}
  static Coeffs mix(const Coeffs&, const Coeffs&, const std::string&) { return {}; }
  static Derived derive(const Coeffs&, const pairwise::Cutoffs& cut, bool, const Parameters& p) {
    return {Term::derive(cut, p.data())};
  }
  template <bool Energy, bool Weighted = false>
  static double force(const Derived& d, double rsq, double qqi, double qi, double qj, double&,
                      double& ecoul, double = 1.0, double fcoul = 1.0) {
    const double r2inv = 1.0 / rsq;
    return d.coul.template force<Energy, Weighted>(rsq, r2inv, qqi, qi, qj, ecoul, fcoul) * r2inv;
  }
};

// lj/cut/coul/cut, lj/cut/coul/debye and lj/cut/coul/long.
template <class Term>
struct LJCutCoul : coul::Charged<Term> {
  static constexpr const char* name = Term::lj;
  static constexpr std::size_t cutoffs = 2;
  static constexpr std::size_t coefficients = 2;
  static constexpr const char* usage = "EPSILON SIGMA";
  static constexpr bool shifts = true, mixes = true, has_tail = true, takes_nocoeff = false;
  using Coeffs = std::array<double, coefficients>;
  using Parameters = typename coul::Charged<Term>::Parameters;
  struct Derived {
    double lj1, lj2, lj3, lj4, offset, cut_ljsq;
    Term coul;
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
              Term::derive(cut, p.data())};
    if (shift && cut.lj > 0.0) {
      const double ratio = sigma / cut.lj;
      d.offset = 4.0 * eps * (std::pow(ratio, 12.0) - std::pow(ratio, 6.0));
    }
    return d;
  }
  // etail and ptail per N_i N_j (LAMMPS's init_one, over the van der Waals cutoff).
  static std::array<double, 2> tail(const Coeffs& c, double rc) {
    const double sig2 = c[1] * c[1], sig6 = sig2 * sig2 * sig2;
    const double rc3 = rc * rc * rc, rc6 = rc3 * rc3, rc9 = rc3 * rc6;
    return {8.0 * M_PI * c[0] * sig6 * (sig6 - 3.0 * rc6) / (9.0 * rc9),
            16.0 * M_PI * c[0] * sig6 * (2.0 * sig6 - 3.0 * rc6) / (9.0 * rc9)};
  }
  template <bool Energy, bool Weighted = false>
  static double force(const Derived& d, double rsq, double qqi, double qi, double qj, double& evdwl,
                      double& ecoul, double flj = 1.0, double fcoul = 1.0) {
    const double r2inv = 1.0 / rsq;
    double forcecoul = 0.0, forcelj = 0.0, r6inv = 0.0, e = 0.0;
    if (rsq < d.coul.cutsq)
      forcecoul = d.coul.template force<Energy, Weighted>(rsq, r2inv, qqi, qi, qj, e, fcoul);
    if (rsq < d.cut_ljsq) {
      r6inv = r2inv * r2inv * r2inv;
      forcelj = r6inv * (d.lj1 * r6inv - d.lj2);
      if constexpr (Weighted) forcelj *= flj;
    }
    if constexpr (Energy) {
      ecoul = e;
      evdwl = rsq < d.cut_ljsq ? r6inv * (d.lj3 * r6inv - d.lj4) - d.offset : 0.0;
      if constexpr (Weighted) evdwl *= flj;
    }
    return (forcecoul + forcelj) * r2inv;
  }
};

// buck/coul/cut and buck/coul/long (LAMMPS's buck/coul/cut divides by r where the others
// multiply by sqrt(1/r^2): coul::CutOverR).
template <class Term>
struct BuckCoul : coul::Charged<Term> {
  static constexpr const char* name = Term::buck;
  static constexpr std::size_t cutoffs = 2;
  static constexpr std::size_t coefficients = 3;
  static constexpr const char* usage = "A RHO C";
  static constexpr bool shifts = true, mixes = false, has_tail = true, takes_nocoeff = false;
  using Coeffs = std::array<double, coefficients>;
  using Parameters = typename coul::Charged<Term>::Parameters;
  struct Derived {
    Buck::Derived buck;
    double cut_ljsq;
    Term coul;
  };
  static void check(const Coeffs& c) { Buck::check(c); }
  static Derived derive(const Coeffs& c, const pairwise::Cutoffs& cut, bool shift,
                        const Parameters& p) {
    return {Buck::derive(c, cut.lj, shift), cut.lj * cut.lj, Term::derive(cut, p.data())};
  }
  static std::array<double, 2> tail(const Coeffs& c, double rc) { return Buck::tail(c, rc); }
  // LAMMPS's PairBuckCoulCut::compute and PairBuckCoulLong::compute.
  template <bool Energy, bool Weighted = false>
  static double force(const Derived& d, double rsq, double qqi, double qi, double qj, double& evdwl,
                      double& ecoul, double flj = 1.0, double fcoul = 1.0) {
    const double r2inv = 1.0 / rsq;
    double forcecoul = 0.0, forcebuck = 0.0, r6inv = 0.0, rexp = 0.0, e = 0.0;
    if (rsq < d.coul.cutsq)
      forcecoul = d.coul.template force<Energy, Weighted>(rsq, r2inv, qqi, qi, qj, e, fcoul);
    if (rsq < d.cut_ljsq) {
      const double r = std::sqrt(rsq);
      r6inv = r2inv * r2inv * r2inv;
      rexp = std::exp(-r * d.buck.rhoinv);
      forcebuck = d.buck.buck1 * r * rexp - d.buck.buck2 * r6inv;
      if constexpr (Weighted) forcebuck *= flj;
    }
    if constexpr (Energy) {
      ecoul = e;
      evdwl = rsq < d.cut_ljsq ? d.buck.a * rexp - d.buck.c * r6inv - d.buck.offset : 0.0;
      if constexpr (Weighted) evdwl *= flj;
    }
    return (forcecoul + forcebuck) * r2inv;
  }
};

using PairCoulCut = PairPairwise<CoulOnly<coul::Cut>>;
using PairCoulDebye = PairPairwise<CoulOnly<coul::Debye>>;
using PairCoulLong = PairPairwise<CoulOnly<coul::Long>>;
using PairLJCutCoulCut = PairPairwise<LJCutCoul<coul::Cut>>;
using PairLJCutCoulDebye = PairPairwise<LJCutCoul<coul::Debye>>;
using PairLJCutCoulLong = PairPairwise<LJCutCoul<coul::Long>>;
using PairBuckCoulCut = PairPairwise<BuckCoul<coul::CutOverR>>;
using PairBuckCoulLong = PairPairwise<BuckCoul<coul::Long>>;

}  // namespace tessera::md
