#include "tessera/md/compute_temp.hpp"

#include <algorithm>

#include "arguments.hpp"
#include "tessera/md/barostat.hpp"
#include "tessera/md/region.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

ComputeTemp::ComputeTemp(const ComputeArguments& a) : Compute(a.id, a.group) {
  if (!a.args.empty())
    throw ConfigError("compute " + a.id + " temp takes no arguments, got '" + a.args[0] + "'");
}

ComputeTempRegion::ComputeTempRegion(const ComputeArguments& a)
    : ComputeTemp(ComputeArguments{a.id, a.group, {}, a.sim}) {
  if (a.args.size() != 1)
    throw ConfigError("compute " + a.id + " temp/region: usage: compute ID GROUP temp/region " +
                      "REGION-ID");
  if (!a.region) throw ConfigError("compute " + a.id + " temp/region: no regions here");
  region_ = a.region(a.args[0]);
  count_.set_dynamic(true);
}

bool ComputeTemp::counted(const AtomsView& a, std::size_t i) const {
  return in_group(a, i) &&
         (!region_ || region_->matches({a.x[3 * i], a.x[3 * i + 1], a.x[3 * i + 2]}));
}

std::size_t ComputeTemp::modify(const std::vector<std::string>& words, std::size_t at) {
  const std::string& key = words[at];
  if ((key == "extra/dof" || key == "extra") && at + 1 < words.size()) {
    extra_dof_ = arguments::number("compute_modify " + id() + " " + key, words[at + 1]);
    return 2;
  }
  if (key == "dynamic/dof" && at + 1 < words.size()) {
    count_.set_dynamic(region_ ||
                       arguments::yes_no("compute_modify " + id() + " dynamic/dof", words[at + 1]));
    return 2;
  }
  return Compute::modify(words, at);
}

double ComputeTemp::dof_of(const Simulation& sim, double count) const {
  const double extra = extra_dof_ ? *extra_dof_ : static_cast<double>(sim.dimension());
  return sim.dimension() * count - extra - fix_dof_;
}

double ComputeTemp::count(Simulation& sim) const {
  return sim.reduce_atoms("md.compute_temp_count", ReduceOp::sum, 1,
                          [&](const AtomsView& a, std::span<double> out) {
                            for (std::size_t i = 0; i < a.id.size(); ++i)
                              if (counted(a, i)) out[0] += 1;
                          })[0];
}

double ComputeTemp::dof(Simulation& sim) { return dof_of(sim, count_.of(sim, count(sim))); }

void ComputeTemp::setup(Simulation& sim) {
  if (!region_) fix_dof_ = dof_removed_by_fixes(sim, group_mask());
  if (!count_.dynamic()) count_.set_at_setup(count(sim));
}

double ComputeTemp::scalar(Simulation& sim) {
  const auto sums = sim.reduce_atoms("md.compute_temp", ReduceOp::sum, 2,
                                     [&](const AtomsView& a, std::span<double> out) {
                                       for (std::size_t i = 0; i < a.id.size(); ++i) {
                                         if (!counted(a, i)) continue;
                                         const double* v = &a.v[3 * i];
                                         out[0] += a.mass[static_cast<std::size_t>(a.type[i])] *
                                                   (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
                                         out[1] += 1;
                                       }
                                     });
  const double dof_value = dof_of(sim, count_.of(sim, sums[1]));
  if (dof_value < 0 && sums[1] > 0)
    throw ConfigError("compute " + id() + " temp: the degrees of freedom are negative (" +
                      std::to_string(dof_value) + "); lower compute_modify extra/dof");
  if (dof_value <= 0) return 0.0;
  return sums[0] * sim.units().mvv2e / (dof_value * sim.units().boltz);
}

std::vector<double> ComputeTemp::vector(Simulation& sim) {
  const auto t = kinetic_tensor(sim, group_mask(), region_.get());
  return {t.begin(), t.end()};
}

std::array<double, 7> ComputeTempProfile::thermal_sums(Simulation& sim) const {
  const Bias profile = bias(sim);
  const auto sums = sim.reduce_atoms(
      "md.compute_temp_profile", ReduceOp::sum, 7, [&](const AtomsView& a, std::span<double> out) {
        for (std::size_t i = 0; i < a.id.size(); ++i) {
          if (!in_group(a, i)) continue;
          const auto b = profile(&a.x[3 * i]);
          const double v[3] = {a.v[3 * i] - b[0], a.v[3 * i + 1] - b[1], a.v[3 * i + 2] - b[2]};
          add_kinetic_tensor(out.data(), a.mass[static_cast<std::size_t>(a.type[i])], v);
          out[6] += 1;
        }
      });
  std::array<double, 7> out{};
  std::copy(sums.begin(), sums.end(), out.begin());
  return out;
}

double ComputeTempProfile::dof(Simulation& sim) {
  return dof_of(sim, count_.of(sim, thermal_sums(sim)[6]));
}

double ComputeTempProfile::scalar(Simulation& sim) {
  const auto s = thermal_sums(sim);
  const double dof_value = dof_of(sim, count_.of(sim, s[6]));
  if (dof_value <= 0) return 0.0;
  return (s[0] + s[1] + s[2]) * sim.units().mvv2e / (dof_value * sim.units().boltz);
}

std::vector<double> ComputeTempProfile::vector(Simulation& sim) {
  const auto s = thermal_sums(sim);
  std::vector<double> t(6);
  for (std::size_t k = 0; k < 6; ++k) t[k] = s[k] * sim.units().mvv2e;
  return t;
}

VelocityBias velocity_bias(Simulation& sim, const Compute& temperature) {
  VelocityBias b;
  b.thermal = temperature.thermal_components();
  if (const auto* profile = dynamic_cast<const ComputeTempProfile*>(&temperature))
    b.profile = profile->bias(sim);
  else if (temperature.removes_atom_bias())
    throw ConfigError("compute " + temperature.id() + " (" + temperature.style() +
                      ") removes a bias that differs from atom to atom in a way md_ipu's " +
                      "thermostats cannot remove and restore (fix langevin alone takes it)");
  return b;
}

}  // namespace tessera::md
