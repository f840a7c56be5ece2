#include "tessera/md/barostat.hpp"

#include <cmath>

#include "tessera/md/simulation.hpp"

namespace tessera::md {

std::array<double, 6> kinetic_tensor(Simulation& sim) {
  const auto t = sim.reduce_atoms("md.kinetic_tensor", ReduceOp::sum, 6,
                                  [&](const AtomsView& a, std::span<double> out) {
                                    for (std::size_t i = 0; i < a.id.size(); ++i) {
                                      const double m = a.mass[static_cast<std::size_t>(a.type[i])];
                                      const double* v = &a.v[3 * i];
                                      out[0] += m * v[0] * v[0];
                                      out[1] += m * v[1] * v[1];
                                      out[2] += m * v[2] * v[2];
                                      out[3] += m * v[0] * v[1];
                                      out[4] += m * v[0] * v[2];
                                      out[5] += m * v[1] * v[2];
                                    }
                                  });
  std::array<double, 6> k{};
  for (std::size_t c = 0; c < 6; ++c) k[c] = t[c] * sim.units().mvv2e;
  return k;
}

std::array<double, 3> coupled_pressure(const Simulation& sim, bool iso, PressureCoupling coupling,
                                       double tdof, const std::array<double, 6>& ke,
                                       const std::array<double, 6>& virial,
                                       const std::string& who) {
  const double inv_volume = 1.0 / sim.volume(), nktv2p = sim.units().nktv2p;
  const bool three = sim.dimension() == 3;
  std::array<double, 3> p{};
  if (iso) {
    const double t = sim.temperature(0.5 * (ke[0] + ke[1] + ke[2]));
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

void dilate(double* x, const Box& from, const Box& to) {
  for (std::size_t d = 0; d < 3; ++d) {
    const double lamda = (1.0 / (from.hi[d] - from.lo[d])) * (x[d] - from.lo[d]);
    x[d] = (to.hi[d] - to.lo[d]) * lamda + to.lo[d];
  }
}

}  // namespace tessera::md
