// compute ID GROUP ke/atom: LAMMPS's ComputeKEAtom, each atom's kinetic energy
// 1/2 mvv2e m v^2 (energy units; 0 outside the group), a per-atom vector.
#pragma once

#include "tessera/md/compute.hpp"

namespace tessera::md {

class ComputeKEAtom : public Compute {
 public:
  explicit ComputeKEAtom(const ComputeArguments& args);
  std::string style() const override { return "ke/atom"; }
  std::size_t peratom_columns() const override { return 1; }
  void peratom(const AtomsView& atoms, std::span<double> out) const override;
};

}  // namespace tessera::md
