#include "tessera/md/compute_viscosity_cos.hpp"

#include "tessera/md/simulation.hpp"

namespace tessera::md {

ComputeViscosityCos::ComputeViscosityCos(const ComputeArguments& a)
    : ComputeTempProfile(ComputeArguments{a.id, a.group, {}, a.sim}) {
  if (!a.args.empty())
    throw ConfigError("compute " + a.id + " viscosity/cos: takes no arguments, got '" + a.args[0] +
                      "'");
}

double ComputeViscosityCos::scalar(Simulation& sim) {
  const double zlo = sim.box().lo[2], zhi = sim.box().hi[2];
  const auto sums =
      sim.reduce_atoms("md.viscosity_cos_amplitude", ReduceOp::sum, 2,
                       [&](const AtomsView& a, std::span<double> out) {
                         for (std::size_t i = 0; i < a.id.size(); ++i) {
                           if (!in_group(a, i)) continue;
                           const double m = a.mass[static_cast<std::size_t>(a.type[i])];
                           out[0] += 2 * m * a.v[3 * i] * cosine_flow(a.x[3 * i + 2], zlo, zhi);
                           out[1] += m;
                         }
                       });
  if (!(sums[1] > 0))
    throw ConfigError("compute " + id() + " viscosity/cos: group " + group() + " has no atoms");
  amplitude_ = sums[0] / sums[1];
  return ComputeTempProfile::scalar(sim);
}

std::vector<double> ComputeViscosityCos::vector(Simulation& sim) {
  std::vector<double> out = ComputeTempProfile::vector(sim);
  out.push_back(amplitude_);
  return out;
}

ComputeTempProfile::Bias ComputeViscosityCos::bias(Simulation& sim) const {
  return [v = amplitude_, zlo = sim.box().lo[2], zhi = sim.box().hi[2]](const double* x) {
    return std::array<double, 3>{v * cosine_flow(x[2], zlo, zhi), 0.0, 0.0};
  };
}

}  // namespace tessera::md
