#include "tessera/md/compute_ke.hpp"

#include "tessera/md/simulation.hpp"

namespace tessera::md {

ComputeKE::ComputeKE(const ComputeArguments& a) : Compute(a.id, a.group) {
  if (!a.args.empty())
    throw ConfigError("compute " + a.id + " ke takes no arguments, got '" + a.args[0] + "'");
}

double ComputeKE::scalar(Simulation& sim) {
  const auto sum = sim.reduce_atoms("md.compute_ke", ReduceOp::sum, 1,
                                    [&](const AtomsView& a, std::span<double> out) {
                                      for (std::size_t i = 0; i < a.id.size(); ++i) {
                                        if (!in_group(a, i)) continue;
                                        const double* v = &a.v[3 * i];
                                        out[0] += a.mass[static_cast<std::size_t>(a.type[i])] *
                                                  (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
                                      }
                                    });
  return 0.5 * sim.units().mvv2e * sum[0];
}

}  // namespace tessera::md
