#include "tessera/md/fix_nh.hpp"

#include <algorithm>
#include <cmath>

#include "arguments.hpp"
#include "restart_header.hpp"
#include "tessera/md/barostat.hpp"
#include "tessera/md/compute_temp_deform.hpp"
#include "tessera/md/fix_deform.hpp"
#include "tessera/md/fix_nve.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {
using namespace arguments;

FixNH::FixNH(const FixArguments& a, std::string style)
    : Fix(a.id, a.group), style_(std::move(style)) {
  const std::string what = "fix " + a.id + " " + style_;
  // Its temperature is all atoms' (compute temp of group all) and it dilates them all.
  if (a.group != "all") throw ConfigError(what + ": md_ipu thermostats the group all only");
  if (!a.from_restart) {
    parse(a);
    check(a);
  }
  if (style_ != "nph") thermostat_ = true;
  sllod_ = style_ == "nvt/sllod";
  barostat_ = style_ == "npt" || style_ == "nph";
  eta_.assign(static_cast<std::size_t>(mtchain_), 0.0);
  eta_dot_.assign(static_cast<std::size_t>(mtchain_) + 1, 0.0);
  eta_dotdot_ = eta_mass_ = eta_;
  etap_.assign(static_cast<std::size_t>(mpchain_), 0.0);
  etap_dot_.assign(static_cast<std::size_t>(mpchain_) + 1, 0.0);
  etap_dotdot_ = etap_mass_ = etap_;
  iso_ = pressure_.iso(a.sim ? a.sim->dimension() : 3);
  if (a.sim && a.sim->has_box())
    for (std::size_t d = 0; d < 3; ++d)
      fixedpoint_[d] = 0.5 * (a.sim->box().lo[d] + a.sim->box().hi[d]);
}

void FixNH::parse(const FixArguments& a) {
  const std::string what = "fix " + a.id + " " + style_;
  const std::vector<std::string>& w = a.args;
  const int dimension = a.sim ? a.sim->dimension() : 3;
  auto need_values = [&](std::size_t at, std::size_t n) {
    if (at + n >= w.size())
      bad(what + ": " + w[at] + " needs " + std::to_string(n) + " value" + (n > 1 ? "s" : ""));
  };
  auto real = [&](std::size_t at) { return number(what + " " + w[at - 1], w[at]); };
  bool temp_given = false;
  for (std::size_t at = 0; at < w.size();) {
    const std::string& key = w[at];
    if (const std::size_t taken = pressure_.parse(w, at, dimension, what)) {
      at += taken;
    } else if (key == "temp") {
      need_values(at, 3);
      temp_given = true;
      t_start_ = number(what + " temp", w[at + 1]);
      t_stop_ = number(what + " temp", w[at + 2]);
      t_period_ = number(what + " temp", w[at + 3]);
      at += 4;
    } else if (key == "tri" || key == "xy" || key == "xz" || key == "yz" || key == "scalexy" ||
               key == "scalexz" || key == "scaleyz" || key == "flip") {
      bad(what + ": " + key + " needs a triclinic box, which md_ipu does not have yet");
    } else if (key == "drag") {
      need_values(at, 1);
      drag_ = real(at + 1);
      if (drag_ < 0) bad(what + ": drag must not be negative");
      at += 2;
    } else if (key == "tchain" || key == "pchain" || key == "tloop" || key == "ploop") {
      need_values(at, 1);
      const long long lo = key == "tchain" ? 1 : 0;
      const int n = static_cast<int>(integer(what + " " + key, w[at + 1], lo, 1000));
      if (key == "tchain") mtchain_ = n;
      if (key == "pchain") mpchain_ = n;
      if (key == "tloop") nc_tchain_ = n;
      if (key == "ploop") nc_pchain_ = n;
      at += 2;
    } else if (key == "mtk") {
      need_values(at, 1);
      mtk_ = yes_no(what + " mtk", w[at + 1]);
      at += 2;
    } else if (key == "nreset" || key == "fixedpoint" || key == "update" || key == "ext" ||
               key == "ptemp" || key == "disc") {
      bad(what + ": the keyword " + key + " is not supported by md_ipu");
    } else {
      bad(what + ": unknown keyword '" + key + "'");
    }
  }
  const bool nvt = style_ == "nvt" || style_ == "nvt/sllod";
  if (style_ == "nph" && temp_given) bad(what + ": nph takes no temp keyword (use npt)");
  if (style_ != "nph" && !temp_given) bad(what + ": " + style_ + " needs temp T0 T1 TDAMP");
  if (nvt && (pressure_.flag[0] || pressure_.flag[1] || pressure_.flag[2]))
    bad(what + ": " + style_ + " takes no pressure settings (use npt)");
  if (!nvt && !(pressure_.flag[0] || pressure_.flag[1] || pressure_.flag[2]))
    bad(what + ": " + style_ + " needs pressure settings (iso, aniso, or x, y, z)");
  if (style_ == "nvt/sllod" && nc_tchain_ != 1)
    bad(what + ": md_ipu's nvt/sllod takes tloop 1 only");
}

