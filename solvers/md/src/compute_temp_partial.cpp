#include "tessera/md/compute_temp_partial.hpp"

#include "arguments.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

ComputeTempPartial::ComputeTempPartial(const ComputeArguments& a) : Compute(a.id, a.group) {
  const std::string what = "compute " + a.id + " temp/partial";
  if (a.args.size() != 3)
    throw ConfigError(what + ": usage: compute ID GROUP temp/partial XFLAG YFLAG ZFLAG");
  for (std::size_t d = 0; d < 3; ++d) flags_[d] = arguments::integer(what, a.args[d], 0, 1) == 1;
  if (a.sim && a.sim->dimension() == 2 && flags_[2])
    throw ConfigError(what + ": a 2-d simulation has no z component to count (ZFLAG 0)");
}

std::size_t ComputeTempPartial::modify(const std::vector<std::string>& words, std::size_t at) {
  if ((words[at] == "extra/dof" || words[at] == "extra") && at + 1 < words.size()) {
    extra_dof_ = arguments::number("compute_modify " + id() + " " + words[at], words[at + 1]);
    return 2;
  }
  if (words[at] == "dynamic/dof" && at + 1 < words.size()) {
    count_.set_dynamic(arguments::yes_no("compute_modify " + id() + " dynamic/dof", words[at + 1]));
    return 2;
  }
  return Compute::modify(words, at);
}

double ComputeTempPartial::group_count(Simulation& sim) const {
  return sim.reduce_atoms("md.compute_temp_partial_count", ReduceOp::sum, 1,
                          [&](const AtomsView& a, std::span<double> out) {
                            for (std::size_t i = 0; i < a.id.size(); ++i)
                              if (in_group(a, i)) out[0] += 1;
                          })[0];
}

void ComputeTempPartial::setup(Simulation& sim) {
  fix_dof_ = dof_removed_by_fixes(sim, group_mask());
  if (!count_.dynamic()) count_.set_at_setup(group_count(sim));
}

double ComputeTempPartial::dof_of(const Simulation& sim, double count) const {
  const double n = static_cast<double>(flags_[0] + flags_[1] + flags_[2]);
  const double d = static_cast<double>(sim.dimension());
  const double extra = extra_dof_ ? *extra_dof_ : d;
  return n * count - (n / d) * (extra + fix_dof_);
}

double ComputeTempPartial::dof(Simulation& sim) {
  return dof_of(sim, count_.of(sim, group_count(sim)));
}

double ComputeTempPartial::scalar(Simulation& sim) {
  const auto sums = sim.reduce_atoms(
      "md.compute_temp_partial", ReduceOp::sum, 2, [&](const AtomsView& a, std::span<double> out) {
        for (std::size_t i = 0; i < a.id.size(); ++i) {
          if (!in_group(a, i)) continue;
          const double* v = &a.v[3 * i];
          out[0] += a.mass[static_cast<std::size_t>(a.type[i])] *
                    (flags_[0] * v[0] * v[0] + flags_[1] * v[1] * v[1] + flags_[2] * v[2] * v[2]);
          out[1] += 1;
        }
      });
  const double dof_value = dof_of(sim, count_.of(sim, sums[1]));
  if (dof_value <= 0) return 0.0;
  return sums[0] * sim.units().mvv2e / (dof_value * sim.units().boltz);
}

std::vector<double> ComputeTempPartial::vector(Simulation& sim) {
  const double fx = flags_[0], fy = flags_[1], fz = flags_[2];
  auto t = sim.reduce_atoms("md.compute_temp_partial_tensor", ReduceOp::sum, 6,
                            [&](const AtomsView& a, std::span<double> out) {
                              for (std::size_t i = 0; i < a.id.size(); ++i) {
                                if (!in_group(a, i)) continue;
                                const double m = a.mass[static_cast<std::size_t>(a.type[i])];
                                const double* v = &a.v[3 * i];
                                out[0] += m * fx * v[0] * v[0];
                                out[1] += m * fy * v[1] * v[1];
                                out[2] += m * fz * v[2] * v[2];
                                out[3] += m * fx * fy * v[0] * v[1];
                                out[4] += m * fx * fz * v[0] * v[2];
                                out[5] += m * fy * fz * v[1] * v[2];
                              }
                            });
  for (auto& value : t) value *= sim.units().mvv2e;
  return t;
}

}  // namespace tessera::md
