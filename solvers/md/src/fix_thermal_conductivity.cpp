#include "tessera/md/fix_thermal_conductivity.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "arguments.hpp"
#include "slab_exchange.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {
FixThermalConductivity::FixThermalConductivity(const FixArguments& a) : Fix(a.id, a.group) {
  const std::string what = "fix thermal/conductivity";
  arguments::need(a.args, 3, "fix ID GROUP thermal/conductivity N EDIM NBIN [swap NSWAP]");
  every_ = static_cast<int>(arguments::integer(what + " N", a.args[0], 1, arguments::int_max));
  dim_ = static_cast<int>(arguments::axis(what + ": EDIM", a.args[1]));
  bins_ = static_cast<int>(arguments::integer(what + " NBIN", a.args[2], 1, arguments::int_max));
  if (bins_ % 2 != 0 || bins_ <= 2) arguments::bad(what + ": NBIN must be even and more than 2");
  for (std::size_t k = 3; k < a.args.size(); k += 2) {
    if (a.args[k] != "swap")
      arguments::bad(what + ": unknown keyword '" + a.args[k] + "'; supported: swap");
    if (k + 1 >= a.args.size()) arguments::bad(what + ": keyword swap needs a value");
    swaps_ = static_cast<int>(arguments::integer(what + " swap", a.args[k + 1], 1, 1000000));
  }
}

// LAMMPS's FixThermalConductivity::end_of_step: the hottest atoms of the first slab, the
// coldest of the middle one.
void FixThermalConductivity::end_of_step(Simulation& sim) {
  const auto kinetic = [](const double* v, double m) {
    return (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) * (0.5 * m);
  };
  const SlabCandidates c = slab_candidates(
      sim, "md.fix_thermal_conductivity", group_mask(), dim_, bins_,
      static_cast<std::size_t>(swaps_),
      [&](const double* v, double m) -> std::optional<double> { return -kinetic(v, m); },
      [&](const double* v, double m) -> std::optional<double> { return kinetic(v, m); });
  // Each pair reflected about its centre-of-mass velocity, in LAMMPS's arithmetic.
  std::map<std::int64_t, std::array<double, 3>> changed;
  double swapped = 0.0;
  for (std::size_t m = 0; m < std::min(c.first.size(), c.middle.size()); ++m) {
    const SlabAtom& i = c.first[m];   // LAMMPS's rbuf
    const SlabAtom& j = c.middle[m];  // LAMMPS's sbuf
    std::array<double, 3> vcm{}, vi{}, vj{};
    for (std::size_t k = 0; k < 3; ++k) {
      vcm[k] = (j.mass * j.v[k] + i.mass * i.v[k]) / (j.mass + i.mass);
      vj[k] = 2.0 * vcm[k] - j.v[k];
      vi[k] = 2.0 * vcm[k] - i.v[k];
    }
    swapped += j.mass * (vcm[0] * (vcm[0] - j.v[0]) + vcm[1] * (vcm[1] - j.v[1]) +
                         vcm[2] * (vcm[2] - j.v[2]));
    swapped -= i.mass * (vcm[0] * (vcm[0] - i.v[0]) + vcm[1] * (vcm[1] - i.v[1]) +
                         vcm[2] * (vcm[2] - i.v[2]));
    changed[j.id] = vj;
    changed[i.id] = vi;
  }
  exchanged_ += sim.units().mvv2e * swapped;
  set_velocities(sim, "md.fix_thermal_conductivity", changed);
}

}  // namespace tessera::md
