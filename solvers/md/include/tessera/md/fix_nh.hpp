// fix ID all nvt|npt|nph|nvt/sllod ...: Nose-Hoover thermostat and barostat chains (Martyna, Tobias
// and Klein 1994; Martyna, Tuckerman, Tobias and Klein 1996, Mol. Phys. 87, 1117; Shinoda, Shiga
// and Mikami 2004) integrated as LAMMPS's FixNH does, with velocity Verlet, so that its thermo
// digits are LAMMPS's:
//   nvt  temp T0 T1 TDAMP
//   npt  temp T0 T1 TDAMP  and a barostat (iso|aniso P0 P1 PDAMP, or x|y|z P0 P1 PDAMP each)
//   nph  a barostat alone (its masses from the temperature at the first run's setup)
//   nvt/sllod  temp T0 T1 TDAMP: LAMMPS's FixNVTSllod for shear flow under fix deform (remap v):
//        the thermostat acts on the velocities less the box's streaming velocity (compute
//        temp/deform's bias), with the SLLOD correction -dt/2 h_rate h^-1 v_thermal at each
//        half-step (Evans and Morriss 1984, Phys. Rev. A 30, 1528), tloop 1
// with LAMMPS's keywords couple xyz|xy|yz|xz|none, drag, dilate all, tchain, pchain, mtk,
// tloop, ploop, fixedpoint (nreset, update, ext, ptemp and disc are refused). Targets ramp
// from the start to the stop value over the run (or its start/stop span).
// In a triclinic box the barostat also steers the cell's shape, as LAMMPS's pstyle TRICLINIC:
//   tri P0 P1 PDAMP  x, y, z at P and the shear stresses at zero (6 degrees of freedom)
//   xy|xz|yz P0 P1 PDAMP  one shear stress each (with x, y, z: the full target stress)
// the tilts' rates kicked by the shear pressures and the deviatoric strain (Shinoda et al.), the
// velocities given the cross terms of h_dot h^-1, and the box flipped to its equivalent once a
// tilt passes 0.6 of its length (flip yes|no, at the next neighbor-list build). With x, y or z
// alone the tilts follow their lengths (scalexy, scalexz, scaleyz yes|no; on by default for a
// tilt that is not zero along a periodic dimension, as LAMMPS's).
//
// Units: temperatures in temperature units, pressures in pressure units, damping periods in
// time units (units.hpp). The fix's global scalar (f_ID) is the energy of its chains and
// barostat, extensive, as LAMMPS's compute_scalar; its vector has LAMMPS's layout.
//
// fix_modify ID temp CID makes the thermostat and the barostat's kinetic part read the
// temperature compute CID instead of group all's (LAMMPS's FixNH::modify_param; a warning when
// CID is not of group all): its scalar and degrees of freedom, its kinetic tensor for a
// barostat that is not iso. The thermostat then scales the atoms in a superstep of its own
// where it would scale them lazily, and the step's second half (the barostat's velocity
// half-step, the temperature and pressure, the chains) is done in end_of_integrate, before the
// other fixes' end_of_step, in LAMMPS's order. A bias (temp/partial's components, or a
// profile: temp/ramp, temp/deform, viscosity/cos) is left out of the thermostat's and the
// barostat's velocity scaling and restored after it, as LAMMPS's remove_bias_all and
// restore_bias_all; a profile is the compute's at its last scalar, measured again before the
// barostat's second velocity half-step at a step that built the neighbor lists (LAMMPS's
// FixNH::final_integrate for a biased temperature).
//
// When each part runs (fix.hpp): the chains' half-steps, the barostat's half-step and the box's
// new size are worked out on the host before the step's first superstep (pre_integrate), from
// the velocities then (one reduction of their kinetic tensor, as LAMMPS's temperature compute)
// and the virial of the previous step's forces; each tile then scales, kicks and moves its atoms
// and dilates them with the box (initial_integrate). After the forces, each tile kicks and
// scales (final_integrate); the second half-steps follow from the step's kinetic and virial
// sums (end_of_step), the thermostat's velocity factor applied lazily.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tessera/md/barostat.hpp"
#include "tessera/md/compute_temp_deform.hpp"
#include "tessera/md/domain.hpp"
#include "tessera/md/fix.hpp"
#include "tessera/md/fix_temperature.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

