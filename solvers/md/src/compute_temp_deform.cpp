#include "tessera/md/compute_temp_deform.hpp"

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
    : ComputeTempProfile(ComputeArguments{a.id, a.group, {}, a.sim}) {
  if (!a.args.empty())
    throw ConfigError("compute " + a.id + " temp/deform: takes no arguments");
}

ComputeTempProfile::Bias ComputeTempDeform::bias(Simulation& sim) const {
  return [box = BoxMatrix(sim.box()), rate = sim.box_rate()](const double* x) {
    return streaming_velocity(box, rate.h_rate, rate.h_ratelo, x);
  };
}

}  // namespace tessera::md
