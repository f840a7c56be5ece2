// fix ID GROUP accelerate/cos A: LAMMPS's FixAccelerateCos (EXTRA-FIX; Zheng Gong), the periodic
// perturbation of Hess (2002, J. Chem. Phys. 116, 209) for shear viscosity: each atom of the
// group is accelerated along x by A cos(2 pi (z - zlo) / Lz) (A in distance/time^2), a force
// of that times m mvv2e added in post_force (and in a run's setup), with the box as it is at
// the step. compute viscosity/cos measures the flow it drives. 3-d only; no energy or virial, as
// LAMMPS's; not in minimizations.
#pragma once

#include "tessera/md/fix.hpp"

namespace tessera::md {

class FixAccelerateCos final : public Fix {
 public:
  explicit FixAccelerateCos(const FixArguments& a);
  std::string style() const override { return "accelerate/cos"; }
  void pre_force(Simulation& sim) override;
  void post_force(FixTile& t) override;
  nlohmann::json restart_section() const override;
  void restore(const nlohmann::json& section, const detail::RestartHeader& header,
               const std::string& where) override;

 private:
  double acceleration_ = 0;  // distance/time^2
  double mvv2e_ = 1;
  double zlo_ = 0, zhi_ = 1;  // the box along z at this step's forces
};

}  // namespace tessera::md
