// fix ID GROUP controller NEVERY ALPHA KP KI KD PVAR SETPOINT CVAR: LAMMPS's FixController, a
// PID controller. Every NEVERY steps the process value PVAR (c_ID, c_ID[N], f_ID, f_ID[N] or v_NAME
// of an equal-style variable) is compared with SETPOINT and the internal-style variable CVAR
// (which other fixes read as v_CVAR, e.g. a wall's position or a thermostat's temperature) is
// changed, with tau = NEVERY dt, e = PVAR - SETPOINT, its sum S and its change D since the last
// sample (both 0 at the first):
//   CVAR += -KP ALPHA tau e - KI ALPHA tau^2 S - KD ALPHA D
// (LAMMPS's signs). Outputs: f_ID[1..3] the three terms at the last sample (intensive, current
// every NEVERY steps). Restart files do not keep it, as LAMMPS's do not.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "tessera/md/fix.hpp"
#include "tessera/md/output_reference.hpp"

namespace tessera::md {

class FixController final : public Fix {
 public:
  explicit FixController(const FixArguments& a);
  std::string style() const override { return "controller"; }
  bool needs_step_velocities() const override { return true; }
  bool needs_energy() const override { return true; }
  bool restartable() const override { return false; }
  int end_of_step_every() const override { return every_; }
  int global_frequency() const override { return every_; }
  void setup(Simulation& sim) override;
  void end_of_step(Simulation& sim) override;
  std::size_t vector_size() const override { return 3; }
  std::vector<double> vector(Simulation& sim) override;

 private:
  std::function<double(const std::string&)> variable_;
  std::function<void(const std::string&, double)> set_internal_;
  int every_ = 1;
  double alpha_ = 0, kp_ = 0, ki_ = 0, kd_ = 0, setpoint_ = 0, tau_ = 0;
  std::string process_text_, process_variable_, control_;
  std::optional<OutputReference> process_;
  double control_value_ = 0, error_ = 0, sum_ = 0, change_ = 0, last_error_ = 0;
  bool first_ = true;
};

}  // namespace tessera::md
