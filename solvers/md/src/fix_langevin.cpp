#include "tessera/md/fix_langevin.hpp"

#include <boost/random/linear_congruential.hpp>
#include <cmath>
#include <limits>

#include "arguments.hpp"
#include "restart_header.hpp"
#include "tessera/core/rng.hpp"
#include "tessera/md/region.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {
using namespace arguments;

FixLangevin::FixLangevin(const FixArguments& a) : Fix(a.id, a.group) {
  if (a.from_restart) return;
  const char* usage = "fix ID GROUP langevin T0 T1 DAMP SEED [tally yes|no] [zero no]";
  need(a.args, 4, usage);
  for (std::size_t k = 4; k < a.args.size(); k += 2) {
    const std::string& key = a.args[k];
    if (k + 1 >= a.args.size()) bad("fix langevin: keyword " + key + " needs a value");
    if (key == "tally") {
      tally_ = yes_no("fix langevin tally", a.args[k + 1]);
    } else if (key == "zero") {
      if (yes_no("fix langevin zero", a.args[k + 1]))
        bad("fix langevin: zero yes (the group's net random force removed) is not supported");
    } else if (key == "angmom" || key == "omega" || key == "gjf" || key == "scale") {
      bad("fix langevin: keyword " + key +
          " is not supported (md_ipu's atoms are point particles of per-type masses, and it "
          "integrates with velocity Verlet)");
    } else {
      bad("fix langevin: unknown keyword '" + key + "'; usage: " + usage);
    }
  }
  const long long seed = seed_value("fix langevin", a.args[3],
                                    "fix langevin: the seed must be a positive 32-bit integer");
  if (a.args[0].rfind("v_", 0) == 0) {
    // LAMMPS's tstyle EQUAL: the target from an equal-style variable at each force computation
    // (T1 is read and unused, as LAMMPS's).
    variable_name_ = a.args[0].substr(2);
    variable_ = a.variable;
    if (!variable_) bad("fix langevin: " + a.args[0] + ": no variables here");
    variable_(variable_name_);  // refuses an unknown or atom-style variable now
  } else {
    t_start_ = number("fix langevin", a.args[0]);
  }
  t_stop_ = number("fix langevin", a.args[1]);
  damp_ = number("fix langevin", a.args[2]);
  seed_ = static_cast<int>(seed);
  check("fix " + id() + " langevin");
}

void FixLangevin::check(const std::string& what) const {
  if (!(t_start_ >= 0) || !(t_stop_ >= 0))
    throw ConfigError(what + ": temperatures must not be negative");
  if (!(damp_ > 0)) throw ConfigError(what + ": damp must be positive");
  if (seed_ <= 0) throw ConfigError(what + ": the seed must be a positive integer");
}

// Each atom's noise stream starts from (seed, atom id), whichever tile holds it.
void FixLangevin::start_atoms(FixTile& t) {
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
    RngEngine e =
        rng_stream(static_cast<std::uint64_t>(seed_), static_cast<std::uint64_t>(t.id[i]));
    t.noise[i] = static_cast<std::uint32_t>(e() % 2147483646u) + 1u;
  }
}

void FixLangevin::post_force(FixTile& t) {
  const Units& u = *t.units;
  const double sqrt_t = std::sqrt(variable_ ? target_ : t_start_ + t.ramp * (t_stop_ - t_start_));
  std::vector<double>* tallied = nullptr;
  if (tally_) {
    tallied = &forces_[static_cast<std::size_t>(t.tile.id())];
    tallied->assign(3 * static_cast<std::size_t>(t.nlocal), 0.0);
  }
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
    if (!in_group(t, i)) continue;
    if (region_ && !region_->matches({t.x[3 * i], t.x[3 * i + 1], t.x[3 * i + 2]})) continue;
    const auto b = bias_.of(&t.x[3 * i], &t.v[3 * i]);
    const double m = t.mass[static_cast<std::size_t>(t.type[i])];
    const double gamma1 = -m / damp_ / u.ftm2v;
    const double gamma2 =
        std::sqrt(m) * std::sqrt(24.0 * u.boltz / damp_ / t.dt / u.mvv2e) / u.ftm2v * sqrt_t;
    boost::random::minstd_rand engine(t.noise[i]);
    for (std::size_t d = 0; d < 3; ++d) {
      const double r = (1.0 / 2147483647) * static_cast<double>(engine());
      if (!thermal_[d]) continue;
      const double force = gamma1 * (t.v[3 * i + d] - b[d]) + gamma2 * (r - 0.5);
      t.f[3 * i + d] += force;
      if (tallied) (*tallied)[3 * i + d] = force;
    }
    t.noise[i] = static_cast<std::uint32_t>(engine());
  }
}

