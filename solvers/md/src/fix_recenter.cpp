#include "tessera/md/fix_recenter.hpp"

#include <cmath>

#include "arguments.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

FixRecenter::FixRecenter(const FixArguments& a) : Fix(a.id, a.group), print_(a.print) {
  const std::string what = "fix " + a.id + " recenter";
  const char* usage = "fix ID GROUP recenter X|INIT|NULL Y|INIT|NULL Z|INIT|NULL [shift GROUP2] "
                      "[units box|lattice|fraction]";
  arguments::need(a.args, 3, usage);
  for (std::size_t d = 0; d < 3; ++d) {
    if (a.args[d] == "NULL")
      kind_[d] = Target::none;
    else if (a.args[d] == "INIT")
      kind_[d] = Target::init;
    else
      target_[d] = arguments::number(what, a.args[d]);
  }
  group2_ = a.group;
  std::string units = "lattice";
  for (std::size_t k = 3; k < a.args.size(); k += 2) {
    if (k + 1 >= a.args.size()) arguments::bad(what + ": keyword " + a.args[k] + " needs a value");
    if (a.args[k] == "shift") {
      group2_ = a.args[k + 1];
    } else if (a.args[k] == "units") {
      units = a.args[k + 1];
      if (units != "box" && units != "lattice" && units != "fraction")
        arguments::bad(what + ": units must be box, lattice or fraction");
    } else {
      arguments::bad(what + ": unknown keyword '" + a.args[k] + "'; use shift or units");
    }
  }
  const int bit = a.sim ? a.sim->group_bit(group2_) : -1;
  if (bit < 0) arguments::bad(what + ": there is no group " + group2_);
  group2_mask_ = 1u << bit;
  fraction_ = units == "fraction";
  if (units == "lattice")
    for (std::size_t d = 0; d < 3; ++d) target_[d] *= a.lattice[d];
}

// LAMMPS's FixRecenter::init: the group's mass and, for INIT, its centre of mass now.
void FixRecenter::setup(Simulation& sim) {
  pre_integrate(sim);
  const std::uint32_t mask = group_mask();
  const auto sums = sim.reduce_atoms(
      "md.fix_recenter_init", ReduceOp::sum, 4, [&](const AtomsView& a, std::span<double> out) {
        for (std::size_t i = 0; i < a.id.size(); ++i) {
          if ((a.mask[i] & mask) == 0) continue;
          const double m = a.mass[static_cast<std::size_t>(a.type[i])];
          for (std::size_t d = 0; d < 3; ++d) out[d] += m * a.unwrapped(i, d);
          out[3] += m;
        }
      });
  mass_ = sums[3];
  if (!(mass_ > 0))
    throw ConfigError("fix " + id() + " recenter: its group " + group() + " has no atoms");
  for (std::size_t d = 0; d < 3; ++d) init_[d] = sums[d] / mass_;
  bool after = false, warn = false;
  for (const auto& fix : sim.fixes()) {
    if (fix.get() == this) after = true;
    else if (after && fix->integrates()) warn = true;
  }
  if (warn && print_ && sim.runtime().rank() == 0)
    print_("WARNING: Fix recenter should come after all other integration fixes\n");
}

void FixRecenter::pre_integrate(Simulation& sim) {
  box_ = sim.box();
  for (std::size_t d = 0; d < 3; ++d) lo_[d] = box_.lo[d], hi_[d] = box_.hi[d];
}

void FixRecenter::sum_initial_integrate(const FixTile& t, std::span<double> out) const {
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
    if (!in_group(t, i)) continue;
    const double m = t.mass[static_cast<std::size_t>(t.type[i])];
    for (std::size_t d = 0; d < 3; ++d)
      out[d] += m * box_.unwrapped(&t.x[3 * i], &t.image[3 * i], d);
  }
}

// LAMMPS's FixRecenter::initial_integrate: the shift from the centre of mass to the target.
void FixRecenter::set_initial_integrate_sums(std::span<const double> sums) {
  double squared = 0;
  for (std::size_t d = 0; d < 3; ++d) {
    const double target = kind_[d] == Target::init ? init_[d]
                          : fraction_ ? lo_[d] + target_[d] * (hi_[d] - lo_[d])
                                      : target_[d];
    shift_[d] = kind_[d] == Target::none ? 0.0 : target - sums[d] / mass_;
    squared += shift_[d] * shift_[d];
  }
  distance_ = std::sqrt(squared);
}

void FixRecenter::initial_integrate(FixTile& t) {
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i)
    if ((t.mask[i] & group2_mask_) != 0)
      for (std::size_t d = 0; d < 3; ++d) t.x[3 * i + d] += shift_[d];
}

}  // namespace tessera::md
