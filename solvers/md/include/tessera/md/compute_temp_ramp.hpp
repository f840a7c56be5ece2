// compute ID GROUP temp/ramp VDIM VLO VHI DIM CLO CHI [units lattice|box]: LAMMPS's
// ComputeTempRamp, the group's temperature after a velocity profile is taken off: component VDIM
// (vx, vy or vz) of each atom loses VLO + f (VHI - VLO), f = (x_DIM - CLO) / (CHI - CLO) clamped
// to [0, 1] (positions as stored), as a shear flow's ramp. dof = dimension N - extra (extra: the
// dimension, or compute_modify extra/dof); the vector is the kinetic tensor of the remaining
// velocities (energy units, extensive). Lattice units (the default) scale the velocities and
// coordinates by the lattice spacing along VDIM and DIM. The profile is a per-atom bias:
// thermo_modify temp and compute pressure take it, md_ipu's thermostats refuse it.
#pragma once

#include <array>

#include "tessera/md/compute_temp.hpp"

namespace tessera::md {

class ComputeTempRamp final : public ComputeTempProfile {
 public:
  explicit ComputeTempRamp(const ComputeArguments& args);
  std::string style() const override { return "temp/ramp"; }
  Bias bias(Simulation& sim) const override;

 private:
  std::size_t velocity_dim_ = 0, coord_dim_ = 1;
  double v_lo_ = 0, v_hi_ = 0, c_lo_ = 0, c_hi_ = 1;
};

}  // namespace tessera::md