void FixNH::check(const FixArguments& a) const {
  const std::string what = "fix " + a.id + " " + style_;
  const int dimension = a.sim ? a.sim->dimension() : 3;
  if (style_ != "nph" && (!(t_start_ > 0) || !(t_stop_ > 0)))
    bad(what + ": temperatures must be positive");
  if (style_ != "nph" && !(t_period_ > 0)) bad(what + ": Tdamp must be positive");
  pressure_.check(a.sim, dimension, what);
}

void FixNH::compute_temp_target(const Simulation& sim) {
  t_target_ = t_start_ + sim.ramp_fraction() * (t_stop_ - t_start_);
  ke_target_ = tdof_ * sim.units().boltz * t_target_;
}

void FixNH::compute_press_target(const Simulation& sim) {
  const double delta = sim.ramp_fraction();
  p_hydro_ = 0;
  for (std::size_t i = 0; i < 3; ++i)
    if (pressure_.flag[i]) {
      p_target_[i] = pressure_.start[i] + delta * (pressure_.stop[i] - pressure_.start[i]);
      p_hydro_ += p_target_[i];
    }
  p_hydro_ /= pressure_.dimensions();
  if (pressure_.per_dimension) compute_sigma(sim);
}

// LAMMPS's FixNH::compute_sigma for an orthogonal cell: sigma = vol0 h0^-1 (p_target - p_hydro)
// h0^-T, whose off-diagonal terms are zero.
void FixNH::compute_sigma(const Simulation&) {
  for (std::size_t i = 0; i < 3; ++i)
    sigma_[i] = vol0_ * (h0_inv_[i] * ((p_target_[i] - p_hydro_) * h0_inv_[i]));
}

double FixNH::strain_energy(const Simulation& sim) const {
  const Box& b = sim.box();
  double sum = 0;
  for (int i = 0; i < 3; ++i) {
    const double h = b.length(i);
    sum += sigma_[static_cast<std::size_t>(i)] * (h * h);
  }
  return 0.5 * sum / sim.units().nktv2p;
}

void FixNH::couple(const Simulation& sim, const std::array<double, 6>& ke,
                   const std::array<double, 6>& virial) {
  for (std::size_t i = 0; i < 3; ++i) mvv_current_[i] = ke[i];
  p_current_ = coupled_pressure(sim, iso_, pressure_.coupling, tdof_, ke, virial,
                                "fix " + id() + " " + style_);
}

void FixNH::init_masses(const Simulation& sim, double t_current) {
  const double boltz = sim.units().boltz;
  tdof_ = sim.dof();
  if (thermostat_) {
    compute_temp_target(sim);
  } else {
    // LAMMPS's t0: the temperature at the first setup (a unit-dependent guess at zero), kept.
    if (t0_ == 0.0) t0_ = t_current > 0 ? t_current : (sim.units().style == "lj" ? 1.0 : 300.0);
    t_target_ = t0_;
  }
  if (thermostat_) {
    const double t_freq = 1.0 / t_period_;
    eta_mass_[0] = tdof_ * boltz * t_target_ / (t_freq * t_freq);
    for (std::size_t k = 1; k < eta_mass_.size(); ++k)
      eta_mass_[k] = boltz * t_target_ / (t_freq * t_freq);
    for (std::size_t k = 1; k < eta_mass_.size(); ++k)
      eta_dotdot_[k] =
          (eta_mass_[k - 1] * eta_dot_[k - 1] * eta_dot_[k - 1] - boltz * t_target_) / eta_mass_[k];
  }
  if (barostat_) {
    const double kt = boltz * t_target_;
    const double nkt = static_cast<double>(sim.natoms() + 1) * kt;
    double p_freq_max = 0;
    for (std::size_t i = 0; i < 3; ++i)
      if (pressure_.flag[i]) {
        const double p_freq = 1.0 / pressure_.period[i];
        omega_mass_[i] = nkt / (p_freq * p_freq);
        p_freq_max = std::max(p_freq_max, p_freq);
      }
    for (std::size_t k = 0; k < etap_mass_.size(); ++k)
      etap_mass_[k] = boltz * t_target_ / (p_freq_max * p_freq_max);
    for (std::size_t k = 1; k < etap_mass_.size(); ++k)
      etap_dotdot_[k] =
          (etap_mass_[k - 1] * etap_dot_[k - 1] * etap_dot_[k - 1] - boltz * t_target_) /
          etap_mass_[k];
  }
}

