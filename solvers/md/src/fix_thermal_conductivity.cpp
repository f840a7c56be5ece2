#include "tessera/md/fix_thermal_conductivity.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "arguments.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {
namespace {
// A candidate: kinetic energy, ID, velocity and mass (the gathered record's layout).
constexpr std::size_t record = 6;
}  // namespace

FixThermalConductivity::FixThermalConductivity(const FixArguments& a) : Fix(a.id, a.group) {
  const std::string what = "fix thermal/conductivity";
  arguments::need(a.args, 3, "fix ID GROUP thermal/conductivity N EDIM NBIN [swap NSWAP]");
  every_ = static_cast<int>(arguments::integer(what + " N", a.args[0], 1, arguments::int_max));
  const std::string& d = a.args[1];
  if (d != "x" && d != "y" && d != "z")
    arguments::bad(what + ": EDIM must be x, y or z, not '" + d + "'");
  dim_ = d[0] - 'x';
  bins_ = static_cast<int>(arguments::integer(what + " NBIN", a.args[2], 1, arguments::int_max));
  if (bins_ % 2 != 0 || bins_ <= 2) arguments::bad(what + ": NBIN must be even and more than 2");
  for (std::size_t k = 3; k < a.args.size(); k += 2) {
    if (a.args[k] != "swap")
      arguments::bad(what + ": unknown keyword '" + a.args[k] + "'; supported: swap");
    if (k + 1 >= a.args.size()) arguments::bad(what + ": keyword swap needs a value");
    swaps_ = static_cast<int>(arguments::integer(what + " swap", a.args[k + 1], 1, 1000000));
  }
}

// LAMMPS's FixThermalConductivity::end_of_step.
void FixThermalConductivity::end_of_step(Simulation& sim) {
  const Box& box = sim.box();
  const auto d = static_cast<std::size_t>(dim_);
  const double lo = box.lo[d], hi = box.hi[d], length = hi - lo;
  const bool periodic = sim.boundary().periodic(d);
  const double bin = length / bins_;
  const double cold_lo = lo + (bins_ / 2) * bin, cold_hi = lo + (bins_ / 2 + 1) * bin;
  const auto n = static_cast<std::size_t>(swaps_);
  // Each tile's hottest atoms in the first slab and coldest in the middle one (records with
  // mass 0 are empty).
  const auto all = sim.gather_atoms(
      "md.fix_thermal_conductivity", 2 * n * record,
      [&](const AtomsView& a, std::span<double> out) {
        std::vector<std::array<double, record>> hot, cold;
        for (std::size_t i = 0; i < a.id.size(); ++i) {
          if ((a.mask[i] & group_mask()) == 0) continue;
          double coord = a.x[3 * i + d];
          if (coord < lo && periodic)
            coord += length;
          else if (coord >= hi && periodic)
            coord -= length;
          const double* v = &a.v[3 * i];
          const double m = a.mass[static_cast<std::size_t>(a.type[i])];
          const std::array<double, record> r{(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) * (0.5 * m),
                                             static_cast<double>(a.id[i]),
                                             v[0],
                                             v[1],
                                             v[2],
                                             m};
          if (coord >= lo && coord < lo + bin) hot.push_back(r);
          if (coord >= cold_lo && coord < cold_hi) cold.push_back(r);
        }
        auto keep = [&](std::vector<std::array<double, record>>& list, bool hottest,
                        std::size_t at) {
          const std::size_t k = std::min(n, list.size());
          std::partial_sort(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(k), list.end(),
                            [&](const auto& p, const auto& q) {
                              if (p[0] != q[0]) return hottest ? p[0] > q[0] : p[0] < q[0];
                              return p[1] < q[1];
                            });
          for (std::size_t j = 0; j < k; ++j)
            std::copy(list[j].begin(), list[j].end(), out.begin() + (at + j) * record);
        };
        keep(hot, true, 0);
        keep(cold, false, n);
      });
  // The group's NSWAP hottest and coldest over every tile.
  std::vector<std::array<double, record>> hot, cold;
  for (std::size_t t = 0; t < all.size() / (2 * n * record); ++t)
    for (std::size_t j = 0; j < 2 * n; ++j) {
      std::array<double, record> r{};
      std::copy_n(all.begin() + static_cast<std::ptrdiff_t>((t * 2 * n + j) * record), record,
                  r.begin());
      if (r[5] > 0) (j < n ? hot : cold).push_back(r);
    }
  auto rank = [&](std::vector<std::array<double, record>>& list, bool hottest) {
    std::sort(list.begin(), list.end(), [&](const auto& p, const auto& q) {
      if (p[0] != q[0]) return hottest ? p[0] > q[0] : p[0] < q[0];
      return p[1] < q[1];
    });
    if (list.size() > n) list.resize(n);
  };
  rank(hot, true);
  rank(cold, false);
  // Each pair reflected about its centre-of-mass velocity, in LAMMPS's arithmetic.
  std::map<std::int64_t, std::array<double, 3>> changed;
  double swapped = 0.0;
  for (std::size_t m = 0; m < std::min(hot.size(), cold.size()); ++m) {
    const auto& i = hot[m];   // LAMMPS's rbuf
    const auto& j = cold[m];  // LAMMPS's sbuf
    std::array<double, 3> vcm{}, vi{}, vj{};
    for (std::size_t c = 0; c < 3; ++c) {
      vcm[c] = (j[5] * j[2 + c] + i[5] * i[2 + c]) / (j[5] + i[5]);
      vj[c] = 2.0 * vcm[c] - j[2 + c];
      vi[c] = 2.0 * vcm[c] - i[2 + c];
    }
    swapped +=
        j[5] * (vcm[0] * (vcm[0] - j[2]) + vcm[1] * (vcm[1] - j[3]) + vcm[2] * (vcm[2] - j[4]));
    swapped -=
        i[5] * (vcm[0] * (vcm[0] - i[2]) + vcm[1] * (vcm[1] - i[3]) + vcm[2] * (vcm[2] - i[4]));
    changed[static_cast<std::int64_t>(j[1])] = vj;
    changed[static_cast<std::int64_t>(i[1])] = vi;
  }
  exchanged_ += sim.units().mvv2e * swapped;
  if (changed.empty()) return;
  sim.adjust_velocities("md.fix_thermal_conductivity", [&](FixTile& t) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
      const auto it = changed.find(t.id[i]);
      if (it != changed.end())
        for (std::size_t c = 0; c < 3; ++c) t.v[3 * i + c] = it->second[c];
    }
  });
}

}  // namespace tessera::md
