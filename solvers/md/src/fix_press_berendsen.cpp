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
    auto values = [&](std::size_t n) {
      if (at + n >= w.size())
        bad(what + ": " + key + " needs " + std::to_string(n) + " value" + (n > 1 ? "s" : "") +
            "; usage: " + usage);
    };
    if (key == "iso" || key == "aniso") {
      values(3);
      coupling_ = key == "iso" ? PressureCoupling::xyz : PressureCoupling::none;
      for (std::size_t d = 0; d < 3; ++d) {
        p_start_[d] = number(what + " " + key, w[at + 1]);
        p_stop_[d] = number(what + " " + key, w[at + 2]);
        p_period_[d] = number(what + " " + key, w[at + 3]);
        p_flag_[d] = 1;
      }
      if (dimension == 2) p_start_[2] = p_stop_[2] = p_period_[2] = 0, p_flag_[2] = 0;
      at += 4;
    } else if (key == "x" || key == "y" || key == "z") {
      values(3);
      const auto d = static_cast<std::size_t>(key[0] - 'x');
      if (dimension == 2 && d == 2) bad(what + ": z has no pressure in a 2-d simulation");
      p_start_[d] = number(what + " " + key, w[at + 1]);
      p_stop_[d] = number(what + " " + key, w[at + 2]);
      p_period_[d] = number(what + " " + key, w[at + 3]);
      p_flag_[d] = 1;
      at += 4;
    } else if (key == "couple") {
      values(1);
      const std::string& c = w[at + 1];
      if (c == "xyz")
        coupling_ = PressureCoupling::xyz;
      else if (c == "xy")
        coupling_ = PressureCoupling::xy;
      else if (c == "yz")
        coupling_ = PressureCoupling::yz;
      else if (c == "xz")
        coupling_ = PressureCoupling::xz;
      else if (c == "none")
        coupling_ = PressureCoupling::none;
      else
        bad(what + ": couple takes xyz, xy, yz, xz or none, not '" + c + "'");
      at += 2;
    } else if (key == "modulus") {
      values(1);
      modulus_ = number(what + " modulus", w[at + 1]);
      if (!(modulus_ > 0)) bad(what + ": the bulk modulus must be positive");
      at += 2;
    } else if (key == "dilate") {
      values(1);
      if (w[at + 1] == "partial")
        bad(what + ": dilate partial is not supported (md_ipu's barostat acts on the group all)");
      if (w[at + 1] != "all") bad(what + ": dilate takes all, not '" + w[at + 1] + "'");
      at += 2;
    } else {
      bad(what + ": unknown keyword '" + key + "'; usage: " + usage);
    }
  }
  if (!(p_flag_[0] || p_flag_[1] || p_flag_[2]))
    bad(what + ": no pressure settings (iso, aniso, or x, y, z)");
  auto same = [&](std::size_t i, std::size_t j) {
    return p_flag_[i] && p_flag_[j] && p_start_[i] == p_start_[j] && p_stop_[i] == p_stop_[j] &&
           p_period_[i] == p_period_[j];
  };
  const bool consistent = coupling_ == PressureCoupling::xyz
                              ? same(0, 1) && (dimension == 2 || same(0, 2))
                          : coupling_ == PressureCoupling::xy ? same(0, 1)
                          : coupling_ == PressureCoupling::yz ? same(1, 2)
                          : coupling_ == PressureCoupling::xz ? same(0, 2)
                                                              : true;
  if (!consistent) bad(what + ": coupled dimensions need the same pressure settings");
  for (std::size_t d = 0; d < 3; ++d) {
    if (!p_flag_[d]) continue;
    if (a.sim && !a.sim->boundary().periodic(d))
      bad(what + ": " + std::string(1, static_cast<char>('x' + d)) +
          " is not periodic; a barostat needs a periodic dimension");
    if (!(p_period_[d] > 0)) bad(what + ": Pdamp must be positive");
  }
}

// LAMMPS's FixPressBerendsen::end_of_step and remap.
void FixPressBerendsen::end_of_step(Simulation& sim) {
  const bool iso = coupling_ == PressureCoupling::xyz ||
                   (sim.dimension() == 2 && coupling_ == PressureCoupling::xy);
  const Thermo th = sim.thermo();
  const auto p_current = coupled_pressure(sim, iso, coupling_, sim.dof(), th.ke_tensor, th.virial,
                                          "fix " + id() + " press/berendsen");
  const double delta = sim.ramp_fraction();
  const Box before = sim.box();
  Box after = before;
  for (std::size_t d = 0; d < 3; ++d) {
    if (!p_flag_[d]) continue;
    const double p_target = p_start_[d] + delta * (p_stop_[d] - p_start_[d]);
    const double dilation = std::pow(
        1.0 - sim.timestep() / p_period_[d] * (p_target - p_current[d]) / modulus_, 1.0 / 3.0);
    const double centre = 0.5 * (before.lo[d] + before.hi[d]);
    after.lo[d] = (before.lo[d] - centre) * dilation + centre;
    after.hi[d] = (before.hi[d] - centre) * dilation + centre;
  }
  sim.change_box(after);
  sim.for_each_tile("md.press_berendsen_dilate", [&](FixTile& t) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i)
      dilate(&t.x[3 * i], before, after);
  });
}

nlohmann::json FixPressBerendsen::restart_section() const {
  return {{"p_start", p_start_},
          {"p_stop", p_stop_},
          {"p_damp", p_period_},
          {"p_flag", p_flag_},
          {"couple", static_cast<int>(coupling_)},
          {"modulus", modulus_}};
}

void FixPressBerendsen::restore(const nlohmann::json& v, const detail::RestartHeader& r,
                                const std::string& where) {
  const auto triple = [&](const char* key) {
    return r.triple(r.at(v, key, where + "." + key), where + "." + key);
  };
  p_start_ = triple("p_start");
  p_stop_ = triple("p_stop");
  p_period_ = triple("p_damp");
  const auto flags = triple("p_flag");
  for (std::size_t d = 0; d < 3; ++d) {
    if (flags[d] != 0.0 && flags[d] != 1.0)
      r.fail("has " + where + ".p_flag with a value not 0 or 1");
    p_flag_[d] = static_cast<int>(flags[d]);
    if (p_flag_[d] && !(p_period_[d] > 0)) r.fail("has " + where + ".p_damp not positive");
  }
  coupling_ = static_cast<PressureCoupling>(r.integer(
      r.at(v, "couple", where + ".couple"), where + ".couple", 0, 4, "fix press/berendsen"));
  modulus_ = r.real(r.at(v, "modulus", where + ".modulus"), where + ".modulus",
                    detail::RestartHeader::Sign::positive, "fix press/berendsen");
}

}  // namespace tessera::md
