#include "tessera/md/fix_temp_rescale.hpp"

#include <cmath>

#include "arguments.hpp"
#include "restart_header.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

FixTempRescale::FixTempRescale(const FixArguments& a) : Fix(a.id, a.group) {
  if (a.from_restart) return;
  const char* usage = "fix ID GROUP temp/rescale N TSTART TSTOP WINDOW FRACTION";
  arguments::need(a.args, 5, usage);
  if (a.args.size() > 5)
    arguments::bad(std::string("fix temp/rescale takes five values; usage: ") + usage);
  const std::string what = "fix temp/rescale";
  every_ = static_cast<int>(arguments::integer(what + " N", a.args[0], 1, arguments::int_max));
  for (std::size_t k = 1; k < 3; ++k)
    if (a.args[k].rfind("v_", 0) == 0)
      arguments::bad(what + ": a variable temperature (" + a.args[k] + ") is not supported");
  t_start_ = arguments::number(what, a.args[1]);
  t_stop_ = arguments::number(what, a.args[2]);
  window_ = arguments::number(what, a.args[3]);
  fraction_ = arguments::number(what, a.args[4]);
  if (t_start_ < 0 || t_stop_ < 0) arguments::bad(what + ": the temperatures must not be negative");
}

std::size_t FixTempRescale::modify(Simulation& sim, const std::vector<std::string>& words,
                                   std::size_t at) {
  const std::size_t taken = temperature_.modify(*this, sim, words, at);
  return taken > 0 ? taken : Fix::modify(sim, words, at);
}

void FixTempRescale::end_of_step(Simulation& sim) {
  Compute& temp = temperature_.get(*this, sim);
  const double t_current = temp.scalar(sim);
  const double dof = temp.dof(sim);
  if (dof < 1) return;  // nothing to rescale
  if (t_current == 0.0)
    throw ConfigError("fix " + id() + " temp/rescale: the temperature is 0 at step " +
                      std::to_string(sim.step()) +
                      " and cannot be rescaled; give the group "
                      "velocities first (velocity create)");
  double t_target = t_start_ + sim.ramp_fraction() * (t_stop_ - t_start_);
  if (std::fabs(t_current - t_target) > window_) {
    t_target = t_current - fraction_ * (t_current - t_target);
    energy_ += (t_current - t_target) * 0.5 * sim.units().boltz * dof;
    // LAMMPS removes the temperature's bias, scales, and restores it.
    sim.scale_thermal_velocities(group_mask(), std::sqrt(t_target / t_current),
                                 velocity_bias(sim, temp));
  }
}

nlohmann::json FixTempRescale::restart_section() const {
  return {{"every", every_},   {"t_start", t_start_},   {"t_stop", t_stop_},
          {"window", window_}, {"fraction", fraction_}, {"temperature", temperature_.id()},
          {"energy", energy_}};
}

void FixTempRescale::restore(const nlohmann::json& v, const detail::RestartHeader& r,
                             const std::string& where) {
  using Sign = detail::RestartHeader::Sign;
  every_ = static_cast<int>(r.integer(r.at(v, "every", where + ".every"), where + ".every", 1,
                                      arguments::int_max, "fix temp/rescale"));
  t_start_ = r.real(r.at(v, "t_start", where + ".t_start"), where + ".t_start", Sign::non_negative,
                    "fix temp/rescale");
  t_stop_ = r.real(r.at(v, "t_stop", where + ".t_stop"), where + ".t_stop", Sign::non_negative,
                   "fix temp/rescale");
  window_ = r.real(r.at(v, "window", where + ".window"), where + ".window", Sign::any,
                   "fix temp/rescale");
  fraction_ = r.real(r.at(v, "fraction", where + ".fraction"), where + ".fraction", Sign::any,
                     "fix temp/rescale");
  temperature_.set_id(
      r.text_or_empty(r.at(v, "temperature", where + ".temperature"), where + ".temperature"));
  energy_ = r.real(r.at(v, "energy", where + ".energy"), where + ".energy", Sign::any,
                   "fix temp/rescale");
}

}  // namespace tessera::md
