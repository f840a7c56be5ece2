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
    : Fix(a.id, a.group), style_(std::move(style)), print_(a.print) {
  const std::string what = "fix " + a.id + " " + style_;
  // Its temperature is all atoms' (compute temp of group all) and it dilates them all.
  if (a.group != "all") throw ConfigError(what + ": md_ipu thermostats the group all only");
  // The defaults LAMMPS takes from the box at the fix's creation: the fixed point at its centre,
  // tilts that are not zero scaled with their lengths along periodic dimensions.
  const bool boxed = a.sim && a.sim->has_box();
  if (boxed) {
    const Box& box = a.sim->box();
    const Boundary& boundary = a.sim->boundary();
    for (std::size_t d = 0; d < 3; ++d) fixedpoint_[d] = 0.5 * (box.lo[d] + box.hi[d]);
    const bool three = a.sim->dimension() == 3;
    scale_ = {three && boundary.periodic(2) && box.yz != 0.0,
              three && boundary.periodic(2) && box.xz != 0.0,
              boundary.periodic(1) && box.xy != 0.0};
  }
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
  // LAMMPS's pstyle: TRICLINIC before ISO (a coupled xyz then averages the diagonal).
  iso_ = !triclinic() && pressure_.iso(a.sim ? a.sim->dimension() : 3);
  // LAMMPS's pre_exchange_flag: flips are watched for where tilts are steered or not zero.
  flip_watch_ =
      flip_allowed_ &&
      (triclinic() ||
       (boxed && (a.sim->box().xy != 0.0 || a.sim->box().xz != 0.0 || a.sim->box().yz != 0.0)));
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
    } else if (key == "tri") {
      // LAMMPS's tri: aniso on x, y and z, and every shear stress steered to zero, unscaled
      // (in 2-d xy alone).
      need_values(at, 3);
      const double damp = real(at + 3);
      pressure_.set_all(real(at + 1), real(at + 2), damp, dimension, PressureCoupling::none);
      scale_ = {0, 0, 0};
      for (std::size_t k = dimension == 2 ? 2 : 0; k < 3; ++k)
        tilt_.start[k] = tilt_.stop[k] = 0, tilt_.period[k] = damp, tilt_.flag[k] = 1;
      at += 4;
    } else if (key == "yz" || key == "xz" || key == "xy") {
      need_values(at, 3);
      const std::size_t k = key == "yz" ? 0 : key == "xz" ? 1 : 2;
      if (dimension == 2 && k < 2) bad(what + ": " + key + " has no stress in a 2-d simulation");
      tilt_.start[k] = real(at + 1);
      tilt_.stop[k] = real(at + 2);
      tilt_.period[k] = real(at + 3);
      tilt_.flag[k] = 1;
      scale_[k] = 0;
      pressure_.per_dimension = true;
      at += 4;
    } else if (key == "scaleyz" || key == "scalexz" || key == "scalexy") {
      need_values(at, 1);
      const std::size_t k = key == "scaleyz" ? 0 : key == "scalexz" ? 1 : 2;
      scale_[k] = yes_no(what + " " + key, w[at + 1]);
      at += 2;
    } else if (key == "flip") {
      need_values(at, 1);
      flip_allowed_ = yes_no(what + " flip", w[at + 1]);
      at += 2;
    } else if (key == "fixedpoint") {
      need_values(at, 3);
      for (std::size_t d = 0; d < 3; ++d) fixedpoint_[d] = real(at + 1 + d);
      at += 4;
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
    } else if (key == "nreset" || key == "update" || key == "ext" || key == "ptemp" ||
               key == "disc") {
      bad(what + ": the keyword " + key + " is not supported by md_ipu");
    } else {
      bad(what + ": unknown keyword '" + key + "'");
    }
  }
  const bool nvt = style_ == "nvt" || style_ == "nvt/sllod";
  if (style_ == "nph" && temp_given) bad(what + ": nph takes no temp keyword (use npt)");
  if (style_ != "nph" && !temp_given) bad(what + ": " + style_ + " needs temp T0 T1 TDAMP");
  const bool steers = pressure_.dimensions() > 0 || tilt_.any();
  if (nvt && steers) bad(what + ": " + style_ + " takes no pressure settings (use npt)");
  if (!nvt && !steers)
    bad(what + ": " + style_ +
        " needs pressure settings (iso, aniso, tri, or x, y, z, xy, xz, yz)");
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
  // LAMMPS's checks of the shape's settings.
  static const char* tilt_name[3] = {"yz", "xz", "xy"};
  if (dimension == 2 && (scale_[0] || scale_[1]))
    bad(what + ": scaleyz or scalexz in a 2-d simulation");
  if (tilt_.any() && a.sim && a.sim->has_box() && !a.sim->box().triclinic)
    bad(what + ": xy, xz, yz and tri need a triclinic box (this one is orthogonal)");
  for (std::size_t k = 0; k < 3; ++k) {
    // yz and xz tilt along z, xy along y: that dimension must be periodic.
    const std::size_t along = k == 2 ? 1 : 2;
    const std::string dim(1, static_cast<char>('x' + along));
    if (a.sim && !a.sim->boundary().periodic(along)) {
      if (tilt_.flag[k])
        bad(what + ": " + tilt_name[k] + " needs " + dim + " periodic (it is not)");
      if (scale_[k])
        bad(what + ": scale" + tilt_name[k] + " needs " + dim + " periodic (it is not)");
    }
    if (tilt_.flag[k] && scale_[k])
      bad(what + ": " + tilt_name[k] + " is both steered and scaled (scale" + tilt_name[k] +
          " no)");
    if (tilt_.flag[k] && !(tilt_.period[k] > 0)) bad(what + ": Pdamp must be positive");
  }
}

