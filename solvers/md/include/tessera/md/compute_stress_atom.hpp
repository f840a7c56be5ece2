// compute ID GROUP stress/atom TEMP-ID [ke pair bond angle dihedral improper kspace fix virial]:
// LAMMPS's ComputeStressAtom, each atom's stress times volume (pressure*volume units; 0
// outside the group), a per-atom array of 6 columns xx yy zz xy xz yz:
//   s_ab = -nktv2p (mvv2e m v_a v_b + W_ab),
// W the atom's half of every pair virial it takes part in (ghost images' halves included), its
// half of each bond's, third of each angle's and its kspace share, v its velocity less the
// temperature compute's bias (TEMP-ID; NULL: none). Summed over all atoms, -(s_xx + s_yy + s_zz) /
// (3 V) is the pressure. No keyword means all; `virial` means every term but ke. The pair, bonded
// and kspace shares are tallied together, so the keywords name all the system has or none; a fix
// whose constraint forces add a virial (fix rigid) has no per-atom share here, so the fix term
// with such a fix is refused at evaluation. A temperature with a per-atom bias (temp/ramp,
// temp/region) is refused.
// The values exist at the steps the pair style tallied them (Simulation::per_atom_tallied):
// evaluated at another step it throws Error, as LAMMPS's "Per-atom virial was not tallied".
#pragma once

#include <array>
#include <optional>
#include <string>

#include "tessera/md/compute.hpp"

namespace tessera::md {

class ComputeStressAtom final : public Compute {
 public:
  explicit ComputeStressAtom(const ComputeArguments& args);
  std::string style() const override { return "stress/atom"; }
  std::size_t peratom_columns() const override { return 6; }
  bool needs_per_atom_tally() const override { return true; }
  void prepare_peratom(Simulation& sim) override;
  void peratom(const AtomsView& atoms, std::span<double> out) const override;

 private:
  std::optional<std::string> temperature_;
  bool ke_ = true, pair_ = true, fix_ = true;
  VirialTerms terms_;
  // The velocity components the kinetic term counts (the temperature's thermal ones), as
  // prepare_peratom found them.
  std::array<bool, 3> thermal_{true, true, true};
};

}  // namespace tessera::md
