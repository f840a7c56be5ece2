#include "tessera/md/fix_langevin.hpp"

#include <boost/random/linear_congruential.hpp>
#include <cmath>
#include <limits>

#include "arguments.hpp"
#include "restart_header.hpp"
#include "tessera/core/rng.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {
using namespace arguments;

FixLangevin::FixLangevin(const FixArguments& a) : Fix(a.id, a.group) {
  if (a.from_restart) return;
  need(a.args, 4, "fix ID all langevin T0 T1 DAMP SEED");
  if (a.args.size() > 4) bad("fix langevin: keywords after SEED are not supported");
  const long long seed = seed_value("fix langevin", a.args[3],
                                    "fix langevin: the seed must be a positive 32-bit integer");
  t_start_ = number("fix langevin", a.args[0]);
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
  const double sqrt_t = std::sqrt(t_start_ + t.ramp * (t_stop_ - t_start_));
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
    if (!in_group(t, i)) continue;
    const double m = t.mass[static_cast<std::size_t>(t.type[i])];
    const double gamma1 = -m / damp_ / u.ftm2v;
    const double gamma2 =
        std::sqrt(m) * std::sqrt(24.0 * u.boltz / damp_ / t.dt / u.mvv2e) / u.ftm2v * sqrt_t;
    boost::random::minstd_rand engine(t.noise[i]);
    for (std::size_t d = 0; d < 3; ++d) {
      const double r = (1.0 / 2147483647) * static_cast<double>(engine());
      if (thermal_[d]) t.f[3 * i + d] += gamma1 * t.v[3 * i + d] + gamma2 * (r - 0.5);
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
  if (c->removes_atom_bias())
    throw ConfigError(what + ": compute " + words[at + 1] + " (" + c->style() +
                      ") leaves atoms out as a bias, which md_ipu's thermostats do not support");
  thermal_ = c->thermal_components();
  return 2;
}

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
