#include "tessera/md/compute_com.hpp"

#include "tessera/md/simulation.hpp"

namespace tessera::md {

ComputeCOM::ComputeCOM(const ComputeArguments& a) : Compute(a.id, a.group) {
  if (!a.args.empty())
    throw ConfigError("compute " + a.id + " com takes no arguments, got '" + a.args[0] + "'");
}

std::vector<double> ComputeCOM::vector(Simulation& sim) {
  const auto sums = sim.reduce_atoms(
      "md.compute_com", ReduceOp::sum, 4, [&](const AtomsView& a, std::span<double> out) {
        for (std::size_t i = 0; i < a.id.size(); ++i) {
          if (!in_group(a, i)) continue;
          const double m = a.mass[static_cast<std::size_t>(a.type[i])];
          for (std::size_t d = 0; d < 3; ++d) out[d] += m * a.unwrapped(i, d);
          out[3] += m;
        }
      });
  std::vector<double> com(3, 0.0);
  if (sums[3] > 0)
    for (std::size_t d = 0; d < 3; ++d) com[d] = sums[d] / sums[3];
  return com;
}

}  // namespace tessera::md
