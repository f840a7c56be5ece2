#include "tessera/md/compute_temp_ramp.hpp"

#include <algorithm>

#include "arguments.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

ComputeTempRamp::ComputeTempRamp(const ComputeArguments& a)
    : ComputeTemp(ComputeArguments{a.id, a.group, {}, a.sim}) {
  const std::string what = "compute " + a.id + " temp/ramp";
  const std::string usage = what +
                            ": usage: compute ID GROUP temp/ramp vx|vy|vz VLO VHI x|y|z "
                            "CLO CHI [units lattice|box]";
  if (a.args.size() != 6 && a.args.size() != 8) throw ConfigError(usage);
  bool lattice_units = true;
  if (a.args.size() == 8) {
    if (a.args[6] != "units" || (a.args[7] != "lattice" && a.args[7] != "box"))
      throw ConfigError(usage);
    lattice_units = a.args[7] == "lattice";
  }
  const auto axis = [&](const std::string& word, const std::string& prefix) -> std::size_t {
    for (std::size_t d = 0; d < 3; ++d)
      if (word == prefix + std::string(1, static_cast<char>('x' + d))) return d;
    throw ConfigError(what + ": '" + word + "' is not " + prefix + "x, " + prefix + "y or " +
                      prefix + "z");
  };
  velocity_dim_ = axis(a.args[0], "v");
  coord_dim_ = axis(a.args[3], "");
  const double v_scale = lattice_units ? a.lattice[velocity_dim_] : 1.0;
  const double c_scale = lattice_units ? a.lattice[coord_dim_] : 1.0;
  v_lo_ = v_scale * arguments::number(what, a.args[1]);
  v_hi_ = v_scale * arguments::number(what, a.args[2]);
  c_lo_ = c_scale * arguments::number(what, a.args[4]);
  c_hi_ = c_scale * arguments::number(what, a.args[5]);
  if (c_hi_ == c_lo_) throw ConfigError(what + ": CLO and CHI must differ");
}

std::array<double, 7> ComputeTempRamp::thermal_sums(Simulation& sim) const {
  const auto sums = sim.reduce_atoms(
      "md.compute_temp_ramp", ReduceOp::sum, 7, [&](const AtomsView& a, std::span<double> out) {
        for (std::size_t i = 0; i < a.id.size(); ++i) {
          if (!in_group(a, i)) continue;
          const double f =
              std::clamp((a.x[3 * i + coord_dim_] - c_lo_) / (c_hi_ - c_lo_), 0.0, 1.0);
          std::array<double, 3> v{a.v[3 * i], a.v[3 * i + 1], a.v[3 * i + 2]};
          v[velocity_dim_] -= v_lo_ + f * (v_hi_ - v_lo_);
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

double ComputeTempRamp::dof(Simulation& sim) {
  return dof_of(sim, count_.of(sim, thermal_sums(sim)[6]));
}

double ComputeTempRamp::scalar(Simulation& sim) {
  const auto s = thermal_sums(sim);
  const double dof_value = dof_of(sim, count_.of(sim, s[6]));
  if (dof_value <= 0) return 0.0;
  return (s[0] + s[1] + s[2]) * sim.units().mvv2e / (dof_value * sim.units().boltz);
}

std::vector<double> ComputeTempRamp::vector(Simulation& sim) {
  const auto s = thermal_sums(sim);
  std::vector<double> t(6);
  for (std::size_t k = 0; k < 6; ++k) t[k] = s[k] * sim.units().mvv2e;
  return t;
}

}  // namespace tessera::md
