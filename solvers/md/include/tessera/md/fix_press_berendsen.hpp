// fix ID all press/berendsen iso|aniso P0 P1 PDAMP | x|y|z P0 P1 PDAMP ... [couple xyz|xy|yz|xz|
//   none] [modulus B] [dilate all]: LAMMPS's FixPressBerendsen (Berendsen et al. 1984, J. Chem.
// Phys. 81, 3684). At the end of every step each barostatted length is scaled by
// (1 - dt/PDAMP (P_target - P)/B)^(1/3), about the box's centre, and every atom with it; the
// target goes from P0 to P1 over the run, B (the bulk modulus, pressure units) is 10 unless
// `modulus` says otherwise. The pressure is LAMMPS's compute pressure with a compute temp of all.
// Use it with an integrator (fix nve, or fix nvt / temp/berendsen for the temperature).
#pragma once

#include "tessera/md/barostat.hpp"
#include "tessera/md/fix.hpp"

namespace tessera::md {

class FixPressBerendsen final : public Fix {
 public:
  explicit FixPressBerendsen(const FixArguments& a);
  std::string style() const override { return "press/berendsen"; }
  bool needs_step_velocities() const override { return true; }
  bool needs_energy() const override { return true; }
  bool changes_box() const override { return true; }
  void end_of_step(Simulation& sim) override;
  nlohmann::json restart_section() const override;
  void restore(const nlohmann::json& section, const detail::RestartHeader& header,
               const std::string& where) override;

 private:
  PressureSettings pressure_;
  double modulus_ = 10.0;
};

}  // namespace tessera::md
