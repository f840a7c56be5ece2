// fix ID GROUP temp/rescale N TSTART TSTOP WINDOW FRACTION: LAMMPS's FixTempRescale. Every N
// steps (end_of_step), when the group's temperature is more than WINDOW from the target (TSTART
// to TSTOP over the run), the group's velocities are scaled to move it FRACTION of the way to
// the target. The temperature is a compute temp of the fix's group, or the compute fix_modify
// temp names (whose bias is not removed: md_ipu's temperatures have none).
#pragma once

#include "tessera/md/fix.hpp"
#include "tessera/md/fix_temperature.hpp"

namespace tessera::md {

class FixTempRescale final : public Fix {
 public:
  explicit FixTempRescale(const FixArguments& a);
  std::string style() const override { return "temp/rescale"; }
  bool needs_step_velocities() const override { return true; }
  int end_of_step_every() const override { return every_; }
  // f_ID: the cumulative energy it removed (extensive), as LAMMPS's compute_scalar.
  bool has_scalar() const override { return true; }
  bool extensive_scalar() const override { return true; }
  double scalar(Simulation& /*sim*/) override { return energy_; }
  bool couples_energy() const override { return true; }
  std::size_t modify(Simulation& sim, const std::vector<std::string>& words,
                     std::size_t at) override;
  void end_of_step(Simulation& sim) override;
  // LAMMPS's restart_global: a fix defined again after read_restart continues the energy.
  nlohmann::json global_state() const override { return {{"energy", energy_}}; }
  void restore_state(const nlohmann::json& state, const std::string& /*where*/) override {
    energy_ = state.at("energy").get<double>();
  }
  nlohmann::json restart_section() const override;
  void restore(const nlohmann::json& section, const detail::RestartHeader& header,
               const std::string& where) override;

 private:
  int every_ = 1;
  double t_start_ = 0, t_stop_ = 0, window_ = 0, fraction_ = 1;
  FixTemperature temperature_;
  double energy_ = 0;  // removed from the group, LAMMPS's cumulative energy change
};

}  // namespace tessera::md
