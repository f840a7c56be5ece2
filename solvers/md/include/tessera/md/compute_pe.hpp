// compute ID all pe [pair bond angle dihedral improper kspace fix]: LAMMPS's ComputePE, the
// system's potential energy (energy units; extensive). Without keywords all of it (thermo's pe);
// with keywords the sum of the parts named: pair the pair style's energy (with its tail
// correction), bond, angle, dihedral and improper each bonded style's, kspace the kspace style's,
// fix the energies fixes add to pe.
#pragma once

#include "tessera/md/compute.hpp"

namespace tessera::md {

class ComputePE : public Compute {
 public:
  explicit ComputePE(const ComputeArguments& args);
  std::string style() const override { return "pe"; }
  bool has_scalar() const override { return true; }
  bool extensive_scalar() const override { return true; }
  double scalar(Simulation& sim) override;

 private:
  bool all_ = true;
  VirialTerms parts_;  // pair, bonded, kspace, fix (ke unused)
};

}  // namespace tessera::md