void FixNH::setup(Simulation& sim) {
  iso_ = pressure_.iso(sim.dimension());
  if (sllod_) {
    // LAMMPS's FixNVTSllod::init: a fix deform that gives crossing atoms the faces' velocities.
    const FixDeform* deform = nullptr;
    for (const auto& fix : sim.fixes())
      if (const auto* d = dynamic_cast<const FixDeform*>(fix.get())) deform = d;
    if (!deform) throw ConfigError("fix " + id() + " nvt/sllod: no fix deform is defined");
    if (!deform->remaps_velocities())
      throw ConfigError("fix " + id() + " nvt/sllod: its fix deform must have remap v");
    // Its temperature is a compute temp/deform of its own, as LAMMPS's (ID_temp). It needs the
    // box's rates, which fix deform sets at its own setup: taken at the first step, before
    // anything moves.
    deform_temp_ = std::make_unique<ComputeTempDeform>(ComputeArguments{id() + "_temp", "all", {}, &sim});
    deform_temp_->setup(sim);
    t_current_pending_ = true;
  } else {
    t_current_ = sim.temperature_now();
  }
  if (barostat_ && vol0_ == 0.0) {
    // The reference cell, at the first run (LAMMPS's FixNH::init).
    vol0_ = sim.volume();
    for (int d = 0; d < 3; ++d) h0_inv_[static_cast<std::size_t>(d)] = 1.0 / sim.box().length(d);
  }
  init_masses(sim, t_current_);
  if (barostat_) {
    compute_press_target(sim);
    virial_ = sim.thermo().virial;
    couple(sim, kinetic_tensor(sim), virial_);
  }
}

// A run that continues the previous one (run ... pre no): LAMMPS's setup again, but from the
// temperature the chain left (so that the continued run is bitwise the uninterrupted one).
void FixNH::continue_run(Simulation& sim) { init_masses(sim, t_current_); }

// LAMMPS's FixNH::nhc_temp_integrate.
void FixNH::nhc_temp_integrate(const Simulation& sim) {
  const double boltz = sim.units().boltz, dt = sim.timestep();
  const double dthalf = 0.5 * dt, dt4 = 0.25 * dt, dt8 = 0.125 * dt;
  const double t_freq = 1.0 / t_period_;
  const double tdrag_factor = 1.0 - (dt * t_freq * drag_ / nc_tchain_);
  const std::size_t m = eta_.size();
  double kecurrent = tdof_ * boltz * t_current_;
  eta_mass_[0] = tdof_ * boltz * t_target_ / (t_freq * t_freq);
  for (std::size_t k = 1; k < m; ++k) eta_mass_[k] = boltz * t_target_ / (t_freq * t_freq);
  eta_dotdot_[0] = eta_mass_[0] > 0 ? (kecurrent - ke_target_) / eta_mass_[0] : 0.0;
  const double ncfac = 1.0 / nc_tchain_;
  factor_eta_ = 1.0;
  for (int loop = 0; loop < nc_tchain_; ++loop) {
    for (std::size_t k = m - 1; k > 0; --k) {
      const double expfac = std::exp(-ncfac * dt8 * eta_dot_[k + 1]);
      eta_dot_[k] *= expfac;
      eta_dot_[k] += eta_dotdot_[k] * ncfac * dt4;
      eta_dot_[k] *= tdrag_factor;
      eta_dot_[k] *= expfac;
    }
    double expfac = std::exp(-ncfac * dt8 * eta_dot_[1]);
    eta_dot_[0] *= expfac;
    eta_dot_[0] += eta_dotdot_[0] * ncfac * dt4;
    eta_dot_[0] *= tdrag_factor;
    eta_dot_[0] *= expfac;
    const double factor = std::exp(-ncfac * dthalf * eta_dot_[0]);
    // The velocities take each sub-cycle's factor in turn (LAMMPS's nh_v_temp).
    factor_eta_ *= factor;
    t_current_ *= factor * factor;
    kecurrent = tdof_ * boltz * t_current_;
    eta_dotdot_[0] = eta_mass_[0] > 0 ? (kecurrent - ke_target_) / eta_mass_[0] : 0.0;
    for (std::size_t k = 0; k < m; ++k) eta_[k] += ncfac * dthalf * eta_dot_[k];
    eta_dot_[0] *= expfac;
    eta_dot_[0] += eta_dotdot_[0] * ncfac * dt4;
    eta_dot_[0] *= expfac;
    for (std::size_t k = 1; k < m; ++k) {
      expfac = std::exp(-ncfac * dt8 * eta_dot_[k + 1]);
      eta_dot_[k] *= expfac;
      eta_dotdot_[k] =
          (eta_mass_[k - 1] * eta_dot_[k - 1] * eta_dot_[k - 1] - boltz * t_target_) / eta_mass_[k];
      eta_dot_[k] += eta_dotdot_[k] * ncfac * dt4;
      eta_dot_[k] *= expfac;
    }
  }
}

