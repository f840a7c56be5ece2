// fix ID GROUP temp/berendsen TSTART TSTOP TDAMP: LAMMPS's FixTempBerendsen (Berendsen, Postma,
// van Gunsteren, DiNola and Haak 1984, J. Chem. Phys. 81, 3684). At the end of every step the
// group's velocities are scaled by lamda = sqrt(1 + dt/TDAMP (T_target/T - 1)), the target going
// from TSTART to TSTOP over the run. The temperature is a compute temp of the fix's group, or the
// compute fix_modify temp names. Its scalar f_ID is the cumulative energy it removed
// (extensive), as LAMMPS's. Use it with an integrator (fix nve).
#pragma once

#include "tessera/md/fix.hpp"
#include "tessera/md/fix_temperature.hpp"

namespace tessera::md {

class FixTempBerendsen final : public Fix {
 public:
  explicit FixTempBerendsen(const FixArguments& a);
  std::string style() const override { return "temp/berendsen"; }
  bool needs_step_velocities() const override { return true; }
  std::size_t modify(Simulation& sim, const std::vector<std::string>& words,
                     std::size_t at) override;
  void end_of_step(Simulation& sim) override;
  bool has_scalar() const override { return true; }
  bool couples_energy() const override { return true; }
  bool extensive_scalar() const override { return true; }
  double scalar(Simulation& /*sim*/) override { return energy_; }
  // LAMMPS's restart_global: a fix defined again after read_restart continues the energy.
  nlohmann::json global_state() const override { return {{"energy", energy_}}; }
  void restore_state(const nlohmann::json& state, const std::string& /*where*/) override {
    energy_ = state.at("energy").get<double>();
  }
  nlohmann::json restart_section() const override;
  void restore(const nlohmann::json& section, const detail::RestartHeader& header,
               const std::string& where) override;

 private:
  double t_start_ = 0, t_stop_ = 0, t_period_ = 0;
  FixTemperature temperature_;
  double energy_ = 0;
};

}  // namespace tessera::md