double FixNH::p_freq_max() const {
  double most = 0;
  for (std::size_t i = 0; i < omegas(); ++i)
    if (steered(i)) most = std::max(most, p_freq(i));
  return most;
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
  if (pressure_.dimensions() > 0) p_hydro_ /= pressure_.dimensions();
  if (triclinic())
    for (std::size_t k = 0; k < 3; ++k)
      p_target_[3 + k] = tilt_.start[k] + delta * (tilt_.stop[k] - tilt_.start[k]);
  if (pressure_.per_dimension) compute_sigma();
}

// LAMMPS's FixNH::compute_sigma: the upper triangle of sigma = vol0 h0^-1 (p_target - p_hydro)
// h0^-T (Voigt), in pressure x volume / length^2, with its grouping of terms.
void FixNH::compute_sigma() {
  const auto& hi = h0_inv_;
  const auto& p = p_target_;
  const double p0 = p[0] - p_hydro_, p1 = p[1] - p_hydro_, p2 = p[2] - p_hydro_;
  sigma_[0] = vol0_ * (hi[0] * (p0 * hi[0] + p[5] * hi[5] + p[4] * hi[4]) +
                       hi[5] * (p[5] * hi[0] + p1 * hi[5] + p[3] * hi[4]) +
                       hi[4] * (p[4] * hi[0] + p[3] * hi[5] + p2 * hi[4]));
  sigma_[1] = vol0_ * (hi[1] * (p1 * hi[1] + p[3] * hi[3]) + hi[3] * (p[3] * hi[1] + p2 * hi[3]));
  sigma_[2] = vol0_ * (hi[2] * (p2 * hi[2]));
  sigma_[3] = vol0_ * (hi[1] * (p[3] * hi[2]) + hi[3] * (p2 * hi[2]));
  sigma_[4] = vol0_ * (hi[0] * (p[4] * hi[2]) + hi[5] * (p[3] * hi[2]) + hi[4] * (p2 * hi[2]));
  sigma_[5] = vol0_ * (hi[0] * (p[5] * hi[1] + p[4] * hi[3]) + hi[5] * (p1 * hi[1] + p[3] * hi[3]) +
                       hi[4] * (p[3] * hi[1] + p2 * hi[3]));
}

std::array<double, 6> FixNH::deviatoric(const Box& box) const {
  const auto h = BoxMatrix(box).h;
  const auto& s = sigma_;
  return {h[0] * (s[0] * h[0] + s[5] * h[5] + s[4] * h[4]) +
              h[5] * (s[5] * h[0] + s[1] * h[5] + s[3] * h[4]) +
              h[4] * (s[4] * h[0] + s[3] * h[5] + s[2] * h[4]),
          h[1] * (s[1] * h[1] + s[3] * h[3]) + h[3] * (s[3] * h[1] + s[2] * h[3]),
          h[2] * (s[2] * h[2]),
          h[1] * (s[3] * h[2]) + h[3] * (s[2] * h[2]),
          h[0] * (s[4] * h[2]) + h[5] * (s[3] * h[2]) + h[4] * (s[2] * h[2]),
          h[0] * (s[5] * h[1] + s[4] * h[3]) + h[5] * (s[1] * h[1] + s[3] * h[3]) +
              h[4] * (s[3] * h[1] + s[2] * h[3])};
}

