#include "tessera/md/barostat.hpp"

#include <cmath>

#include "arguments.hpp"
#include "tessera/md/region.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

std::size_t PressureSettings::parse(const std::vector<std::string>& w, std::size_t at,
                                    int dimension, const std::string& what) {
  using arguments::bad;
  using arguments::number;
  const std::string& key = w[at];
  auto need_values = [&](std::size_t n) {
    if (at + n >= w.size())
      bad(what + ": " + key + " needs " + std::to_string(n) + " value" + (n > 1 ? "s" : ""));
  };
  if (key == "iso" || key == "aniso") {
    need_values(3);
    const double p0 = number(what + " " + key, w[at + 1]), p1 = number(what + " " + key, w[at + 2]),
                 damp = number(what + " " + key, w[at + 3]);
    set_all(p0, p1, damp, dimension,
            key == "iso" ? PressureCoupling::xyz : PressureCoupling::none);
    return 4;
  }
  if (key == "x" || key == "y" || key == "z") {
    need_values(3);
    const auto d = static_cast<std::size_t>(key[0] - 'x');
    if (dimension == 2 && d == 2) bad(what + ": z has no pressure in a 2-d simulation");
    start[d] = number(what + " " + key, w[at + 1]);
    stop[d] = number(what + " " + key, w[at + 2]);
    period[d] = number(what + " " + key, w[at + 3]);
    flag[d] = 1;
    per_dimension = true;
    return 4;
  }
  if (key == "couple") {
    need_values(1);
    const std::string& c = w[at + 1];
    if (c == "xyz")
      coupling = PressureCoupling::xyz;
    else if (c == "xy")
      coupling = PressureCoupling::xy;
    else if (c == "yz")
      coupling = PressureCoupling::yz;
    else if (c == "xz")
      coupling = PressureCoupling::xz;
    else if (c == "none")
      coupling = PressureCoupling::none;
    else
      bad(what + ": couple takes xyz, xy, yz, xz or none, not '" + c + "'");
    return 2;
  }
  if (key == "dilate") {
    need_values(1);
    if (w[at + 1] == "partial")
      bad(what + ": dilate partial is not supported (md_ipu's barostat acts on the group all)");
    if (w[at + 1] != "all") bad(what + ": dilate takes all, not '" + w[at + 1] + "'");
    return 2;
  }
  return 0;
}

void PressureSettings::set_all(double p0, double p1, double damp, int dimension,
                               PressureCoupling how) {
  coupling = how;
  for (std::size_t d = 0; d < 3; ++d) start[d] = p0, stop[d] = p1, period[d] = damp, flag[d] = 1;
  if (dimension == 2) start[2] = stop[2] = period[2] = 0, flag[2] = 0;
}

void PressureSettings::check(const Simulation* sim, int dimension, const std::string& what) const {
  using arguments::bad;
  if (dimension == 2 && (coupling == PressureCoupling::yz || coupling == PressureCoupling::xz))
    bad(what + ": couple yz or xz in a 2-d simulation");
  auto same = [&](std::size_t i, std::size_t j) {
    return start[i] == start[j] && stop[i] == stop[j] && period[i] == period[j];
  };
  const std::pair<PressureCoupling, std::array<std::size_t, 2>> pairs[] = {
      {PressureCoupling::xy, {0, 1}},
      {PressureCoupling::yz, {1, 2}},
      {PressureCoupling::xz, {0, 2}}};
  for (const auto& [c, dims] : pairs)
    if (coupling == c && (!flag[dims[0]] || !flag[dims[1]] || !same(dims[0], dims[1])))
      bad(what + ": coupled dimensions need the same pressure settings");
  if (coupling == PressureCoupling::xyz && (!flag[0] || !flag[1] || (dimension == 3 && !flag[2]) ||
                                            !same(0, 1) || (dimension == 3 && !same(0, 2))))
    bad(what + ": couple xyz needs the same pressure settings in every dimension");
  for (std::size_t d = 0; d < 3; ++d) {
    if (!flag[d]) continue;
    if (sim && !sim->boundary().periodic(d))
      bad(what + ": " + std::string(1, static_cast<char>('x' + d)) +
          " is not periodic; a barostat needs a periodic dimension");
    if (!(period[d] > 0)) bad(what + ": Pdamp must be positive");
  }
}

