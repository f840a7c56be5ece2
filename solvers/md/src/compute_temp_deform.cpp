#include "tessera/md/compute_temp_deform.hpp"

#include <algorithm>

#include "tessera/md/simulation.hpp"

namespace tessera::md {

std::array<double, 3> streaming_velocity(const BoxMatrix& box, const std::array<double, 6>& h_rate,
                                         const std::array<double, 3>& h_ratelo, const double* x) {
  double l[3];
  box.to_fraction(x, l);
  return {h_rate[0] * l[0] + h_rate[5] * l[1] + h_rate[4] * l[2] + h_ratelo[0],
          h_rate[1] * l[1] + h_rate[3] * l[2] + h_ratelo[1], h_rate[2] * l[2] + h_ratelo[2]};
}

ComputeTempDeform::ComputeTempDeform(const ComputeArguments& a)
    : ComputeTemp(ComputeArguments{a.id, a.group, {}, a.sim}) {
  if (!a.args.empty())
    throw ConfigError("compute " + a.id + " temp/deform: takes no arguments");
}

std::array<double, 7> ComputeTempDeform::thermal_sums(Simulation& sim) const {
  const BoxMatrix box(sim.box());
  const auto rate = sim.box_rate();
  const auto sums = sim.reduce_atoms(
      "md.compute_temp_deform", ReduceOp::sum, 7, [&](const AtomsView& a, std::span<double> out) {
        for (std::size_t i = 0; i < a.id.size(); ++i) {
          if (!in_group(a, i)) continue;
          const auto stream = streaming_velocity(box, rate.h_rate, rate.h_ratelo, &a.x[3 * i]);
          const double v[3] = {a.v[3 * i] - stream[0], a.v[3 * i + 1] - stream[1],
                               a.v[3 * i + 2] - stream[2]};
          const double m = a.mass[static_cast<std::size_t>(a.type[i])];
          out[0] += m * v[0] * v[0];
          out[1] += m * v[1] * v[1];
          out[2] += m * v[2] * v[2];
          out[3] += m * v[0] * v[1];
          out[4] += m * v[0] * v[2];
          out[5] += m * v[1] * v[2];
          out[6] += 1;
        }
      });
  std::array<double, 7> out{};
  std::copy(sums.begin(), sums.end(), out.begin());
  return out;
}

double ComputeTempDeform::dof(Simulation& sim) {
  return dof_of(sim, count_.of(sim, thermal_sums(sim)[6]));
}

double ComputeTempDeform::scalar(Simulation& sim) {
  const auto s = thermal_sums(sim);
  const double dof_value = dof_of(sim, count_.of(sim, s[6]));
  if (dof_value <= 0) return 0.0;
  return (s[0] + s[1] + s[2]) * sim.units().mvv2e / (dof_value * sim.units().boltz);
}

std::vector<double> ComputeTempDeform::vector(Simulation& sim) {
  const auto s = thermal_sums(sim);
  std::vector<double> t(6);
  for (std::size_t k = 0; k < 6; ++k) t[k] = s[k] * sim.units().mvv2e;
  return t;
}

}  // namespace tessera::md