// LAMMPS's compute_strain_energy: 0.5 Tr(sigma h h^T), in energy units.
double FixNH::strain_energy(const Simulation& sim) const {
  const auto h = BoxMatrix(sim.box()).h;
  const auto& s = sigma_;
  const double d0 = s[0] * (h[0] * h[0] + h[5] * h[5] + h[4] * h[4]) +
                    s[5] * (h[1] * h[5] + h[3] * h[4]) + s[4] * (h[2] * h[4]);
  const double d1 = s[5] * (h[5] * h[1] + h[4] * h[3]) + s[1] * (h[1] * h[1] + h[3] * h[3]) +
                    s[3] * (h[2] * h[3]);
  const double d2 = s[4] * (h[4] * h[2]) + s[3] * (h[3] * h[2]) + s[2] * (h[2] * h[2]);
  return 0.5 * (d0 + d1 + d2) / sim.units().nktv2p;
}

void FixNH::couple(const Simulation& sim, const std::array<double, 6>& ke,
                   const std::array<double, 6>& virial, std::optional<double> t) {
  for (std::size_t i = 0; i < 3; ++i) mvv_current_[i] = ke[i];
  const auto diagonal = coupled_pressure(sim, iso_, pressure_.coupling, tdof_, t, ke, virial,
                                         "fix " + id() + " " + style_);
  for (std::size_t i = 0; i < 3; ++i) p_current_[i] = diagonal[i];
  if (triclinic()) {
    // The pressure tensor's xy xz yz, in Voigt order.
    const auto shear = shear_pressure(sim, ke, virial);
    p_current_[3] = shear[2], p_current_[4] = shear[1], p_current_[5] = shear[0];
  }
}

Compute* FixNH::temperature(Simulation& sim) {
  return reads_compute() ? &temperature_.get(*this, sim) : nullptr;
}

double FixNH::temperature_dof(Simulation& sim) {
  Compute* c = temperature(sim);
  return c ? c->dof(sim) : sim.dof();
}

void FixNH::couple_with(Simulation& sim, Compute& temp, double t) {
  std::array<double, 6> ke{};
  if (!iso_) {
    const auto v = temp.vector(sim);
    std::copy_n(v.begin(), 6, ke.begin());
  }
  couple(sim, ke, virial_, t);
}

// LAMMPS's FixNH::modify_param: temp (its pressure's temperature too); press is refused, since
// md_ipu's barostat computes its pressure itself.
std::size_t FixNH::modify(Simulation& sim, const std::vector<std::string>& words, std::size_t at) {
  const std::string what = "fix_modify " + id() + " " + words[at];
  if (words[at] == "temp" && sllod_)
    throw ConfigError(what + ": fix nvt/sllod reads its own compute temp/deform, as md_ipu " +
                      "keeps it");
  if (const std::size_t taken = temperature_.modify(*this, sim, words, at)) {
    const Compute* c = sim.find_compute(temperature_.id());
    if (c->group() != "all" && print_ && sim.runtime().rank() == 0)
      print_("WARNING: Temperature for fix modify is not for group all\n");
    return taken;
  }
  if (words[at] == "press")
    throw ConfigError(what + ": md_ipu's fix " + style_ + " computes its pressure from its " +
                      "temperature and the virial; another pressure compute is not supported");
  return Fix::modify(sim, words, at);
}

void FixNH::init_masses(Simulation& sim, double t_current) {
  const double boltz = sim.units().boltz;
  tdof_ = temperature_dof(sim);
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
    for (std::size_t i = 0; i < omegas(); ++i)
      if (steered(i)) omega_mass_[i] = nkt / (p_freq(i) * p_freq(i));
    const double freq = p_freq_max();
    for (std::size_t k = 0; k < etap_mass_.size(); ++k)
      etap_mass_[k] = boltz * t_target_ / (freq * freq);
    for (std::size_t k = 1; k < etap_mass_.size(); ++k)
      etap_dotdot_[k] =
          (etap_mass_[k - 1] * etap_dot_[k - 1] * etap_dot_[k - 1] - boltz * t_target_) /
          etap_mass_[k];
  }
}