class FixNH final : public Fix {
 public:
  // `style`: nvt, npt or nph, as registered (fix_styles()).
  FixNH(const FixArguments& a, std::string style);
  std::string style() const override { return style_; }
  bool integrates() const override { return true; }
  bool needs_step_velocities() const override { return true; }
  bool needs_energy() const override { return barostat_; }
  bool changes_box() const override { return barostat_; }
  void setup(Simulation& sim) override;
  void continue_run(Simulation& sim) override;
  void pre_integrate(Simulation& sim) override;
  void initial_integrate(FixTile& t) override;
  void final_integrate(FixTile& t) override;
  void end_of_integrate(Simulation& sim) override;
  void end_of_step(Simulation& sim) override;
  void pre_exchange(Simulation& sim) override;
  std::size_t modify(Simulation& sim, const std::vector<std::string>& words,
                     std::size_t at) override;

  bool has_scalar() const override { return true; }
  bool couples_energy() const override { return true; }
  bool extensive_scalar() const override { return true; }
  double scalar(Simulation& sim) override;
  std::size_t vector_size() const override;
  std::vector<double> vector(Simulation& sim) override;

  // What LAMMPS's FixNH::write_restart keeps for a fix defined again after read_restart: the
  // thermostat chain's positions and velocities (taken when the new fix has as many links), the
  // barostat's omega, omega_dot, vol0, t0, its chain (when as long) and h0_inv.
  nlohmann::json global_state() const override;
  void restore_state(const nlohmann::json& state, const std::string& where) override;
  nlohmann::json restart_section() const override;
  void restore(const nlohmann::json& section, const detail::RestartHeader& header,
               const std::string& where) override;

 private:
  void parse(const FixArguments& a);
  void check(const FixArguments& a) const;
  void compute_temp_target(const Simulation& sim);
  void compute_press_target(const Simulation& sim);
  // p_current from the kinetic tensor (mvv2e sum m v v, xx yy zz xy xz yz) and the virial, as
  // LAMMPS's compute pressure and FixNH::couple.
  // `t`: the temperature of an iso barostat's pressure (by default group all's of ke_tensor).
  void couple(const Simulation& sim, const std::array<double, 6>& ke_tensor,
              const std::array<double, 6>& virial, std::optional<double> t = std::nullopt);
  // fix_modify temp: whether it was given, and the compute it names, or nullptr (group all's
  // kinetic sums).
  bool reads_compute() const { return !temperature_.id().empty(); }
  Compute* temperature(Simulation& sim);
  // The degrees of freedom of the fix's temperature now.
  double temperature_dof(Simulation& sim);
  // The barostat's pressure from fix_modify temp's compute `temp` and the virial: from the
  // temperature `t` when iso, else from the compute's kinetic tensor (LAMMPS's pressure compute
  // on the fix's temperature).
  void couple_with(Simulation& sim, Compute& temp, double t);
  void init_masses(Simulation& sim, double t_current);
  void nhc_temp_integrate(const Simulation& sim);
  void nhc_press_integrate(const Simulation& sim);
  void nh_omega_dot(const Simulation& sim);
  // Half a step of the box under omega_dot (LAMMPS's FixNH::remap on the box alone). Throws a
  // collective Error when a tilt passes 1.5 of its length.
  Box remapped(const Simulation& sim, const Box& box);
  // The barostat's half-step on one velocity (LAMMPS's nh_v_press), with this step's factors.
  void press_velocity(double* v, const double* x, double dt) const;
  void compute_sigma();
  // LAMMPS's compute_deviatoric: h sigma h^T of the box now (Voigt).
  std::array<double, 6> deviatoric(const Box& box) const;
  double strain_energy(const Simulation& sim) const;
  // Whether Voigt component i (xx yy zz yz xz xy) is steered: LAMMPS's p_flag[i].
  bool steered(std::size_t i) const { return i < 3 ? pressure_.flag[i] != 0 : tilt_.flag[i - 3] != 0; }
  double p_freq(std::size_t i) const {
    return 1.0 / (i < 3 ? pressure_.period[i] : tilt_.period[i - 3]);
  }
  double p_freq_max() const;
  // LAMMPS's pstyle TRICLINIC: a tilt is steered.
  bool triclinic() const { return tilt_.any(); }
  // The barostat's degrees of freedom: 3 diagonal components, and 3 tilts when triclinic.
  std::size_t omegas() const { return triclinic() ? 6 : 3; }
  // nvt/sllod (LAMMPS's FixNVTSllod): the SLLOD velocity half-steps.
  void prepare_sllod(const Simulation& sim);
  void sllod_velocities(FixTile& t) const;

