#include "tessera/md/fix_temp_berendsen.hpp"

#include <cmath>

#include "arguments.hpp"
#include "restart_header.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

FixTempBerendsen::FixTempBerendsen(const FixArguments& a) : Fix(a.id, a.group) {
  if (a.from_restart) return;
  const char* usage = "fix ID GROUP temp/berendsen TSTART TSTOP TDAMP";
  arguments::need(a.args, 3, usage);
  if (a.args.size() > 3)
    arguments::bad(std::string("fix temp/berendsen takes three values; usage: ") + usage);
  const std::string what = "fix " + a.id + " temp/berendsen";
  for (std::size_t k = 0; k < 2; ++k)
    if (a.args[k].rfind("v_", 0) == 0)
      arguments::bad(what + ": a variable temperature (" + a.args[k] + ") is not supported");
  t_start_ = arguments::number(what, a.args[0]);
  t_stop_ = arguments::number(what, a.args[1]);
  t_period_ = arguments::number(what, a.args[2]);
  if (t_start_ < 0 || t_stop_ < 0) arguments::bad(what + ": the temperatures must not be negative");
  if (!(t_period_ > 0)) arguments::bad(what + ": Tdamp must be positive");
}

std::size_t FixTempBerendsen::modify(Simulation& sim, const std::vector<std::string>& words,
                                     std::size_t at) {
  const std::size_t taken = temperature_.modify(*this, sim, words, at);
  return taken > 0 ? taken : Fix::modify(sim, words, at);
}

// LAMMPS's FixTempBerendsen::end_of_step.
void FixTempBerendsen::end_of_step(Simulation& sim) {
  Compute& temp = temperature_.get(*this, sim);
  const double t_current = temp.scalar(sim);
  const double tdof = temp.dof(sim);
  if (tdof < 1) return;  // nothing to scale
  if (t_current == 0.0)
    throw ConfigError("fix " + id() + " temp/berendsen: the temperature is 0 at step " +
                      std::to_string(sim.step()) +
                      " and cannot be scaled; give the group velocities first (velocity create)");
  const double t_target = t_start_ + sim.ramp_fraction() * (t_stop_ - t_start_);
  const double lamda = std::sqrt(1.0 + sim.timestep() / t_period_ * (t_target / t_current - 1.0));
  const double efactor = 0.5 * sim.units().boltz * tdof;
  energy_ += t_current * (1.0 - lamda * lamda) * efactor;
  sim.scale_thermal_velocities(group_mask(), lamda, velocity_bias(sim, temp));
}

nlohmann::json FixTempBerendsen::restart_section() const {
  return {{"t_start", t_start_},
          {"t_stop", t_stop_},
          {"t_damp", t_period_},
          {"temperature", temperature_.id()},
          {"energy", energy_}};
}

void FixTempBerendsen::restore(const nlohmann::json& v, const detail::RestartHeader& r,
                               const std::string& where) {
  using Sign = detail::RestartHeader::Sign;
  const auto real = [&](const char* key, Sign sign) {
    return r.real(r.at(v, key, where + "." + key), where + "." + key, sign, "fix temp/berendsen");
  };
  t_start_ = real("t_start", Sign::non_negative);
  t_stop_ = real("t_stop", Sign::non_negative);
  t_period_ = real("t_damp", Sign::positive);
  temperature_.set_id(
      r.text_or_empty(r.at(v, "temperature", where + ".temperature"), where + ".temperature"));
  energy_ = real("energy", Sign::any);
}

}  // namespace tessera::md