std::array<double, 6> kinetic_tensor(Simulation& sim, std::uint32_t mask, const Region* region) {
  const auto t = sim.reduce_atoms(
      "md.kinetic_tensor", ReduceOp::sum, 6, [&](const AtomsView& a, std::span<double> out) {
        for (std::size_t i = 0; i < a.id.size(); ++i) {
          if (!(a.mask[i] & mask)) continue;
          if (region && !region->matches({a.x[3 * i], a.x[3 * i + 1], a.x[3 * i + 2]})) continue;
          add_kinetic_tensor(out.data(), a.mass[static_cast<std::size_t>(a.type[i])], &a.v[3 * i]);
        }
      });
  std::array<double, 6> k{};
  for (std::size_t c = 0; c < 6; ++c) k[c] = t[c] * sim.units().mvv2e;
  return k;
}

std::array<double, 3> coupled_pressure(const Simulation& sim, bool iso, PressureCoupling coupling,
                                       double tdof, std::optional<double> t_given,
                                       const std::array<double, 6>& ke,
                                       const std::array<double, 6>& virial,
                                       const std::string& who) {
  const double inv_volume = 1.0 / sim.volume(), nktv2p = sim.units().nktv2p;
  const bool three = sim.dimension() == 3;
  std::array<double, 3> p{};
  if (iso) {
    const double t = t_given ? *t_given : sim.temperature(0.5 * (ke[0] + ke[1] + ke[2]));
    const double scalar =
        three ? (tdof * sim.units().boltz * t + virial[0] + virial[1] + virial[2]) / 3.0 *
                    inv_volume * nktv2p
              : (tdof * sim.units().boltz * t + virial[0] + virial[1]) / 2.0 * inv_volume * nktv2p;
    p = {scalar, scalar, scalar};
  } else {
    std::array<double, 3> tensor{};
    for (std::size_t i = 0; i < (three ? 3u : 2u); ++i)
      tensor[i] = (ke[i] + virial[i]) * inv_volume * nktv2p;
    switch (coupling) {
      case PressureCoupling::xyz: {
        const double ave = 1.0 / 3.0 * (tensor[0] + tensor[1] + tensor[2]);
        p = {ave, ave, ave};
        break;
      }
      case PressureCoupling::xy: {
        const double ave = 0.5 * (tensor[0] + tensor[1]);
        p = {ave, ave, tensor[2]};
        break;
      }
      case PressureCoupling::yz: {
        const double ave = 0.5 * (tensor[1] + tensor[2]);
        p = {tensor[0], ave, ave};
        break;
      }
      case PressureCoupling::xz: {
        const double ave = 0.5 * (tensor[0] + tensor[2]);
        p = {ave, tensor[1], ave};
        break;
      }
      case PressureCoupling::none:
        p = tensor;
        break;
    }
  }
  for (const double value : p)
    if (!std::isfinite(value)) {
      Error e(who + ": the pressure is not finite at step " + std::to_string(sim.step()) +
              "; the simulation is unstable (reduce the timestep or lengthen Pdamp)");
      e.set_collective();
      throw e;
    }
  return p;
}

std::array<double, 3> shear_pressure(const Simulation& sim, const std::array<double, 6>& ke,
                                     const std::array<double, 6>& virial) {
  const double inv_volume = 1.0 / sim.volume(), nktv2p = sim.units().nktv2p;
  std::array<double, 3> p{};
  for (std::size_t k = 0; k < (sim.dimension() == 3 ? 3u : 1u); ++k)
    p[k] = (ke[3 + k] + virial[3 + k]) * inv_volume * nktv2p;
  return p;
}

void dilate(double* x, const BoxMatrix& from, const BoxMatrix& to) {
  from.to_fraction(x, x);
  to.to_cartesian(x, x);
}

}  // namespace tessera::md
