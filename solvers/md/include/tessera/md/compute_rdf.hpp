// compute ID all rdf NBIN [ITYPES JTYPES ...] [cutoff RC]: LAMMPS's ComputeRDF, the radial
// distribution function g(r) and the coordination number of each pair of type sets (types as
// LAMMPS's bounds: 2, 1*3, *), over NBIN bins out to the pair style's cutoff (or RC, no longer).
// Its global array has a row per bin: the bin's centre, then g(r) and coord(r) for each pair of
// type sets (all types with all types without any), normalised as LAMMPS's (the box's density,
// a set's own atoms left out of its partners). Pairs come from the force's neighbor lists as
// the step left them, counted in each direction, so it is evaluated during or after a run.
// md_ipu does not carry ghost atoms' groups, so the group must be all.
#pragma once

#include <vector>

#include "tessera/md/compute.hpp"

namespace tessera::md {

class ComputeRDF final : public Compute {
 public:
  explicit ComputeRDF(const ComputeArguments& args);
  std::string style() const override { return "rdf"; }
  std::size_t array_rows() const override { return static_cast<std::size_t>(bins_); }
  std::size_t array_columns() const override { return 1 + 2 * pairs_.size(); }
  std::vector<double> array(Simulation& sim) override;

 private:
  struct TypeSets {
    int ilo, ihi, jlo, jhi;
  };
  int bins_ = 1;
  double cutoff_ = 0;  // RC, or 0 for the pair style's
  std::vector<TypeSets> pairs_;
};

}  // namespace tessera::md