// LAMMPS's FixNH::nhc_press_integrate (masses kept from the setup).
void FixNH::nhc_press_integrate(const Simulation& sim) {
  const double boltz = sim.units().boltz, dt = sim.timestep();
  const double dthalf = 0.5 * dt, dt4 = 0.25 * dt, dt8 = 0.125 * dt;
  const double kt = boltz * t_target_;
  double p_freq_max = 0;
  for (std::size_t i = 0; i < 3; ++i)
    if (pressure_.flag[i]) p_freq_max = std::max(p_freq_max, 1.0 / pressure_.period[i]);
  const double pdrag_factor = 1.0 - (dt * p_freq_max * drag_ / nc_pchain_);
  const std::size_t m = etap_.size();
  auto barostat_ke = [&] {
    double ke = 0;
    for (std::size_t i = 0; i < 3; ++i)
      if (pressure_.flag[i]) ke += omega_mass_[i] * omega_dot_[i] * omega_dot_[i];
    return ke;
  };
  const double lkt_press = iso_ ? kt : pressure_.dimensions() * kt;
  etap_dotdot_[0] = (barostat_ke() - lkt_press) / etap_mass_[0];
  const double ncfac = 1.0 / nc_pchain_;
  for (int loop = 0; loop < nc_pchain_; ++loop) {
    for (std::size_t k = m - 1; k > 0; --k) {
      const double expfac = std::exp(-ncfac * dt8 * etap_dot_[k + 1]);
      etap_dot_[k] *= expfac;
      etap_dot_[k] += etap_dotdot_[k] * ncfac * dt4;
      etap_dot_[k] *= pdrag_factor;
      etap_dot_[k] *= expfac;
    }
    double expfac = std::exp(-ncfac * dt8 * etap_dot_[1]);
    etap_dot_[0] *= expfac;
    etap_dot_[0] += etap_dotdot_[0] * ncfac * dt4;
    etap_dot_[0] *= pdrag_factor;
    etap_dot_[0] *= expfac;
    for (std::size_t k = 0; k < m; ++k) etap_[k] += ncfac * dthalf * etap_dot_[k];
    const double factor_etap = std::exp(-ncfac * dthalf * etap_dot_[0]);
    for (std::size_t i = 0; i < 3; ++i)
      if (pressure_.flag[i]) omega_dot_[i] *= factor_etap;
    etap_dotdot_[0] = (barostat_ke() - lkt_press) / etap_mass_[0];
    etap_dot_[0] *= expfac;
    etap_dot_[0] += etap_dotdot_[0] * ncfac * dt4;
    etap_dot_[0] *= expfac;
    for (std::size_t k = 1; k < m; ++k) {
      expfac = std::exp(-ncfac * dt8 * etap_dot_[k + 1]);
      etap_dot_[k] *= expfac;
      etap_dotdot_[k] =
          (etap_mass_[k - 1] * etap_dot_[k - 1] * etap_dot_[k - 1] - boltz * t_target_) /
          etap_mass_[k];
      etap_dot_[k] += etap_dotdot_[k] * ncfac * dt4;
      etap_dot_[k] *= expfac;
    }
  }
}

