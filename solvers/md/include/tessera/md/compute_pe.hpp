// compute ID all pe [pair bond angle dihedral improper kspace fix]: LAMMPS's ComputePE, the
// system's potential energy (energy units; extensive). md_ipu's potential energy is all pair
// energy (there are no bonded terms, long-range solvers or energy-adding fixes), so the
// keywords other than pair add nothing; with keywords and without pair the energy is 0, as
// LAMMPS's would be.
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
  bool pair_ = true;
};

}  // namespace tessera::md
