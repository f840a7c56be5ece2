// fix ID GROUP heat N EFLUX [region ID]: LAMMPS's FixHeat (Jund and Jullien's momentum-conserving
// velocity rescaling, Phys. Rev. B 59, 13707 (1999)). Every N steps (end_of_step) it adds
// EFLUX * N * dt of kinetic energy (energy/time units; negative removes it) to the group's atoms
// (those inside the region now, where one is named): their velocities are scaled about the
// centre-of-mass velocity, which stays as it was. EFLUX is a number or v_NAME of an equal-style
// variable, evaluated at each application; atom-style EFLUX is refused. Its scalar (f_ID) is the
// last scale factor, as LAMMPS's. A kinetic energy that would go negative stops the run.
#pragma once

#include <memory>

#include "tessera/md/fix.hpp"

namespace tessera::md {

class FixHeat final : public Fix {
 public:
  explicit FixHeat(const FixArguments& a);
  std::string style() const override { return "heat"; }
  bool needs_step_velocities() const override { return true; }
  bool restartable() const override { return false; }  // as LAMMPS's: no restart state
  int end_of_step_every() const override { return every_; }
  void end_of_step(Simulation& sim) override;
  bool has_scalar() const override { return true; }
  double scalar(Simulation&) override { return scale_; }

 private:
  int every_ = 1;
  double flux_ = 0;
  std::string flux_variable_;
  std::function<double(const std::string&)> variable_;
  std::shared_ptr<const Region> region_;
  double scale_ = 1.0;
};

}  // namespace tessera::md
