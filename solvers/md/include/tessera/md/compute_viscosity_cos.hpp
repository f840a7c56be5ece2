// compute ID GROUP viscosity/cos: LAMMPS's ComputeViscosityCos (EXTRA-COMPUTE; Zheng Gong), the
// temperature of the group under a periodic cosine flow along x, for the periodic-perturbation
// viscosity method (Hess 2002, J. Chem. Phys. 116, 209) driven by fix accelerate/cos. Its
// scalar measures the flow's amplitude from the velocities now,
//   V = sum 2 m v_x cos(2 pi (z - zlo) / Lz) / sum m,
// and is the temperature of what remains: each atom's v_x less V cos(2 pi (z - zlo) / Lz),
// dof = dimension N - extra - the fixes' (as compute temp). Its vector (7) is the kinetic tensor
// of the remaining velocities (xx yy zz xy xz yz, energy units, extensive) and V (velocity
// units, intensive) as measured at the last scalar, as LAMMPS's compute_vector does not measure
// it again. The flow is a per-atom bias: thermo_modify temp, compute pressure and the
// thermostats (fix_modify temp) take it. Host side, collective.
#pragma once

#include <cmath>
#include <numbers>

#include "tessera/md/compute_temp.hpp"

namespace tessera::md {

// The cosine flow's shape at height z in a box from zlo to zhi, cos(2 pi (z - zlo) / (zhi -
// zlo)) in LAMMPS's order of operations: fix accelerate/cos drives the flow with it, compute
// viscosity/cos measures it.
inline double cosine_flow(double z, double zlo, double zhi) {
  return std::cos(2.0 * std::numbers::pi * (z - zlo) / (zhi - zlo));
}

class ComputeViscosityCos final : public ComputeTempProfile {
 public:
  explicit ComputeViscosityCos(const ComputeArguments& args);
  std::string style() const override { return "viscosity/cos"; }
  std::size_t vector_size() const override { return 7; }
  bool extensive_vector(std::size_t k) const override { return k < 6; }
  double scalar(Simulation& sim) override;
  std::vector<double> vector(Simulation& sim) override;
  Bias bias(Simulation& sim) const override;

 private:
  double amplitude_ = 0;  // V at the last scalar (velocity units)
};

}  // namespace tessera::md