  std::string style_;
  bool thermostat_ = false, barostat_ = false, sllod_ = false;
  FixTemperature temperature_;  // fix_modify temp
  std::function<void(const std::string&)> print_;
  // What the barostat's velocity half-steps leave out (the fix_modify temperature's bias).
  VelocityBias press_bias_;
  bool t_current_pending_ = false;  // nvt/sllod: its temperature taken at the first step
  std::unique_ptr<ComputeTempDeform> deform_temp_;  // nvt/sllod's temperature
  Box sllod_box_;
  Simulation::BoxRate sllod_rate_;
  std::array<double, 6> h_two_{};
  double t_start_ = 0, t_stop_ = 0, t_period_ = 0;
  PressureSettings pressure_;
  bool iso_ = false;  // LAMMPS's pstyle ISO (PressureSettings::iso)
  bool mtk_ = true;
  double drag_ = 0;
  int mtchain_ = 3, mpchain_ = 3, nc_tchain_ = 1, nc_pchain_ = 1;

  // Thermostat chain (one dummy link past the end of the dots, always zero).
  std::vector<double> eta_, eta_dot_, eta_dotdot_, eta_mass_;
  double t_target_ = 0, ke_target_ = 0, tdof_ = 0;
  double t_current_ = 0;   // after the last half-step's scaling
  double factor_eta_ = 1;  // this step's first half-step factor, applied in initial_integrate
  // The shear settings (yz, xz, xy: Voigt components 3..5), from tri, yz, xz, xy.
  struct TiltSettings {
    std::array<double, 3> start{}, stop{}, period{};
    std::array<int, 3> flag{};
    bool any() const { return flag[0] || flag[1] || flag[2]; }
  } tilt_;
  std::array<int, 3> scale_{};      // scaleyz, scalexz, scalexy
  bool flip_allowed_ = true;        // flip yes|no
  bool flip_watch_ = false;         // LAMMPS's pre_exchange_flag
  // Barostat (Voigt order xx yy zz yz xz xy), its chain and the reference cell.
  std::array<double, 6> omega_{}, omega_dot_{}, omega_mass_{}, p_target_{}, p_current_{};
  std::array<double, 6> sigma_{}, h0_inv_{};
  std::array<double, 3> fixedpoint_{};
  std::vector<double> etap_, etap_dot_, etap_dotdot_, etap_mass_;
  double p_hydro_ = 0, vol0_ = 0, t0_ = 0, mtk_term2_ = 0;
  std::array<double, 6> virial_{};       // of the last forces
  // A fix after this one changes its virial at its end_of_step (fix rattle's constraint
  // forces): the step's first pressure reads the virial again, as LAMMPS's does.
  bool virial_changes_after_ = false;
  std::array<double, 3> mvv_current_{};  // the kinetic tensor's diagonal at the last pressure
  // This step's boxes (before, after the first half-remap, after the second) and the velocity
  // factors of its barostat half-steps, for the tiles.
  std::array<Box, 3> boxes_{};
  std::array<double, 3> factor_press_{1, 1, 1};
};

}  // namespace tessera::md