std::size_t FixLangevin::modify(Simulation& sim, const std::vector<std::string>& words,
                                std::size_t at) {
  if (words[at] != "temp" || at + 1 >= words.size()) return Fix::modify(sim, words, at);
  const std::string what = "fix_modify " + id() + " temp";
  const Compute* c = sim.find_compute(words[at + 1]);
  if (!c) throw ConfigError(what + ": there is no compute " + words[at + 1]);
  if (!c->is_temperature())
    throw ConfigError(what + ": compute " + words[at + 1] + " (" + c->style() +
                      ") does not compute a temperature");
  region_ = c->bias_region();
  profile_ = dynamic_cast<const ComputeTempProfile*>(c) ? words[at + 1] : std::string();
  bias_ = {};
  thermal_ = c->thermal_components();
  return 2;
}

// Before any post_force of a run writes them: a row of forces for every tile.
void FixLangevin::pre_force(Simulation& sim) {
  if (tally_) forces_.resize(static_cast<std::size_t>(sim.runtime().target().total_tiles()));
  if (!profile_.empty()) {
    // LAMMPS's Tp_BIAS: the temperature evaluated at each force computation (a profile measured
    // from the velocities, viscosity/cos's, is measured then), its profile taken off the drag.
    Compute* c = sim.find_compute(profile_);
    if (!c)
      throw ConfigError("fix " + id() + " langevin: its temperature compute " + profile_ +
                        " no longer exists");
    c->scalar(sim);
    bias_ = velocity_bias(sim, *c);
  }
  if (!variable_) return;
  target_ = variable_(variable_name_);
  if (!(target_ >= 0))
    throw ConfigError("fix " + id() + " langevin: variable " + variable_name_ + " gave " +
                      std::to_string(target_) + " at step " + std::to_string(sim.step()) +
                      "; a temperature must not be negative");
}

std::string FixLangevin::restart_refusal() const {
  if (!variable_) return {};
  return "its temperature is variable " + variable_name_ +
         ", which md_ipu's restart files do not keep";
}

double FixLangevin::power(Simulation& sim) const {
  return sim.reduce_atoms("md.langevin_tally", ReduceOp::sum, 1,
                          [&](const AtomsView& a, std::span<double> out) {
                            const auto& f = forces_[static_cast<std::size_t>(a.tile.id())];
                            for (std::size_t k = 0; k < f.size() && k < a.v.size(); ++k)
                              out[0] += f[k] * a.v[k];
                          })[0];
}

// LAMMPS's compute_scalar at the run's first step: the count starts half a step before it.
void FixLangevin::setup(Simulation& sim) {
  if (!tally_) return;
  power_ = power(sim);
  energy_ = 0.5 * power_ * sim.timestep();
}

void FixLangevin::end_of_step(Simulation& sim) {
  if (!tally_) return;
  power_ = power(sim);
  energy_ += power_ * sim.timestep();
}

// The energy taken out up to the full step now (LAMMPS's energy less the last half step).
double FixLangevin::scalar(Simulation& sim) { return -(energy_ - 0.5 * power_ * sim.timestep()); }

nlohmann::json FixLangevin::restart_section() const {
  return {{"t_start", t_start_}, {"t_stop", t_stop_}, {"damp", damp_}, {"seed", seed_}};
}

void FixLangevin::restore(const nlohmann::json& v, const detail::RestartHeader& r,
                          const std::string& where) {
  using Sign = detail::RestartHeader::Sign;
  const auto real = [&](const char* key, Sign sign) {
    return r.real(r.at(v, key, where + "." + key), where + "." + key, sign, "fix langevin");
  };
  t_start_ = real("t_start", Sign::non_negative);
  t_stop_ = real("t_stop", Sign::non_negative);
  damp_ = real("damp", Sign::positive);
  seed_ = static_cast<int>(r.integer(r.at(v, "seed", where + ".seed"), where + ".seed", 1,
                                     std::numeric_limits<int>::max(), "fix langevin"));
}

}  // namespace tessera::md
