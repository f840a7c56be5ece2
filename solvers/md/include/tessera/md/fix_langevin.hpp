// fix ID GROUP langevin T0|v_NAME T1 DAMP SEED [tally yes|no] [zero no]: Langevin forces, as
// LAMMPS's FixLangevin:
//   f += -m/damp v + sqrt(24 kB T m / (damp dt)) (u - 1/2),  u uniform in (0, 1),
// in post_force (and in a run's setup), with T going from T0 to T1 over the run, or T the value
// of the equal-style variable NAME at each force computation (T1 then unused, as LAMMPS's;
// restart files refuse it). Each atom draws
// from its own Park-Miller stream, seeded from (SEED, atom id) when the fix is defined and
// carried with the atom (restart files keep it), so that the noise does not depend on which
// tile holds the atom. Needs an integrating fix (nve or nvt).
//
// tally yes: the scalar (f_ID, extensive, energy units) is the energy the thermostat has taken
// out of the atoms since the run began, -sum over steps of dt sum_i f_langevin,i . v_i, counted
// from the half step before the run's first as LAMMPS counts it (0 at the first step). With
// fix_modify temp of a temp/partial compute the forces act on its components; of a temp/region
// compute, only on the atoms inside its region; of a profile (temp/ramp, temp/deform,
// viscosity/cos), the drag acts on the velocity less the profile, evaluated before each force
// computation (LAMMPS's bias).
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <vector>

#include "tessera/md/compute_temp.hpp"
#include "tessera/md/fix.hpp"

namespace tessera::md {

class FixLangevin final : public Fix {
 public:
  explicit FixLangevin(const FixArguments& a);
  std::string style() const override { return "langevin"; }
  void start_atoms(FixTile& t) override;
  void post_force(FixTile& t) override;
  // fix_modify ID temp CID: a temperature with a bias, as LAMMPS's Tp_BIAS: the drag and the
  // noise act only on the components it counts, the atoms in its region, the velocity less its
  // profile.
  std::size_t modify(Simulation& sim, const std::vector<std::string>& words,
                     std::size_t at) override;
  // tally yes: the energy taken out (see above).
  bool has_scalar() const override { return tally_; }
  bool couples_energy() const override { return true; }
  bool extensive_scalar() const override { return true; }
  bool needs_step_velocities() const override { return tally_; }
  void setup(Simulation& sim) override;
  void continue_run(Simulation& sim) override { setup(sim); }
  void pre_force(Simulation& sim) override;
  void end_of_step(Simulation& sim) override;
  double scalar(Simulation& sim) override;
  std::string restart_refusal() const override;
  nlohmann::json restart_section() const override;
  void restore(const nlohmann::json& section, const detail::RestartHeader& header,
               const std::string& where) override;

 private:
  void check(const std::string& what) const;
  double t_start_ = 0, t_stop_ = 0, damp_ = 0;
  int seed_ = 0;
  // The power f_langevin . v summed over the group's atoms now (collective; tally yes).
  double power(Simulation& sim) const;

  std::string variable_name_;  // T0 given as v_NAME
  std::function<double(const std::string&)> variable_;
  double target_ = 0;                              // its value at this force computation
  std::array<bool, 3> thermal_{true, true, true};  // the components it acts on
  std::shared_ptr<const Region> region_;           // only the atoms inside, when set
  std::string profile_;  // fix_modify temp of a ComputeTempProfile: its ID
  VelocityBias bias_;    // its profile at this force computation (none without one)
  bool tally_ = false;
  // tally yes: each tile's Langevin forces of the last post_force (3 per atom, by tile id), the
  // energy added since the half step before the run (LAMMPS's energy) and the last step's power.
  std::vector<std::vector<double>> forces_;
  double energy_ = 0, power_ = 0;
};

}  // namespace tessera::md
