// compute ID GROUP pe/atom [pair bond angle dihedral improper kspace fix]: LAMMPS's
// ComputePEAtom, each atom's share of the potential energy (energy units; 0 outside the
// group), a per-atom vector: half of every pair energy it takes part in, its ghost images'
// halves included, a half of each bond's and a third of each angle's, and its kspace share (Ewald
// sums). Summed over the atoms it is the potential energy without pair_modify tail's correction,
// as in LAMMPS. md_ipu tallies the pair, bonded and kspace shares together, so the keywords name
// all the terms the system has or none (require_lumped_terms); it has no fix energies per atom;
// no keyword means all.
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
  VirialTerms terms_;  // pair, bonded, kspace (ke and fix unused)
};

// Throws Error for compute `what` (ID and style) unless the per-atom tallies exist now.
void require_per_atom_tallies(Simulation& sim, const std::string& what);

}  // namespace tessera::md