void FixNH::setup(Simulation& sim) {
  iso_ = !triclinic() && pressure_.iso(sim.dimension());
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
    deform_temp_ =
        std::make_unique<ComputeTempDeform>(ComputeArguments{id() + "_temp", "all", {}, &sim});
    deform_temp_->setup(sim);
    t_current_pending_ = true;
  } else if (Compute* c = temperature(sim)) {
    t_current_ = c->scalar(sim);
  } else {
    t_current_ = sim.temperature_now();
  }
  if (barostat_) {
    // LAMMPS's FixNH::init: no fix deform on a component the barostat steers.
    for (const auto& fix : sim.fixes())
      if (const auto* d = dynamic_cast<const FixDeform*>(fix.get()))
        for (std::size_t i = 0; i < 6; ++i)
          if (steered(i) && d->changes(i))
            throw ConfigError("fix " + id() + " " + style_ + " and fix " + d->id() +
                              " deform act on the same component of the stress tensor");
  }
  if (barostat_ && vol0_ == 0.0) {
    // The reference cell, at the first run (LAMMPS's FixNH::init).
    vol0_ = sim.volume();
    h0_inv_ = BoxMatrix(sim.box()).h_inv;
  }
  init_masses(sim, t_current_);
  virial_changes_after_ = false;
  bool after = false;
  for (const auto& fix : sim.fixes()) {
    virial_changes_after_ = virial_changes_after_ || (after && fix->constrains_velocities());
    after = after || fix.get() == this;
  }
  if (barostat_) {
    compute_press_target(sim);
    virial_ = sim.thermo().total_virial();
    if (Compute* c = temperature(sim))
      couple_with(sim, *c, t_current_);
    else
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
  const double pdrag_factor = 1.0 - (dt * p_freq_max() * drag_ / nc_pchain_);
  const std::size_t m = etap_.size();
  auto barostat_ke = [&] {
    double ke = 0;
    for (std::size_t i = 0; i < omegas(); ++i)
      if (steered(i)) ke += omega_mass_[i] * omega_dot_[i] * omega_dot_[i];
    return ke;
  };
  int pdof = 0;
  for (std::size_t i = 0; i < omegas(); ++i) pdof += steered(i);
  const double lkt_press = iso_ ? kt : pdof * kt;
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
    for (std::size_t i = 0; i < omegas(); ++i)
      if (steered(i)) omega_dot_[i] *= factor_etap;
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

// LAMMPS's FixNH::nh_omega_dot.
void FixNH::nh_omega_dot(const Simulation& sim) {
  const double volume = sim.volume(), nktv2p = sim.units().nktv2p;
  const double dthalf = 0.5 * sim.timestep();
  const double pdrag_factor = 1.0 - (sim.timestep() * p_freq_max() * drag_ / nc_pchain_);
  const double per_dof = static_cast<double>(pressure_.dimensions() * sim.natoms());
  std::array<double, 6> fdev{};
  if (pressure_.per_dimension) fdev = deviatoric(sim.box());
  double mtk_term1 = 0;
  if (mtk_) {
    if (iso_) {
      mtk_term1 = tdof_ * sim.units().boltz * t_current_;
    } else {
      for (std::size_t i = 0; i < 3; ++i)
        if (pressure_.flag[i]) mtk_term1 += mvv_current_[i];
    }
    if (per_dof > 0) mtk_term1 /= per_dof;
  }
  for (std::size_t i = 0; i < 3; ++i)
    if (pressure_.flag[i]) {
      double f_omega = (p_current_[i] - p_hydro_) * volume / (omega_mass_[i] * nktv2p) +
                       mtk_term1 / omega_mass_[i];
      if (pressure_.per_dimension) f_omega -= fdev[i] / (omega_mass_[i] * nktv2p);
      omega_dot_[i] += f_omega * dthalf;
      omega_dot_[i] *= pdrag_factor;
    }
  mtk_term2_ = 0;
  if (mtk_) {
    for (std::size_t i = 0; i < 3; ++i)
      if (pressure_.flag[i]) mtk_term2_ += omega_dot_[i];
    if (per_dof > 0) mtk_term2_ /= per_dof;
  }
  // The tilts' rates, from the shear pressures (no kinetic term).
  for (std::size_t i = 3; i < omegas(); ++i)
    if (steered(i)) {
      double f_omega = p_current_[i] * volume / (omega_mass_[i] * nktv2p);
      if (pressure_.per_dimension) f_omega -= fdev[i] / (omega_mass_[i] * nktv2p);
      omega_dot_[i] += f_omega * dthalf;
      omega_dot_[i] *= pdrag_factor;
    }
}

// LAMMPS's FixNH::remap on the box: h_dot = omega_dot h for upper-triangular h and omega_dot,
// the tilts advanced in two halves around the lengths' scaling so that the step is time
// symmetric. The tilts' updates read the lengths before this half-step (LAMMPS's h[0..2] are
// set again only after).
Box FixNH::remapped(const Simulation& sim, const Box& box) {
  const double dto = 0.5 * sim.timestep(), dto2 = dto / 2.0, dto4 = dto / 4.0, dto8 = dto / 8.0;
  const auto& od = omega_dot_;
  Box next = box;
  for (std::size_t i = 0; i < 6; ++i) omega_[i] += dto * omega_dot_[i];
  auto h = BoxMatrix(box).h;
  // One tilt's step: scaled by exp(exponent) on each side of its shear increment (which does
  // not read that tilt, so it may be worked out first).
  auto advance = [&](std::size_t k, double exponent, double increment) {
    const double expfac = std::exp(exponent);
    h[k] *= expfac;
    h[k] += increment;
    h[k] *= expfac;
  };
  auto tilts_half = [&] {
    if (tilt_.flag[1]) advance(4, dto8 * od[0], dto4 * (od[5] * h[3] + od[4] * h[2]));
    if (tilt_.flag[0]) advance(3, dto4 * od[1], dto2 * (od[3] * h[2]));
    if (tilt_.flag[2]) advance(5, dto4 * od[0], dto2 * (od[5] * h[1]));
    if (tilt_.flag[1]) advance(4, dto8 * od[0], dto4 * (od[5] * h[3] + od[4] * h[2]));
  };
  tilts_half();
  for (std::size_t i = 0; i < 3; ++i)
    if (pressure_.flag[i]) {
      const double expfac = std::exp(dto * od[i]);
      next.lo[i] = (box.lo[i] - fixedpoint_[i]) * expfac + fixedpoint_[i];
      next.hi[i] = (box.hi[i] - fixedpoint_[i]) * expfac + fixedpoint_[i];
      if (i == 1 && scale_[2]) h[5] *= expfac;
      if (i == 2 && scale_[1]) h[4] *= expfac;
      if (i == 2 && scale_[0]) h[3] *= expfac;
    }
  tilts_half();
  if (box.triclinic) next.yz = h[3], next.xz = h[4], next.xy = h[5];
  // LAMMPS's limit on one step's tilt: 1.5 of the length.
  constexpr double tilt_max = 1.5;
  const double lx = box.length(0), ly = box.length(1);
  if (std::abs(next.yz) > tilt_max * ly || std::abs(next.xz) > tilt_max * lx ||
      std::abs(next.xy) > tilt_max * lx) {
    Error e("fix " + id() + " " + style_ + " has tilted the box too far in one step at step " +
            std::to_string(sim.step()) +
            " (a tilt beyond 1.5 of its length): the cell is too far from equilibrium; lengthen "
            "Pdamp or start nearer the target stress");
    e.set_collective();
    throw e;
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
  h_two_ = {r[0] * hi[0],
            r[1] * hi[1],
            r[2] * hi[2],
            r[1] * hi[3] + r[3] * hi[2],
            r[0] * hi[4] + r[5] * hi[3] + r[4] * hi[2],
            r[0] * hi[5] + r[5] * hi[1]};
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
  Compute* temp = temperature(sim);
  if (temp && thermostat_) {
    // The thermal velocities scaled now (LAMMPS's nh_v_temp with its bias), not in the tiles'
    // first half-kick.
    sim.scale_thermal_velocities(group_mask(), factor_eta_, velocity_bias(sim, *temp));
    factor_eta_ = 1.0;
  }
  if (!barostat_) return;
  // The pressure with the velocities as the thermostat leaves them (LAMMPS computes the
  // temperature again here) and the virial of the last forces.
  if (virial_changes_after_) virial_ = sim.thermo().total_virial();
  if (temp) {
    couple_with(sim, *temp, iso_ ? temp->scalar(sim) : t_current_);
    press_bias_ = velocity_bias(sim, *temp);
  } else {
    auto ke = kinetic_tensor(sim);
    for (auto& k : ke) k *= factor_eta_ * factor_eta_;
    couple(sim, ke, virial_);
  }
  compute_press_target(sim);
  nh_omega_dot(sim);
  const double dt4 = 0.25 * sim.timestep();
  for (std::size_t d = 0; d < 3; ++d)
    factor_press_[d] = std::exp(-dt4 * (omega_dot_[d] + mtk_term2_));
  boxes_[0] = sim.box();
  boxes_[1] = remapped(sim, boxes_[0]);
  boxes_[2] = remapped(sim, boxes_[1]);
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
    double* v = &t.v[3 * i];
    if (thermostat_)
      for (std::size_t d = 0; d < 3; ++d) v[d] *= factor_eta_;
    press_velocity(v, &t.x[3 * i], t.dt);
    const double dtfm = dtf / t.mass[static_cast<std::size_t>(t.type[i])];
    for (std::size_t d = 0; d < 3; ++d) v[d] += dtfm * t.f[3 * i + d];
  }
  const BoxMatrix before(boxes_[0]), middle(boxes_[1]), after(boxes_[2]);
  for (std::size_t i = 0; i < n; ++i) {
    double* x = &t.x[3 * i];
    dilate(x, before, middle);
    for (std::size_t d = 0; d < 3; ++d) x[d] += t.dt * t.v[3 * i + d];
    dilate(x, middle, after);
  }
}

// LAMMPS's FixNH::nh_v_press on one velocity: exp(-dt/4 (omega_dot + mtk)) on each side of the
// tilts' cross terms -dt/2 (omega_dot v) of the upper triangle.
void FixNH::press_velocity(double* v, const double* x, double dt) const {
  // A fix_modify temperature's bias is left out (none in the usual case: no work per atom).
  const bool biased = !press_bias_.none();
  std::array<double, 3> bias{};
  if (biased) {
    bias = press_bias_.of(x, v);
    for (std::size_t d = 0; d < 3; ++d) v[d] -= bias[d];
  }
  for (std::size_t d = 0; d < 3; ++d) v[d] *= factor_press_[d];
  if (triclinic()) {
    const double dthalf = 0.5 * dt;
    v[0] += -dthalf * (v[1] * omega_dot_[5] + v[2] * omega_dot_[4]);
    v[1] += -dthalf * v[2] * omega_dot_[3];
  }
  for (std::size_t d = 0; d < 3; ++d) v[d] *= factor_press_[d];
  if (biased)
    for (std::size_t d = 0; d < 3; ++d) v[d] += bias[d];
}

void FixNH::final_integrate(FixTile& t) {
  half_kick(*this, t);
  if (!barostat_ || reads_compute()) return;
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i)
    press_velocity(&t.v[3 * i], &t.x[3 * i], t.dt);
}

