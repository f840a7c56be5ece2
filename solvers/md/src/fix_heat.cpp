#include "tessera/md/fix_heat.hpp"

#include <array>
#include <cmath>

#include "arguments.hpp"
#include "tessera/md/region.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

FixHeat::FixHeat(const FixArguments& a) : Fix(a.id, a.group), variable_(a.variable) {
  const std::string what = "fix heat";
  arguments::need(a.args, 2, "fix ID GROUP heat N EFLUX [region ID]");
  every_ = static_cast<int>(arguments::integer(what + " N", a.args[0], 1, arguments::int_max));
  if (a.args[1].rfind("v_", 0) == 0) {
    if (!variable_) arguments::bad(what + ": no variables here for " + a.args[1]);
    flux_variable_ = a.args[1].substr(2);
  } else {
    flux_ = arguments::number(what + " EFLUX", a.args[1]);
  }
  for (std::size_t k = 2; k < a.args.size(); k += 2) {
    if (a.args[k] != "region")
      arguments::bad(what + ": unknown keyword '" + a.args[k] + "'; supported: region");
    if (k + 1 >= a.args.size()) arguments::bad(what + ": keyword region needs a region ID");
    if (!a.region) arguments::bad(what + ": no regions here");
    region_ = a.region(a.args[k + 1]);
  }
}

// LAMMPS's FixHeat::end_of_step for a constant or equal-style heat input.
void FixHeat::end_of_step(Simulation& sim) {
  const std::string what = "fix " + id() + " heat";
  const double input = flux_variable_.empty() ? flux_ : variable_(flux_variable_);
  const Region* region = region_.get();
  auto counted = [&](const auto& t, std::size_t i) {
    return (t.mask[i] & group_mask()) != 0 &&
           (!region || region->matches({t.x[3 * i], t.x[3 * i + 1], t.x[3 * i + 2]}));
  };
  // The scaled atoms' count, mass, sum m v^2 and momentum.
  const auto sums = sim.reduce_atoms(
      "md.fix_heat_sums", ReduceOp::sum, 6, [&](const AtomsView& a, std::span<double> out) {
        for (std::size_t i = 0; i < a.id.size(); ++i) {
          if (!counted(a, i)) continue;
          const double m = a.mass[static_cast<std::size_t>(a.type[i])];
          const double* v = &a.v[3 * i];
          out[0] += 1;
          out[1] += m;
          out[2] += m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
          for (std::size_t d = 0; d < 3; ++d) out[3 + d] += m * v[d];
        }
      });
  if (sums[0] == 0)
    throw ConfigError(what + ": the group has no atoms" + (region ? " in the region" : ""));
  const double mass = sums[1];
  if (mass <= 0) throw ConfigError(what + ": the group's mass is not positive");
  const Units& u = sim.units();
  const double ke = 0.5 * u.mvv2e * sums[2] * u.ftm2v;
  std::array<double, 3> vcm{};
  for (std::size_t d = 0; d < 3; ++d) vcm[d] = sums[3 + d] / mass;
  const double vcmsq = vcm[0] * vcm[0] + vcm[1] * vcm[1] + vcm[2] * vcm[2];
  const double heat = input * every_ * sim.timestep() * u.ftm2v;
  const double escale = (ke + heat - 0.5 * vcmsq * mass) / (ke - 0.5 * vcmsq * mass);
  if (escale < 0.0)
    throw ConfigError(what + ": the kinetic energy would go negative at step " +
                      std::to_string(sim.step()) + "; lower the heat removed");
  scale_ = std::sqrt(escale);
  std::array<double, 3> vsub{};
  for (std::size_t d = 0; d < 3; ++d) vsub[d] = (scale_ - 1.0) * vcm[d];
  sim.adjust_velocities("md.fix_heat", [&](FixTile& t) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i)
      if (counted(t, i))
        for (std::size_t d = 0; d < 3; ++d) t.v[3 * i + d] = scale_ * t.v[3 * i + d] - vsub[d];
  });
}

}  // namespace tessera::md
