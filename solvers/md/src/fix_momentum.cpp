#include "tessera/md/fix_momentum.hpp"

#include <cmath>

#include "arguments.hpp"
#include "restart_header.hpp"
#include "tessera/md/simulation.hpp"
#include "tessera/md/velocity.hpp"

namespace tessera::md {

FixMomentum::FixMomentum(const FixArguments& a) : Fix(a.id, a.group) {
  if (a.from_restart) return;
  const std::string what = "fix " + a.id + " momentum";
  const char* usage = "fix ID GROUP momentum N [linear XFLAG YFLAG ZFLAG] [angular] [rescale]";
  arguments::need(a.args, 1, usage);
  every_ = static_cast<int>(arguments::integer(what + " N", a.args[0], 1, arguments::int_max));
  bool linear = false, angular = false;
  for (std::size_t at = 1; at < a.args.size();) {
    const std::string& key = a.args[at];
    if (key == "linear") {
      if (at + 3 >= a.args.size()) arguments::bad(what + ": linear needs three flags (0 or 1)");
      linear = true;
      for (std::size_t d = 0; d < 3; ++d)
        flags_[d] = arguments::integer(what + " linear", a.args[at + 1 + d], 0, 1) == 1;
      at += 4;
    } else if (key == "angular") {
      angular = true;
      ++at;
    } else if (key == "rescale") {
      rescale_ = true;
      ++at;
    } else {
      arguments::bad(what + ": unknown keyword '" + key + "'; usage: " + usage);
    }
  }
  // Neither given: the linear momentum, every component (LAMMPS's default).
  linear_ = linear || !angular;
  angular_ = angular;
  if (a.sim && a.sim->dimension() == 2 && linear && flags_[2])
    arguments::bad(what + ": a 2-d simulation has no z momentum to remove; use linear X Y 0");
}

// LAMMPS's FixMomentum::end_of_step.
void FixMomentum::end_of_step(Simulation& sim) {
  const std::uint32_t mask = group_mask();
  auto twice_ke = [&] {
    return sim.reduce_atoms("md.fix_momentum_ke", ReduceOp::sum, 1,
                            [&](const AtomsView& a, std::span<double> out) {
                              for (std::size_t i = 0; i < a.id.size(); ++i) {
                                if (!(a.mask[i] & mask)) continue;
                                const double* v = &a.v[3 * i];
                                out[0] += a.mass[static_cast<std::size_t>(a.type[i])] *
                                          (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
                              }
                            })[0];
  };
  const double ke_before = rescale_ ? twice_ke() : 0.0;
  if (linear_) {
    const auto vcm = group_velocity(sim, mask);
    if (!vcm) return;  // a group without mass
    sim.adjust_velocities("md.fix_momentum_linear", [&](FixTile& t) {
      for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i)
        if (in_group(t, i))
          for (std::size_t d = 0; d < 3; ++d)
            if (flags_[d]) t.v[3 * i + d] -= (*vcm)[d];
    });
  }
  if (angular_) {
    const auto rotation = group_rotation(sim, mask);
    if (!rotation) return;
    const std::array<double, 3> xcm = rotation->xcm, omega = rotation->omega;
    const Box box = sim.box();
    sim.adjust_velocities("md.fix_momentum_angular", [&](FixTile& t) {
      for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
        if (!in_group(t, i)) continue;
        std::array<double, 3> r{};
        for (std::size_t d = 0; d < 3; ++d)
          r[d] = box.unwrapped(&t.x[3 * i], &t.image[3 * i], d) - xcm[d];
        double* v = &t.v[3 * i];
        v[0] -= omega[1] * r[2] - omega[2] * r[1];
        v[1] -= omega[2] * r[0] - omega[0] * r[2];
        v[2] -= omega[0] * r[1] - omega[1] * r[0];
      }
    });
  }
  if (rescale_) {
    const double ke_after = twice_ke();
    const double factor = ke_after != 0.0 ? std::sqrt(ke_before / ke_after) : 1.0;
    sim.scale_thermal_velocities(mask, factor);
  }
}

nlohmann::json FixMomentum::restart_section() const {
  return {{"every", every_},
          {"linear", linear_},
          {"angular", angular_},
          {"rescale", rescale_},
          {"flags", flags_}};
}

void FixMomentum::restore(const nlohmann::json& v, const detail::RestartHeader& r,
                          const std::string& where) {
  every_ = static_cast<int>(r.integer(r.at(v, "every", where + ".every"), where + ".every", 1,
                                      arguments::int_max, "fix momentum"));
  const auto flag = [&](const nlohmann::json& j, const std::string& name) {
    if (!j.is_boolean()) r.fail("has " + name + " = " + j.dump() + ", not true or false");
    return j.get<bool>();
  };
  linear_ = flag(r.at(v, "linear", where + ".linear"), where + ".linear");
  angular_ = flag(r.at(v, "angular", where + ".angular"), where + ".angular");
  rescale_ = flag(r.at(v, "rescale", where + ".rescale"), where + ".rescale");
  const nlohmann::json& f = r.at(v, "flags", where + ".flags");
  if (!f.is_array() || f.size() != 3) r.fail("has " + where + ".flags not 3 flags");
  for (std::size_t d = 0; d < 3; ++d) flags_[d] = flag(f[d], where + ".flags");
}

}  // namespace tessera::md