// LAMMPS's FixNH::final_integrate after its half-kick, with a fix_modify temperature.
void FixNH::end_of_integrate(Simulation& sim) {
  if (!reads_compute()) return;
  Compute& temp = *temperature(sim);
  if (barostat_) {
    // A profile measured from the velocities is measured again at a step that built the lists
    // (LAMMPS: its per-atom biases may be stale after a reneighbor); either way it is taken in
    // the box as it is now.
    if (sim.steps_since_build() == 0 && dynamic_cast<const ComputeTempProfile*>(&temp))
      temp.scalar(sim);
    press_bias_ = velocity_bias(sim, temp);
    sim.adjust_velocities("md.fix_nh_velocity_press", [&](FixTile& t) {
      for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i)
        press_velocity(&t.v[3 * i], &t.x[3 * i], t.dt);
    });
  }
  t_current_ = temp.scalar(sim);
  tdof_ = temp.dof(sim);
  if (barostat_) {
    virial_ = sim.thermo().total_virial();
    couple_with(sim, temp, t_current_);
    nh_omega_dot(sim);
  }
  if (thermostat_) {
    nhc_temp_integrate(sim);
    sim.scale_thermal_velocities(group_mask(), factor_eta_, velocity_bias(sim, temp));
  }
  if (barostat_ && mpchain_ > 0) nhc_press_integrate(sim);
}

