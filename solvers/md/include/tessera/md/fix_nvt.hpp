// fix ID all nvt temp T0 T1 TDAMP: a Nose-Hoover chain of 3 thermostats (Martyna, Tuckerman and
// Klein 1996) in the form LAMMPS's FixNH integrates it (one sub-cycle, chain masses from the
// target temperature at each half-step), with velocity Verlet. The target goes from T0 to T1
// over the run (or its start/stop span). The chain's half-steps come before the first
// half-kick (pre_integrate) and after the second (end_of_step, from the step's kinetic
// energy); the velocity factor of the second is applied lazily (Simulation::scale_velocities).
#pragma once

#include <array>

#include "tessera/md/fix.hpp"

namespace tessera::md {

class FixNVT final : public Fix {
 public:
  explicit FixNVT(const FixArguments& a);
  std::string style() const override { return "nvt"; }
  bool integrates() const override { return true; }
  bool needs_step_kinetic_energy() const override { return true; }
  void setup(Simulation& sim) override;
  void continue_run(Simulation& sim) override;
  void pre_integrate(Simulation& sim) override;
  void initial_integrate(FixTile& t) override;
  void final_integrate(FixTile& t) override;
  void end_of_step(Simulation& sim) override;
  nlohmann::json restart_section() const override;
  void restore(const nlohmann::json& section, const detail::RestartHeader& header,
               const std::string& where) override;

 private:
  double target(const Simulation& sim) const;
  // As LAMMPS's FixNH::setup: the forces on links 1.. follow from their velocities and the
  // target at the run's first step.
  void init_chain_forces(const Simulation& sim);
  // One half-step of the chain at temperature t_current; returns the velocity factor.
  double half_step(const Simulation& sim, double t_current);

  double t_start_ = 0, t_stop_ = 0, t_damp_ = 0;
  std::array<double, 3> eta_{}, eta_dot_{}, eta_dotdot_{};
  double t_current_ = 0;  // after the last half-step's scaling
  double factor_ = 1.0;   // this step's first half-step factor, applied in initial_integrate
};

}  // namespace tessera::md
