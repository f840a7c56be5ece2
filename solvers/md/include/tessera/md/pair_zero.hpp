// pair_style zero RC [nocoeff]: no forces and no energy, but neighbor lists to RC, as LAMMPS's
// PairZero (for computes such as rdf on a system whose forces come from elsewhere, or a rerun);
// pair_coeff I J [RC] (with nocoeff every word after I J, a cutoff too, is ignored, as LAMMPS
// ignores them: the words of another style's pair_coeff);
// unlike pairs' cutoffs mixed by the mix rule. The rest is PairPairwise's (pair_pairwise.hpp);
// one difference: a re-issued pair_style zero RC resets every set pair's cutoff, where LAMMPS's
// resets the unlike pairs' only.
#pragma once

#include "tessera/md/pair_pairwise.hpp"

namespace tessera::md {

struct Zero : pairwise::Plain {
  static constexpr const char* name = "zero";
  static constexpr std::size_t coefficients = 0;
  static constexpr const char* usage = "";
  static constexpr bool shifts = false, mixes = true, has_tail = false, takes_nocoeff = true;
  using Coeffs = std::array<double, coefficients>;
  struct Derived {};
  static void check(const Coeffs&) {}
  static Derived derive(const Coeffs&, double, bool) { return {}; }
  static Coeffs mix(const Coeffs&, const Coeffs&, const std::string&) {
    return {};
  }  // only cutoffs mix
  template <bool Energy>
  static double force(const Derived&, double, double& energy) {
    if constexpr (Energy) energy = 0.0;
    return 0.0;
  }
};
using PairZero = PairPairwise<Zero>;

}  // namespace tessera::md