// LAMMPS's FixNH::nh_omega_dot (orthogonal cell).
void FixNH::nh_omega_dot(const Simulation& sim) {
  const double volume = sim.volume(), nktv2p = sim.units().nktv2p;
  const double dthalf = 0.5 * sim.timestep();
  double p_freq_max = 0;
  for (std::size_t i = 0; i < 3; ++i)
    if (pressure_.flag[i]) p_freq_max = std::max(p_freq_max, 1.0 / pressure_.period[i]);
  const double pdrag_factor = 1.0 - (sim.timestep() * p_freq_max * drag_ / nc_pchain_);
  const double per_dof = static_cast<double>(pressure_.dimensions() * sim.natoms());
  double mtk_term1 = 0;
  if (mtk_) {
    if (iso_) {
      mtk_term1 = tdof_ * sim.units().boltz * t_current_;
    } else {
      for (std::size_t i = 0; i < 3; ++i)
        if (pressure_.flag[i]) mtk_term1 += mvv_current_[i];
    }
    mtk_term1 /= per_dof;
  }
  const Box& box = sim.box();
  for (std::size_t i = 0; i < 3; ++i)
    if (pressure_.flag[i]) {
      double f_omega = (p_current_[i] - p_hydro_) * volume / (omega_mass_[i] * nktv2p) +
                       mtk_term1 / omega_mass_[i];
      if (pressure_.per_dimension) {
        const double h = box.length(static_cast<int>(i));
        f_omega -= h * (sigma_[i] * h) / (omega_mass_[i] * nktv2p);
      }
      omega_dot_[i] += f_omega * dthalf;
      omega_dot_[i] *= pdrag_factor;
    }
  mtk_term2_ = 0;
  if (mtk_) {
    for (std::size_t i = 0; i < 3; ++i)
      if (pressure_.flag[i]) mtk_term2_ += omega_dot_[i];
    mtk_term2_ /= per_dof;
  }
}

Box FixNH::remapped(const Box& box, double dt) {
  const double dto = 0.5 * dt;
  Box next = box;
  for (std::size_t i = 0; i < 3; ++i) omega_[i] += dto * omega_dot_[i];
  for (std::size_t i = 0; i < 3; ++i)
    if (pressure_.flag[i]) {
      const double expfac = std::exp(dto * omega_dot_[i]);
      next.lo[i] = (box.lo[i] - fixedpoint_[i]) * expfac + fixedpoint_[i];
      next.hi[i] = (box.hi[i] - fixedpoint_[i]) * expfac + fixedpoint_[i];
    }
  return next;
}


// The box's shape and rates for the SLLOD half-steps of this step (LAMMPS's h_two = h_rate h_inv,
// MathExtra::multiply_shape_shape).
void FixNH::prepare_sllod(const Simulation& sim) {
  sllod_box_ = sim.box();
  const BoxMatrix m(sllod_box_);
  const auto& r = sim.box_rate().h_rate;
  const auto& hi = m.h_inv;
  sllod_rate_ = sim.box_rate();
  h_two_ = {r[0] * hi[0], r[1] * hi[1], r[2] * hi[2], r[1] * hi[3] + r[3] * hi[2],
            r[0] * hi[4] + r[5] * hi[3] + r[4] * hi[2], r[0] * hi[5] + r[5] * hi[1]};
}

// LAMMPS's FixNVTSllod::nh_v_temp on one tile: the thermal velocity scaled and given the SLLOD
// correction, the streaming velocity kept.
void FixNH::sllod_velocities(FixTile& t) const {
  const BoxMatrix box(sllod_box_);
  const double dthalf = 0.5 * t.dt;
  const auto& h = h_two_;
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
    if (!in_group(t, i)) continue;
    const auto stream =
        streaming_velocity(box, sllod_rate_.h_rate, sllod_rate_.h_ratelo, &t.x[3 * i]);
    double* v = &t.v[3 * i];
    for (std::size_t d = 0; d < 3; ++d) v[d] -= stream[d];
    const double vdelu[3] = {h[0] * v[0] + h[5] * v[1] + h[4] * v[2], h[1] * v[1] + h[3] * v[2],
                             h[2] * v[2]};
    for (std::size_t d = 0; d < 3; ++d) {
      v[d] = v[d] * factor_eta_ - dthalf * vdelu[d];
      v[d] += stream[d];
    }
  }
}

