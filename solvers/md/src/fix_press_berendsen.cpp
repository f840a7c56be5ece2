#include "tessera/md/fix_press_berendsen.hpp"

#include <cmath>

#include "arguments.hpp"
#include "restart_header.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {
using namespace arguments;

FixPressBerendsen::FixPressBerendsen(const FixArguments& a) : Fix(a.id, a.group) {
  const std::string what = "fix " + a.id + " press/berendsen";
  if (a.group != "all") throw ConfigError(what + ": md_ipu's barostats act on the group all");
  if (a.from_restart) return;
  const char* usage =
      "fix ID all press/berendsen iso|aniso P0 P1 PDAMP | x|y|z P0 P1 PDAMP ... [couple "
      "xyz|xy|yz|xz|none] [modulus B] [dilate all]";
  const std::vector<std::string>& w = a.args;
  need(w, 4, usage);
  const int dimension = a.sim ? a.sim->dimension() : 3;
  for (std::size_t at = 0; at < w.size();) {
    const std::string& key = w[at];
    if (const std::size_t taken = pressure_.parse(w, at, dimension, what)) {
      at += taken;
    } else if (key == "modulus") {
      if (at + 1 >= w.size()) bad(what + ": modulus needs 1 value");
      modulus_ = number(what + " modulus", w[at + 1]);
      if (!(modulus_ > 0)) bad(what + ": the bulk modulus must be positive");
      at += 2;
    } else {
      bad(what + ": unknown keyword '" + key + "'; usage: " + usage);
    }
  }
  if (pressure_.dimensions() == 0) bad(what + ": no pressure settings (iso, aniso, or x, y, z)");
  if (a.sim && a.sim->has_box() && a.sim->box().triclinic)
    bad(what +
        ": the box is triclinic; fix press/berendsen changes orthogonal boxes only (as "
        "LAMMPS's; use fix npt or nph)");
  pressure_.check(a.sim, dimension, what);
}

// LAMMPS's FixPressBerendsen::end_of_step and remap.
void FixPressBerendsen::end_of_step(Simulation& sim) {
  const bool iso = pressure_.iso(sim.dimension());
  const Thermo th = sim.thermo();
  const auto p_current =
      coupled_pressure(sim, iso, pressure_.coupling, sim.dof(), std::nullopt, th.ke_tensor,
                       th.total_virial(), "fix " + id() + " press/berendsen");
  const double delta = sim.ramp_fraction();
  const Box before = sim.box();
  Box after = before;
  for (std::size_t d = 0; d < 3; ++d) {
    if (!pressure_.flag[d]) continue;
    const double p_target = pressure_.start[d] + delta * (pressure_.stop[d] - pressure_.start[d]);
    const double dilation =
        std::pow(1.0 - sim.timestep() / pressure_.period[d] * (p_target - p_current[d]) / modulus_,
                 1.0 / 3.0);
    const double centre = 0.5 * (before.lo[d] + before.hi[d]);
    after.lo[d] = (before.lo[d] - centre) * dilation + centre;
    after.hi[d] = (before.hi[d] - centre) * dilation + centre;
  }
  sim.change_box(after);
  const BoxMatrix from(before), to(after);
  sim.for_each_tile("md.press_berendsen_dilate", [&](FixTile& t) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i)
      dilate(&t.x[3 * i], from, to);
  });
}

nlohmann::json FixPressBerendsen::restart_section() const {
  return {{"p_start", pressure_.start},
          {"p_stop", pressure_.stop},
          {"p_damp", pressure_.period},
          {"p_flag", pressure_.flag},
          {"couple", static_cast<int>(pressure_.coupling)},
          {"modulus", modulus_}};
}

void FixPressBerendsen::restore(const nlohmann::json& v, const detail::RestartHeader& r,
                                const std::string& where) {
  const auto triple = [&](const char* key) {
    return r.triple(r.at(v, key, where + "." + key), where + "." + key);
  };
  pressure_.start = triple("p_start");
  pressure_.stop = triple("p_stop");
  pressure_.period = triple("p_damp");
  const auto flags = triple("p_flag");
  for (std::size_t d = 0; d < 3; ++d) {
    if (flags[d] != 0.0 && flags[d] != 1.0)
      r.fail("has " + where + ".p_flag with a value not 0 or 1");
    pressure_.flag[d] = static_cast<int>(flags[d]);
    if (pressure_.flag[d] && !(pressure_.period[d] > 0))
      r.fail("has " + where + ".p_damp not positive");
  }
  pressure_.coupling = static_cast<PressureCoupling>(r.integer(
      r.at(v, "couple", where + ".couple"), where + ".couple", 0, 4, "fix press/berendsen"));
  modulus_ = r.real(r.at(v, "modulus", where + ".modulus"), where + ".modulus",
                    detail::RestartHeader::Sign::positive, "fix press/berendsen");
}

}  // namespace tessera::md
