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

ComputeTempProfile::Unbias ComputeTempDeform::unbias(Simulation& sim) const {
  return [box = BoxMatrix(sim.box()), rate = sim.box_rate()](const AtomsView& a, std::size_t i,
                                                             double* v) {
    const auto stream = streaming_velocity(box, rate.h_rate, rate.h_ratelo, &a.x[3 * i]);
    for (std::size_t d = 0; d < 3; ++d) v[d] -= stream[d];
  };
}

}  // namespace tessera::md