void FixNH::pre_integrate(Simulation& sim) {
  if (t_current_pending_) t_current_ = deform_temp_->scalar(sim), t_current_pending_ = false;
  if (sllod_) prepare_sllod(sim);
  if (barostat_ && mpchain_ > 0) nhc_press_integrate(sim);
  factor_eta_ = 1.0;
  if (thermostat_) {
    compute_temp_target(sim);
    nhc_temp_integrate(sim);
  }
  if (!barostat_) return;
  // The pressure with the velocities as the thermostat leaves them (LAMMPS computes the
  // temperature again here) and the virial of the last forces.
  auto ke = kinetic_tensor(sim);
  for (auto& k : ke) k *= factor_eta_ * factor_eta_;
  couple(sim, ke, virial_);
  compute_press_target(sim);
  nh_omega_dot(sim);
  const double dt4 = 0.25 * sim.timestep();
  for (std::size_t d = 0; d < 3; ++d)
    factor_press_[d] = std::exp(-dt4 * (omega_dot_[d] + mtk_term2_));
  boxes_[0] = sim.box();
  boxes_[1] = remapped(boxes_[0], sim.timestep());
  boxes_[2] = remapped(boxes_[1], sim.timestep());
  sim.change_box(boxes_[2]);
}

void FixNH::initial_integrate(FixTile& t) {
  if (sllod_) {
    sllod_velocities(t);
    kick_and_drift(*this, t, 1.0);
    return;
  }
  if (!barostat_) {
    kick_and_drift(*this, t, factor_eta_);
    return;
  }
  const double dtf = 0.5 * t.dt * t.units->ftm2v;
  const auto n = static_cast<std::size_t>(t.nlocal);
  for (std::size_t i = 0; i < n; ++i) {
    const double dtfm = dtf / t.mass[static_cast<std::size_t>(t.type[i])];
    for (std::size_t d = 0; d < 3; ++d) {
      double& v = t.v[3 * i + d];
      if (thermostat_) v *= factor_eta_;
      v *= factor_press_[d];
      v *= factor_press_[d];
      v += dtfm * t.f[3 * i + d];
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    double* x = &t.x[3 * i];
    dilate(x, boxes_[0], boxes_[1]);
    for (std::size_t d = 0; d < 3; ++d) x[d] += t.dt * t.v[3 * i + d];
    dilate(x, boxes_[1], boxes_[2]);
  }
}

void FixNH::final_integrate(FixTile& t) {
  half_kick(*this, t);
  if (!barostat_) return;
  for (std::size_t k = 0; k < 3 * static_cast<std::size_t>(t.nlocal); ++k) {
    t.v[k] *= factor_press_[k % 3];
    t.v[k] *= factor_press_[k % 3];
  }
}

void FixNH::end_of_step(Simulation& sim) {
  if (barostat_) {
    const Thermo th = sim.thermo();
    t_current_ = sim.temperature(th.ke);
    tdof_ = sim.dof();
    virial_ = th.virial;
    couple(sim, th.ke_tensor, th.virial);
    nh_omega_dot(sim);
  } else {
    t_current_ = sllod_ ? deform_temp_->scalar(sim) : sim.step_temperature();
    tdof_ = sim.dof();
  }
  if (thermostat_) {
    nhc_temp_integrate(sim);
    if (sllod_) {
      prepare_sllod(sim);
      sim.for_each_tile("md.nvt_sllod", [&](FixTile& t) { sllod_velocities(t); });
    } else {
      sim.scale_velocities(factor_eta_);
    }
  }
  if (barostat_ && mpchain_ > 0) nhc_press_integrate(sim);
}

// LAMMPS's FixNH::compute_scalar: the chains' and the barostat's energy.
double FixNH::scalar(Simulation& sim) {
  const double kt = sim.units().boltz * t_target_, nktv2p = sim.units().nktv2p;
  const double volume = sim.volume();
  double energy = 0;
  if (thermostat_) {
    energy += ke_target_ * eta_[0] + 0.5 * eta_mass_[0] * eta_dot_[0] * eta_dot_[0];
    for (std::size_t k = 1; k < eta_.size(); ++k)
      energy += kt * eta_[k] + 0.5 * eta_mass_[k] * eta_dot_[k] * eta_dot_[k];
  }
  if (barostat_) {
    double lkt_press = 0;
    for (std::size_t i = 0; i < 3; ++i)
      if (pressure_.flag[i]) {
        energy += 0.5 * omega_dot_[i] * omega_dot_[i] * omega_mass_[i] +
                  p_hydro_ * (volume - vol0_) / (pressure_.dimensions() * nktv2p);
        lkt_press += kt;
      }
    if (!etap_.empty()) {
      energy += lkt_press * etap_[0] + 0.5 * etap_mass_[0] * etap_dot_[0] * etap_dot_[0];
      for (std::size_t k = 1; k < etap_.size(); ++k)
        energy += kt * etap_[k] + 0.5 * etap_mass_[k] * etap_dot_[k] * etap_dot_[k];
    }
    if (pressure_.per_dimension) energy += strain_energy(sim);
  }
  return energy;
}

std::size_t FixNH::vector_size() const {
  std::size_t n = thermostat_ ? 4 * eta_.size() : 0;
  if (barostat_) {
    n += iso_ ? 4 : 12;
    n += 4 * etap_.size();
    if (pressure_.per_dimension) n += 1;
  }
  return n;
}

// LAMMPS's FixNH::compute_vector, in its order: eta, eta_dot, omega, omega_dot, etap, etap_dot,
// then the energies PE_eta, KE_eta_dot, PE_omega, KE_omega_dot, PE_etap, KE_etap_dot, PE_strain.
std::vector<double> FixNH::vector(Simulation& sim) {
  const double kt = sim.units().boltz * t_target_, nktv2p = sim.units().nktv2p;
  const double volume = sim.volume();
  const std::size_t nomega = iso_ ? 1 : 3;
  std::vector<double> out;
  if (thermostat_) {
    out.insert(out.end(), eta_.begin(), eta_.end());
    out.insert(out.end(), eta_dot_.begin(), eta_dot_.end() - 1);
  }
  if (barostat_) {
    out.insert(out.end(), omega_.begin(), omega_.begin() + static_cast<std::ptrdiff_t>(nomega));
    out.insert(out.end(), omega_dot_.begin(),
               omega_dot_.begin() + static_cast<std::ptrdiff_t>(nomega));
    out.insert(out.end(), etap_.begin(), etap_.end());
    out.insert(out.end(), etap_dot_.begin(), etap_dot_.end() - 1);
  }
  if (thermostat_) {
    for (std::size_t k = 0; k < eta_.size(); ++k)
      out.push_back(k == 0 ? ke_target_ * eta_[0] : kt * eta_[k]);
    for (std::size_t k = 0; k < eta_.size(); ++k)
      out.push_back(0.5 * eta_mass_[k] * eta_dot_[k] * eta_dot_[k]);
  }
  if (barostat_) {
    if (iso_) {
      out.push_back(p_hydro_ * (volume - vol0_) / nktv2p);
      out.push_back(pressure_.dimensions() * 0.5 * omega_dot_[0] * omega_dot_[0] * omega_mass_[0]);
    } else {
      for (std::size_t i = 0; i < 3; ++i)
        out.push_back(pressure_.flag[i]
                          ? p_hydro_ * (volume - vol0_) / (pressure_.dimensions() * nktv2p)
                          : 0.0);
      for (std::size_t i = 0; i < 3; ++i)
        out.push_back(pressure_.flag[i] ? 0.5 * omega_dot_[i] * omega_dot_[i] * omega_mass_[i]
                                        : 0.0);
    }
    // LAMMPS's vector takes kT for the first link, where its scalar takes kT per dimension.
    for (std::size_t k = 0; k < etap_.size(); ++k) out.push_back(kt * etap_[k]);
    for (std::size_t k = 0; k < etap_.size(); ++k)
      out.push_back(0.5 * etap_mass_[k] * etap_dot_[k] * etap_dot_[k]);
    if (pressure_.per_dimension) out.push_back(strain_energy(sim));
  }
  return out;
}

nlohmann::json FixNH::restart_section() const {
  auto chain = [](const std::vector<double>& v) { return std::vector<double>(v.begin(), v.end()); };
  nlohmann::json j = {{"t_start", t_start_},
                      {"t_stop", t_stop_},
                      {"t_damp", t_period_},
                      {"tchain", mtchain_},
                      {"eta", chain(eta_)},
                      {"eta_dot", std::vector<double>(eta_dot_.begin(), eta_dot_.end() - 1)},
                      {"eta_dotdot", chain(eta_dotdot_)},
                      {"tloop", nc_tchain_},
                      {"drag", drag_},
                      {"mtk", mtk_}};
  if (barostat_) {
    j["p_start"] = pressure_.start;
    j["p_stop"] = pressure_.stop;
    j["p_damp"] = pressure_.period;
    j["p_flag"] = pressure_.flag;
    j["couple"] = static_cast<int>(pressure_.coupling);
    j["deviatoric"] = pressure_.per_dimension;
    j["ploop"] = nc_pchain_;
    j["omega"] = omega_;
    j["omega_dot"] = omega_dot_;
    j["pchain"] = mpchain_;
    j["etap"] = chain(etap_);
    j["etap_dot"] = std::vector<double>(etap_dot_.begin(), etap_dot_.end() - 1);
    j["etap_dotdot"] = chain(etap_dotdot_);
    j["vol0"] = vol0_;
    j["t0"] = t0_;
    j["h0_inv"] = h0_inv_;
    j["fixedpoint"] = fixedpoint_;
  }
  return j;
}

void FixNH::restore(const nlohmann::json& v, const detail::RestartHeader& r,
                    const std::string& where) {
  using Sign = detail::RestartHeader::Sign;
  const std::string like = "fix " + style_;
  const auto field = [&](const char* key) -> const nlohmann::json& {
    return r.at(v, key, where + "." + key);
  };
  const auto real = [&](const char* key, Sign sign) {
    return r.real(field(key), where + "." + key, sign, like);
  };
  const auto integer = [&](const char* key, long long lo, long long hi) {
    return static_cast<int>(r.integer(field(key), where + "." + key, lo, hi, like));
  };
  // A chain: its values, as many as the first one written (restart files of version 4 wrote
  // fix nvt's 3 links without the loop and drag fields, which take their defaults then).
  // A chain of `size` values. Restart files of version 4 wrote fix nvt's 3 links without the
  // tchain, loop, drag and mtk fields, which take their defaults then.
  const auto chain = [&](const char* key, std::size_t size) {
    const nlohmann::json& j = field(key);
    if (!j.is_array() || j.size() != size)
      r.fail("has " + where + "." + key + " = " + j.dump() + ", not " + std::to_string(size) +
             " numbers");
    std::vector<double> out;
    for (std::size_t k = 0; k < j.size(); ++k)
      out.push_back(
          r.real(j[k], where + "." + key + "[" + std::to_string(k) + "]", Sign::any, like));
    return out;
  };
  const auto triple = [&](const char* key) { return r.triple(field(key), where + "." + key); };
  if (thermostat_) {
    t_start_ = real("t_start", Sign::positive);
    t_stop_ = real("t_stop", Sign::positive);
    t_period_ = real("t_damp", Sign::positive);
    mtchain_ = v.contains("tchain") ? integer("tchain", 1, 1000) : 3;
    eta_ = chain("eta", static_cast<std::size_t>(mtchain_));
    eta_dot_ = chain("eta_dot", eta_.size());
    eta_dot_.push_back(0.0);
    eta_dotdot_ = chain("eta_dotdot", eta_.size());
    eta_mass_.assign(eta_.size(), 0.0);
  }
  if (v.contains("tloop")) {
    nc_tchain_ = integer("tloop", 0, 1000);
    drag_ = real("drag", Sign::non_negative);
    if (!field("mtk").is_boolean())
      r.fail("has " + where + ".mtk = " + field("mtk").dump() + ", not true or false");
    mtk_ = field("mtk").get<bool>();
  }
  if (!barostat_) return;
  pressure_.start = triple("p_start");
  pressure_.stop = triple("p_stop");
  const auto periods = triple("p_damp");
  const auto flags = triple("p_flag");
  for (std::size_t d = 0; d < 3; ++d) {
    if (flags[d] != 0.0 && flags[d] != 1.0)
      r.fail("has " + where + ".p_flag with a value not 0 or 1");
    pressure_.flag[d] = static_cast<int>(flags[d]);
    if (pressure_.flag[d] && !(periods[d] > 0)) r.fail("has " + where + ".p_damp not positive");
  }
  if (pressure_.dimensions() == 0) r.fail("has " + where + ".p_flag with no barostatted dimension");
  pressure_.period = periods;
  pressure_.coupling = static_cast<PressureCoupling>(integer("couple", 0, 4));
  if (!field("deviatoric").is_boolean()) r.fail("has " + where + ".deviatoric not true or false");
  pressure_.per_dimension = field("deviatoric").get<bool>();
  nc_pchain_ = integer("ploop", 0, 1000);
  omega_ = triple("omega");
  omega_dot_ = triple("omega_dot");
  mpchain_ = integer("pchain", 0, 1000);
  etap_ = chain("etap", static_cast<std::size_t>(mpchain_));
  etap_dot_ = chain("etap_dot", etap_.size());
  etap_dot_.push_back(0.0);
  etap_dotdot_ = chain("etap_dotdot", etap_.size());
  etap_mass_.assign(etap_.size(), 0.0);
  vol0_ = real("vol0", Sign::positive);
  t0_ = real("t0", Sign::non_negative);
  h0_inv_ = triple("h0_inv");
  fixedpoint_ = triple("fixedpoint");
}

}  // namespace tessera::md
