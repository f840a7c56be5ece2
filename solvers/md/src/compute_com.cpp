#include "tessera/md/compute_com.hpp"

#include "tessera/md/simulation.hpp"

namespace tessera::md {

ComputeCOM::ComputeCOM(const ComputeArguments& a) : Compute(a.id, a.group) {
  if (!a.args.empty())
    throw ConfigError("compute " + a.id + " com takes no arguments, got '" + a.args[0] + "'");
}

std::optional<std::array<double, 3>> center_of_mass(Simulation& sim, std::uint32_t mask) {
  const auto sums = sim.reduce_atoms(
      "md.center_of_mass", ReduceOp::sum, 4, [&](const AtomsView& a, std::span<double> out) {
        for (std::size_t i = 0; i < a.id.size(); ++i) {
          if (!(a.mask[i] & mask)) continue;
          const double m = a.mass[static_cast<std::size_t>(a.type[i])];
          for (std::size_t d = 0; d < 3; ++d) out[d] += m * a.unwrapped(i, d);
          out[3] += m;
        }
      });
  if (!(sums[3] > 0)) return std::nullopt;
  return std::array<double, 3>{sums[0] / sums[3], sums[1] / sums[3], sums[2] / sums[3]};
}

std::vector<double> ComputeCOM::vector(Simulation& sim) {
  const auto com = center_of_mass(sim, group_mask());
  if (!com) return {0.0, 0.0, 0.0};
  return {(*com)[0], (*com)[1], (*com)[2]};
}

}  // namespace tessera::md
