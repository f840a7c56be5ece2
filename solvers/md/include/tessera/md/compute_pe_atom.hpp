// compute ID GROUP pe/atom [pair bond angle dihedral improper kspace fix]: LAMMPS's
// ComputePEAtom, each atom's share of the potential energy (energy units; 0 outside the
// group), a per-atom vector: half of every pair energy it takes part in, its ghost images'
// halves included. Summed over the atoms it is the pair energy without pair_modify tail's
// correction, as in LAMMPS. md_ipu has no bonded, long-range or fix energies per atom, so
// those keywords add nothing (as in LAMMPS for a system without them); no keyword means all.
// The values exist at the steps the pair style tallied them (Simulation::per_atom_tallied):
// evaluated at another step it throws Error, as LAMMPS's "Per-atom energy was not tallied".
#pragma once

#include "tessera/md/compute.hpp"

namespace tessera::md {

class ComputePEAtom final : public Compute {
 public:
  explicit ComputePEAtom(const ComputeArguments& args);
  std::string style() const override { return "pe/atom"; }
  std::size_t peratom_columns() const override { return 1; }
  bool needs_per_atom_tally() const override { return true; }
  void prepare_peratom(Simulation& sim) override;
  void peratom(const AtomsView& atoms, std::span<double> out) const override;

 private:
  bool pair_ = true;
};

// Throws Error for compute `what` (ID and style) unless the per-atom tallies exist now.
void require_per_atom_tallies(Simulation& sim, const std::string& what);

}  // namespace tessera::md
