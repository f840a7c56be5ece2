#include "tessera/md/fix_viscosity.hpp"

#include <array>
#include <cmath>
#include <map>
#include <optional>

#include "arguments.hpp"
#include "slab_exchange.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {
namespace {

// LAMMPS's BIG: the target of "INF", large but not so large that subtracting a velocity from it
// loses it.
constexpr double infinite_target = 1.0e10;

}  // namespace

FixViscosity::FixViscosity(const FixArguments& a) : Fix(a.id, a.group) {
  const std::string what = "fix viscosity";
  arguments::need(a.args, 4,
                  "fix ID GROUP viscosity N VDIM PDIM NBIN [swap NSWAP] [vtarget V|INF]");
  every_ = static_cast<int>(arguments::integer(what + " N", a.args[0], 1, arguments::int_max));
  velocity_dim_ = static_cast<int>(arguments::axis(what + ": VDIM", a.args[1]));
  slab_dim_ = static_cast<int>(arguments::axis(what + ": PDIM", a.args[2]));
  bins_ = static_cast<int>(arguments::integer(what + " NBIN", a.args[3], 1, arguments::int_max));
  if (bins_ % 2 != 0 || bins_ <= 2) arguments::bad(what + ": NBIN must be even and more than 2");
  for (std::size_t k = 4; k < a.args.size(); k += 2) {
    const std::string& key = a.args[k];
    if (k + 1 >= a.args.size()) arguments::bad(what + ": keyword " + key + " needs a value");
    if (key == "swap") {
      swaps_ = static_cast<int>(arguments::integer(what + " swap", a.args[k + 1], 1, 1000000));
    } else if (key == "vtarget") {
      target_ = a.args[k + 1] == "INF" ? infinite_target
                                       : arguments::number(what + " vtarget", a.args[k + 1]);
      if (!(target_ > 0)) arguments::bad(what + ": vtarget must be positive");
    } else {
      arguments::bad(what + ": unknown keyword '" + key + "'; supported: swap, vtarget");
    }
  }
}

// LAMMPS's FixViscosity::end_of_step.
void FixViscosity::end_of_step(Simulation& sim) {
  const auto d = static_cast<std::size_t>(velocity_dim_);
  const SlabCandidates c = slab_candidates(
      sim, "md.fix_viscosity", group_mask(), slab_dim_, bins_, static_cast<std::size_t>(swaps_),
      [&](const double* v, double) -> std::optional<double> {
        if (v[d] < 0.0) return std::nullopt;
        return std::fabs(v[d] - target_);
      },
      [&](const double* v, double) -> std::optional<double> {
        if (v[d] > 0.0) return std::nullopt;
        return std::fabs(v[d] + target_);
      });
  std::map<std::int64_t, std::array<double, 3>> changed;
  double moved = 0.0;
  for (std::size_t m = 0; m < std::min(c.first.size(), c.middle.size()); ++m) {
    const SlabAtom& up = c.first[m];     // LAMMPS's rbuf
    const SlabAtom& down = c.middle[m];  // LAMMPS's sbuf
    const double vcm = (down.mass * down.v[d] + up.mass * up.v[d]) / (down.mass + up.mass);
    std::array<double, 3> v_up = up.v, v_down = down.v;
    v_down[d] = 2.0 * vcm - down.v[d];
    v_up[d] = 2.0 * vcm - up.v[d];
    moved += up.mass * (vcm - up.v[d]) - down.mass * (vcm - down.v[d]);
    changed[down.id] = v_down;
    changed[up.id] = v_up;
  }
  exchanged_ += moved;
  set_velocities(sim, "md.fix_viscosity", changed);
}

}  // namespace tessera::md
