#include "tessera/md/compute_temp_ramp.hpp"

#include <algorithm>

#include "arguments.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

ComputeTempRamp::ComputeTempRamp(const ComputeArguments& a)
    : ComputeTempProfile(ComputeArguments{a.id, a.group, {}, a.sim}) {
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

ComputeTempProfile::Bias ComputeTempRamp::bias(Simulation&) const {
  return [this](const double* x) {
    const double f = std::clamp((x[coord_dim_] - c_lo_) / (c_hi_ - c_lo_), 0.0, 1.0);
    std::array<double, 3> b{};
    b[velocity_dim_] = v_lo_ + f * (v_hi_ - v_lo_);
    return b;
  };
}

}  // namespace tessera::md
