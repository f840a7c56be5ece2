// compute ID all adf NBIN [ITYPE JTYPE KTYPE RINNERJ ROUTERJ RINNERK ROUTERK ...]
//   [ordinate degree|radian|cosine]: LAMMPS's ComputeADF, the angular distribution of the
// triples J-I-K around each central atom I (types as LAMMPS's bounds: 2, 1*3, *), J at a distance
// from I in [RINNERJ, ROUTERJ] and K in [RINNERK, ROUTERK] (without triples: every type, out to
// the pair style's cutoff), each unordered pair of neighbors once. Its global array has a row per
// bin of the angle (0 to 180 degrees or pi radians, or cosine -1 to 1): the bin's centre, then per
// triple its probability density (the bin's count over all counts and the bin's width) and the
// cumulative count per central atom, normalised as LAMMPS's. Neighbors come from a full list of
// the atoms where they are (Simulation::reduce_pairs), special pairs whose weights are both 0 left
// out, so it is evaluated during or after a run, with outer cutoffs no longer than the pair
// style's. md_ipu does not carry ghost atoms' groups, so the group must be all.
#pragma once

#include <vector>

#include "tessera/md/compute.hpp"

namespace tessera::md {

class ComputeADF final : public Compute {
 public:
  explicit ComputeADF(const ComputeArguments& args);
  std::string style() const override { return "adf"; }
  std::size_t array_rows() const override { return static_cast<std::size_t>(bins_); }
  std::size_t array_columns() const override { return 1 + 2 * triples_.size(); }
  std::vector<double> array(Simulation& sim) override;

 private:
  enum class Ordinate { degree, radian, cosine };
  struct Triple {
    int ilo, ihi, jlo, jhi, klo, khi;
    double inner_j = 0, outer_j = 0, inner_k = 0, outer_k = 0;  // 0 0 0 0: the pair cutoff's
  };
  int bins_ = 1;
  Ordinate ordinate_ = Ordinate::degree;
  bool cutoffs_given_ = false;
  std::vector<Triple> triples_;
};

}  // namespace tessera::md
