// compute ID GROUP ke: LAMMPS's ComputeKE, the group's kinetic energy 1/2 mvv2e sum m v^2
// (energy units; extensive).
#pragma once

#include "tessera/md/compute.hpp"

namespace tessera::md {

class ComputeKE : public Compute {
 public:
  explicit ComputeKE(const ComputeArguments& args);
  std::string style() const override { return "ke"; }
  bool has_scalar() const override { return true; }
  bool extensive_scalar() const override { return true; }
  double scalar(Simulation& sim) override;
};

}  // namespace tessera::md
