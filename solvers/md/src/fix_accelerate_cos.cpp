#include "tessera/md/fix_accelerate_cos.hpp"

#include "arguments.hpp"
#include "restart_header.hpp"
#include "tessera/md/compute_viscosity_cos.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

FixAccelerateCos::FixAccelerateCos(const FixArguments& a)
    : Fix(a.id, a.group), mvv2e_(a.units.mvv2e) {
  if (a.from_restart) return;
  const char* usage = "fix ID GROUP accelerate/cos A";
  arguments::need(a.args, 1, usage);
  if (a.args.size() > 1)
    arguments::bad("fix accelerate/cos: one value, the acceleration; usage: " + std::string(usage));
  acceleration_ = arguments::number("fix accelerate/cos", a.args[0]);
  if (a.sim && a.sim->dimension() == 2)
    arguments::bad("fix accelerate/cos cannot be used with 2d systems");
}

void FixAccelerateCos::pre_force(Simulation& sim) {
  zlo_ = sim.box().lo[2];
  zhi_ = sim.box().hi[2];
}

void FixAccelerateCos::post_force(FixTile& t) {
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
    if (!in_group(t, i)) continue;
    const double a = acceleration_ * cosine_flow(t.x[3 * i + 2], zlo_, zhi_);
    t.f[3 * i] += a * t.mass[static_cast<std::size_t>(t.type[i])] * mvv2e_;
  }
}

nlohmann::json FixAccelerateCos::restart_section() const {
  return {{"acceleration", acceleration_}};
}

void FixAccelerateCos::restore(const nlohmann::json& section, const detail::RestartHeader& r,
                               const std::string& where) {
  acceleration_ =
      r.real(r.at(section, "acceleration", where + ".acceleration"), where + ".acceleration",
             detail::RestartHeader::Sign::any, "fix accelerate/cos");
}

}  // namespace tessera::md
