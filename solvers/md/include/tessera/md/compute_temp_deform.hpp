// compute ID GROUP temp/deform: LAMMPS's ComputeTempDeform, the group's temperature after the
// streaming velocity of a deforming box is taken off: each atom at fractional position (l0, l1,
// l2) streams with h_rate l + h_ratelo (the box's rates, fix deform's; zero without one), as a
// shear flow under fix deform with remap v. dof = dimension N - extra (extra: the dimension, or
// compute_modify extra/dof); the vector is the kinetic tensor of the remaining velocities (energy
// units, extensive). The streaming velocity is a per-atom bias: thermo_modify temp and compute
// pressure take it, fix nvt/sllod thermostats the rest.
#pragma once

#include <array>

#include "tessera/md/compute_temp.hpp"

namespace tessera::md {

class ComputeTempDeform final : public ComputeTempProfile {
 public:
  explicit ComputeTempDeform(const ComputeArguments& args);
  std::string style() const override { return "temp/deform"; }
  Bias bias(Simulation& sim) const override;
};

// The streaming velocity at Cartesian position x of a box deforming at `rate` (LAMMPS's
// ComputeTempDeform bias): the fractional position through the box's matrix, times h_rate,
// plus h_ratelo.
std::array<double, 3> streaming_velocity(const BoxMatrix& box, const std::array<double, 6>& h_rate,
                                         const std::array<double, 3>& h_ratelo, const double* x);

}  // namespace tessera::md
