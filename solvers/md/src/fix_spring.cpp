#include "tessera/md/fix_spring.hpp"

#include <algorithm>
#include <cmath>

#include "arguments.hpp"
#include "tessera/core/tile.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

FixSpring::FixSpring(const FixArguments& a) : Fix(a.id, a.group) {
  const std::string what = "fix " + a.id + " spring";
  const char* usage = "fix ID GROUP spring tether K X Y Z R0 | couple GROUP2 K X Y Z R0";
  arguments::need(a.args, 1, usage);
  std::size_t at = 1;
  if (a.args[0] == "couple") {
    arguments::need(a.args, 7, usage);
    group2_ = a.args[1];
    const int bit = a.sim ? a.sim->group_bit(group2_) : -1;
    if (bit < 0) arguments::bad(what + ": there is no group " + group2_);
    group2_mask_ = 1u << bit;
    at = 2;
  } else if (a.args[0] == "tether") {
    arguments::need(a.args, 6, usage);
  } else {
    arguments::bad(what + ": unknown style '" + a.args[0] + "'; use tether or couple");
  }
  if (a.args.size() != at + 5)
    arguments::bad(what + ": wrong number of arguments; usage: " + usage);
  k_ = arguments::number(what + " K", a.args[at]);
  for (std::size_t d = 0; d < 3; ++d)
    if (a.args[at + 1 + d] != "NULL") target_[d] = arguments::number(what, a.args[at + 1 + d]);
  r0_ = arguments::number(what + " R0", a.args[at + 4]);
  if (r0_ < 0) arguments::bad(what + ": R0 must not be negative");
}

void FixSpring::pre_force(Simulation& sim) {
  box_ = sim.box();
}

void FixSpring::sum_post_force(const FixTile& t, std::span<double> out) const {
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
    const double m = t.mass[static_cast<std::size_t>(t.type[i])];
    for (std::size_t g = 0; g < 2; ++g) {
      if (!(g == 0 ? in_group(t, i) : (t.mask[i] & group2_mask_) != 0)) continue;
      for (std::size_t d = 0; d < 3; ++d)
        out[4 * g + d] += m * box_.unwrapped(&t.x[3 * i], &t.image[3 * i], d);
      out[4 * g + 3] += m;
    }
  }
}

// LAMMPS's FixSpring::spring_tether and spring_couple.
void FixSpring::set_post_force_sums(std::span<const double> sums) {
  const double mass = sums[3], mass2 = sums[7];
  std::array<double, 3> delta{};
  for (std::size_t d = 0; d < 3; ++d) {
    if (!target_[d]) continue;
    const double cm = mass > 0 ? sums[d] / mass : 0.0;
    if (group2_.empty()) {
      delta[d] = cm - *target_[d];
    } else {
      const double cm2 = mass2 > 0 ? sums[4 + d] / mass2 : 0.0;
      delta[d] = cm2 - cm - *target_[d];
    }
  }
  const double r =
      std::max(std::sqrt(delta[0] * delta[0] + delta[1] * delta[1] + delta[2] * delta[2]), 1.0e-10);
  const double stretch = r - r0_;
  std::array<double, 3> force{};
  for (std::size_t d = 0; d < 3; ++d) force[d] = k_ * delta[d] * stretch / r;
  const double magnitude =
      std::sqrt(force[0] * force[0] + force[1] * force[1] + force[2] * force[2]);
  total_[3] = stretch < 0.0 ? -magnitude : magnitude;
  energy_ = 0.5 * k_ * stretch * stretch;
  for (std::size_t d = 0; d < 3; ++d) {
    if (group2_.empty()) {
      total_[d] = -force[d];
      per_mass_[d] = mass > 0 ? -force[d] / mass : 0.0;
    } else {
      total_[d] = force[d];
      per_mass_[d] = mass > 0 ? force[d] / mass : 0.0;
      per_mass2_[d] = mass2 > 0 ? -force[d] / mass2 : 0.0;
    }
  }
}

void FixSpring::post_force(FixTile& t) {
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
    const double m = t.mass[static_cast<std::size_t>(t.type[i])];
    if (in_group(t, i))
      for (std::size_t d = 0; d < 3; ++d) t.f[3 * i + d] += per_mass_[d] * m;
    if ((t.mask[i] & group2_mask_) != 0)
      for (std::size_t d = 0; d < 3; ++d) t.f[3 * i + d] += per_mass2_[d] * m;
  }
}

double FixSpring::tile_energy(const Tile& tile) const { return tile.id() == 0 ? energy_ : 0.0; }

}  // namespace tessera::md