void FixNH::end_of_step(Simulation& sim) {
  if (reads_compute()) return;  // done in end_of_integrate
  if (barostat_) {
    const Thermo th = sim.thermo();
    t_current_ = sim.temperature(th.ke);
    tdof_ = sim.dof();
    virial_ = th.total_virial();
    couple(sim, th.ke_tensor, virial_);
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

// LAMMPS's FixNH::pre_exchange, at a neighbor-list build: a tilt past 0.6 of its length flips
// the box to its equivalent (0.1 beyond half, so that a tilt oscillating about a half does not
// flip back and forth); yz first, since its flip changes xz. Not across a non-periodic dimension.
void FixNH::pre_exchange(Simulation& sim) {
  if (!flip_watch_) return;
  constexpr double delta_flip = 0.1;
  Box box = sim.box();
  const double xprd = box.length(0), yprd = box.length(1);
  const double xtiltmax = (0.5 + delta_flip) * xprd, ytiltmax = (0.5 + delta_flip) * yprd;
  int flipxy = 0, flipxz = 0, flipyz = 0;
  if (sim.boundary().periodic(1)) {
    if (box.yz < -ytiltmax) {
      box.yz += yprd, box.xz += box.xy, flipyz = 1;
    } else if (box.yz >= ytiltmax) {
      box.yz -= yprd, box.xz -= box.xy, flipyz = -1;
    }
  }
  if (sim.boundary().periodic(0)) {
    if (box.xz < -xtiltmax) {
      box.xz += xprd, flipxz = 1;
    } else if (box.xz >= xtiltmax) {
      box.xz -= xprd, flipxz = -1;
    }
    if (box.xy < -xtiltmax) {
      box.xy += xprd, flipxy = 1;
    } else if (box.xy >= xtiltmax) {
      box.xy -= xprd, flipxy = -1;
    }
  }
  if (!flipxy && !flipxz && !flipyz) return;
  sim.change_box(box);
  sim.remap_atoms(/*migrate=*/true, {flipxy, flipxz, flipyz});
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
    for (std::size_t i = 3; i < omegas(); ++i)
      if (steered(i)) {
        energy += 0.5 * omega_dot_[i] * omega_dot_[i] * omega_mass_[i];
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
    n += 4 * (iso_ ? 1 : omegas());
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
  const std::size_t nomega = iso_ ? 1 : omegas();
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
      for (std::size_t i = 0; i < omegas(); ++i)
        out.push_back(i < 3 && pressure_.flag[i]
                          ? p_hydro_ * (volume - vol0_) / (pressure_.dimensions() * nktv2p)
                          : 0.0);
      for (std::size_t i = 0; i < omegas(); ++i)
        out.push_back(steered(i) ? 0.5 * omega_dot_[i] * omega_dot_[i] * omega_mass_[i] : 0.0);
    }
    // LAMMPS's vector takes kT for the first link, where its scalar takes kT per dimension.
    for (std::size_t k = 0; k < etap_.size(); ++k) out.push_back(kt * etap_[k]);
    for (std::size_t k = 0; k < etap_.size(); ++k)
      out.push_back(0.5 * etap_mass_[k] * etap_dot_[k] * etap_dot_[k]);
    if (pressure_.per_dimension) out.push_back(strain_energy(sim));
  }
  return out;
}

nlohmann::json FixNH::global_state() const {
  nlohmann::json j = nlohmann::json::object();
  if (thermostat_)
    j["thermostat"] = {{"eta", eta_},
                       {"eta_dot", std::vector<double>(eta_dot_.begin(), eta_dot_.end() - 1)}};
  if (barostat_)
    j["barostat"] = {{"omega", omega_},
                     {"omega_dot", omega_dot_},
                     {"vol0", vol0_},
                     {"t0", t0_},
                     {"etap", etap_},
                     {"etap_dot", std::vector<double>(etap_dot_.begin(), etap_dot_.end() - 1)},
                     {"h0_inv", h0_inv_},
                     {"deviatoric", pressure_.per_dimension}};
  return j;
}

// The state comes from global_state of a fix read_restart restored (see data_file.cpp), so it
// has global_state's shape.
void FixNH::restore_state(const nlohmann::json& state, const std::string& /*where*/) {
  using Values = std::vector<double>;
  if (state.contains("thermostat")) {
    const auto eta = state["thermostat"]["eta"].get<Values>();
    const auto eta_dot = state["thermostat"]["eta_dot"].get<Values>();
    if (thermostat_ && eta.size() == eta_.size()) {
      eta_ = eta;
      std::copy(eta_dot.begin(), eta_dot.end(), eta_dot_.begin());
    }
  }
  if (state.contains("barostat")) {
    const auto& b = state["barostat"];
    omega_ = b["omega"].get<std::array<double, 6>>();
    omega_dot_ = b["omega_dot"].get<std::array<double, 6>>();
    vol0_ = b["vol0"].get<double>();
    t0_ = b["t0"].get<double>();
    const auto etap = b["etap"].get<Values>(), etap_dot = b["etap_dot"].get<Values>();
    if (barostat_ && etap.size() == etap_.size()) {
      etap_ = etap;
      std::copy(etap_dot.begin(), etap_dot.end(), etap_dot_.begin());
    }
    if (b["deviatoric"].get<bool>()) h0_inv_ = b["h0_inv"].get<std::array<double, 6>>();
  }
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
    const auto diagonal = [](const std::array<double, 6>& a) {
      return std::array<double, 3>{a[0], a[1], a[2]};
    };
    const auto tilts = [](const std::array<double, 6>& a) {
      return std::array<double, 3>{a[3], a[4], a[5]};
    };
    j["omega"] = diagonal(omega_);
    j["omega_dot"] = diagonal(omega_dot_);
    j["pchain"] = mpchain_;
    j["etap"] = chain(etap_);
    j["etap_dot"] = std::vector<double>(etap_dot_.begin(), etap_dot_.end() - 1);
    j["etap_dotdot"] = chain(etap_dotdot_);
    j["vol0"] = vol0_;
    j["t0"] = t0_;
    j["h0_inv"] = diagonal(h0_inv_);
    j["fixedpoint"] = fixedpoint_;
    // The cell's shape (yz xz xy): its settings, rates and reference.
    j["shape"] = {
        {"p_start", tilt_.start},   {"p_stop", tilt_.stop},   {"p_damp", tilt_.period},
        {"p_flag", tilt_.flag},     {"omega", tilts(omega_)}, {"omega_dot", tilts(omega_dot_)},
        {"h0_inv", tilts(h0_inv_)}, {"scale", scale_},        {"flip", flip_watch_}};
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
  // Three flags, each 0 or 1 (`name`); with `periods`, each flagged one's period positive.
  const auto zero_one = [&](const nlohmann::json& j, const std::string& name,
                            const std::array<double, 3>* periods = nullptr,
                            const std::string& periods_name = "") {
    const auto values = r.triple(j, name);
    std::array<int, 3> out{};
    for (std::size_t k = 0; k < 3; ++k) {
      if (values[k] != 0.0 && values[k] != 1.0) r.fail("has " + name + " with a value not 0 or 1");
      out[k] = static_cast<int>(values[k]);
      if (periods && out[k] && !((*periods)[k] > 0))
        r.fail("has " + periods_name + " not positive");
    }
    return out;
  };
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
  pressure_.period = triple("p_damp");
  pressure_.flag =
      zero_one(field("p_flag"), where + ".p_flag", &pressure_.period, where + ".p_damp");
  // Files before triclinic barostats have no shape: an orthogonal cell's.
  if (v.contains("shape")) {
    const std::string in = where + ".shape";
    const nlohmann::json& shape = r.at(v, "shape", in);
    const auto item = [&](const char* key) -> const nlohmann::json& {
      return r.at(shape, key, in + "." + key);
    };
    tilt_.start = r.triple(item("p_start"), in + ".p_start");
    tilt_.stop = r.triple(item("p_stop"), in + ".p_stop");
    tilt_.period = r.triple(item("p_damp"), in + ".p_damp");
    tilt_.flag = zero_one(item("p_flag"), in + ".p_flag", &tilt_.period, in + ".p_damp");
    scale_ = zero_one(item("scale"), in + ".scale");
    const auto omega = r.triple(item("omega"), in + ".omega");
    const auto omega_dot = r.triple(item("omega_dot"), in + ".omega_dot");
    const auto h0_inv = r.triple(item("h0_inv"), in + ".h0_inv");
    for (std::size_t k = 0; k < 3; ++k)
      omega_[3 + k] = omega[k], omega_dot_[3 + k] = omega_dot[k], h0_inv_[3 + k] = h0_inv[k];
    if (!item("flip").is_boolean()) r.fail("has " + in + ".flip not true or false");
    flip_watch_ = item("flip").get<bool>();
  } else {
    tilt_ = {};
    scale_ = {0, 0, 0};
    flip_watch_ = false;
  }
  if (pressure_.dimensions() == 0 && !triclinic())
    r.fail("has " + where + ".p_flag with no barostatted dimension");
  pressure_.coupling = static_cast<PressureCoupling>(integer("couple", 0, 4));
  if (!field("deviatoric").is_boolean()) r.fail("has " + where + ".deviatoric not true or false");
  pressure_.per_dimension = field("deviatoric").get<bool>();
  nc_pchain_ = integer("ploop", 0, 1000);
  const auto omega = triple("omega"), omega_dot = triple("omega_dot");
  for (std::size_t d = 0; d < 3; ++d) omega_[d] = omega[d], omega_dot_[d] = omega_dot[d];
  mpchain_ = integer("pchain", 0, 1000);
  etap_ = chain("etap", static_cast<std::size_t>(mpchain_));
  etap_dot_ = chain("etap_dot", etap_.size());
  etap_dot_.push_back(0.0);
  etap_dotdot_ = chain("etap_dotdot", etap_.size());
  etap_mass_.assign(etap_.size(), 0.0);
  vol0_ = real("vol0", Sign::positive);
  t0_ = real("t0", Sign::non_negative);
  const auto h0_inv = triple("h0_inv");
  for (std::size_t d = 0; d < 3; ++d) h0_inv_[d] = h0_inv[d];
  fixedpoint_ = triple("fixedpoint");
}

}  // namespace tessera::md
