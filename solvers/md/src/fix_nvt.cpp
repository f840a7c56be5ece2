#include "tessera/md/fix_nvt.hpp"

#include <cmath>

#include "arguments.hpp"
#include "restart_header.hpp"
#include "tessera/md/fix_nve.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {
using namespace arguments;

FixNVT::FixNVT(const FixArguments& a) : Fix(a.id, a.group) {
  // Its temperature is all atoms' (compute temp of group all).
  if (a.group != "all")
    throw ConfigError("fix " + a.id + " nvt: md_ipu thermostats the group all only");
  if (a.from_restart) return;
  const char* usage = "fix ID all nvt temp T0 T1 TDAMP";
  need(a.args, 4, usage);
  if (a.args[0] != "temp") bad("fix nvt: expected 'temp T0 T1 TDAMP'");
  if (a.args.size() > 4) bad("fix nvt: options after TDAMP (tchain, drag, ...) are not supported");
  t_start_ = number("fix nvt", a.args[1]);
  t_stop_ = number("fix nvt", a.args[2]);
  t_damp_ = number("fix nvt", a.args[3]);
  if (!(t_start_ > 0) || !(t_stop_ > 0))
    throw ConfigError("fix " + id() + " nvt: temperatures must be positive");
  if (!(t_damp_ > 0)) throw ConfigError("fix " + id() + " nvt: Tdamp must be positive");
}

double FixNVT::target(const Simulation& sim) const {
  return t_start_ + sim.ramp_fraction() * (t_stop_ - t_start_);
}

void FixNVT::init_chain_forces(const Simulation& sim) {
  const double t_target = target(sim);
  const double t_freq = 1.0 / t_damp_, boltz = sim.units().boltz;
  const double mass_first = sim.dof() * boltz * t_target / (t_freq * t_freq);
  const double mass_rest = boltz * t_target / (t_freq * t_freq);
  for (std::size_t k = 1; k < eta_dot_.size(); ++k) {
    const double mass_before = k == 1 ? mass_first : mass_rest;
    eta_dotdot_[k] =
        (mass_before * eta_dot_[k - 1] * eta_dot_[k - 1] - boltz * t_target) / mass_rest;
  }
}

void FixNVT::setup(Simulation& sim) {
  t_current_ = sim.temperature_now();
  init_chain_forces(sim);
}

// A ramp starts again at each run, as LAMMPS's setup has it.
void FixNVT::continue_run(Simulation& sim) { init_chain_forces(sim); }

void FixNVT::pre_integrate(Simulation& sim) { factor_ = half_step(sim, t_current_); }

void FixNVT::initial_integrate(FixTile& t) { kick_and_drift(*this, t, factor_); }

void FixNVT::final_integrate(FixTile& t) { half_kick(*this, t); }

void FixNVT::end_of_step(Simulation& sim) {
  sim.scale_velocities(half_step(sim, sim.step_temperature()));
}

// LAMMPS's FixNH::nhc_temp_integrate (3 links, one sub-cycle).
double FixNVT::half_step(const Simulation& sim, double t_current) {
  const double t_target = target(sim);
  const double tdof = sim.dof(), boltz = sim.units().boltz, dt = sim.timestep();
  const double t_freq = 1.0 / t_damp_;
  const double dthalf = 0.5 * dt, dt4 = 0.25 * dt, dt8 = 0.125 * dt;
  constexpr std::size_t m = 3;
  std::array<double, m> eta_mass{};
  eta_mass[0] = tdof * boltz * t_target / (t_freq * t_freq);
  for (std::size_t k = 1; k < m; ++k) eta_mass[k] = boltz * t_target / (t_freq * t_freq);
  const double ke_target = tdof * boltz * t_target;
  double kecurrent = tdof * boltz * t_current;
  eta_dotdot_[0] = eta_mass[0] > 0 ? (kecurrent - ke_target) / eta_mass[0] : 0.0;
  auto dot = [&](std::size_t k) { return k < m ? eta_dot_[k] : 0.0; };
  for (std::size_t k = m - 1; k > 0; --k) {
    const double expfac = std::exp(-dt8 * dot(k + 1));
    eta_dot_[k] *= expfac;
    eta_dot_[k] += eta_dotdot_[k] * dt4;
    eta_dot_[k] *= expfac;
  }
  double expfac = std::exp(-dt8 * eta_dot_[1]);
  eta_dot_[0] *= expfac;
  eta_dot_[0] += eta_dotdot_[0] * dt4;
  eta_dot_[0] *= expfac;
  const double factor_eta = std::exp(-dthalf * eta_dot_[0]);
  t_current *= factor_eta * factor_eta;
  kecurrent = tdof * boltz * t_current;
  eta_dotdot_[0] = eta_mass[0] > 0 ? (kecurrent - ke_target) / eta_mass[0] : 0.0;
  for (std::size_t k = 0; k < m; ++k) eta_[k] += dthalf * eta_dot_[k];
  eta_dot_[0] *= expfac;
  eta_dot_[0] += eta_dotdot_[0] * dt4;
  eta_dot_[0] *= expfac;
  for (std::size_t k = 1; k < m; ++k) {
    expfac = std::exp(-dt8 * dot(k + 1));
    eta_dot_[k] *= expfac;
    eta_dotdot_[k] =
        (eta_mass[k - 1] * eta_dot_[k - 1] * eta_dot_[k - 1] - boltz * t_target) / eta_mass[k];
    eta_dot_[k] += eta_dotdot_[k] * dt4;
    eta_dot_[k] *= expfac;
  }
  t_current_ = t_current;
  return factor_eta;
}

nlohmann::json FixNVT::restart_section() const {
  return {{"t_start", t_start_}, {"t_stop", t_stop_},   {"t_damp", t_damp_},
          {"eta", eta_},         {"eta_dot", eta_dot_}, {"eta_dotdot", eta_dotdot_}};
}

void FixNVT::restore(const nlohmann::json& v, const detail::RestartHeader& r,
                     const std::string& where) {
  using Sign = detail::RestartHeader::Sign;
  const auto real = [&](const char* key, Sign sign) {
    return r.real(r.at(v, key, where + "." + key), where + "." + key, sign, "fix nvt");
  };
  t_start_ = real("t_start", Sign::positive);
  t_stop_ = real("t_stop", Sign::positive);
  t_damp_ = real("t_damp", Sign::positive);
  eta_ = r.triple(r.at(v, "eta", where + ".eta"), where + ".eta");
  eta_dot_ = r.triple(r.at(v, "eta_dot", where + ".eta_dot"), where + ".eta_dot");
  eta_dotdot_ = r.triple(r.at(v, "eta_dotdot", where + ".eta_dotdot"), where + ".eta_dotdot");
}

}  // namespace tessera::md
