#include "tessera/md/fix_aveforce.hpp"

#include "arguments.hpp"
#include "restart_header.hpp"

namespace tessera::md {

FixAveForce::FixAveForce(const FixArguments& a) : Fix(a.id, a.group) {
  if (a.from_restart) return;
  const char* usage = "fix ID GROUP aveforce FX FY FZ (each a number or NULL)";
  arguments::need(a.args, 3, usage);
  if (a.args.size() > 3)
    arguments::bad(std::string("fix aveforce: keywords (region) are not supported; usage: ") +
                   usage);
  for (std::size_t d = 0; d < 3; ++d) {
    if (a.args[d].rfind("v_", 0) == 0)
      arguments::bad("fix aveforce: a variable force (" + a.args[d] + ") is not supported");
    if (a.args[d] != "NULL") value_[d] = arguments::number("fix aveforce", a.args[d]);
  }
}

void FixAveForce::sum_post_force(const FixTile& t, std::span<double> out) const {
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
    if (!in_group(t, i)) continue;
    for (std::size_t d = 0; d < 3; ++d) out[d] += t.f[3 * i + d];
    out[3] += 1.0;
  }
}

void FixAveForce::set_post_force_sums(std::span<const double> sums) {
  any_ = sums[3] > 0;
  for (std::size_t d = 0; d < 3; ++d)
    average_[d] = any_ ? sums[d] / sums[3] + (value_[d] ? *value_[d] : 0.0) : 0.0;
}

void FixAveForce::post_force(FixTile& t) {
  if (!any_) return;
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
    if (!in_group(t, i)) continue;
    for (std::size_t d = 0; d < 3; ++d)
      if (value_[d]) t.f[3 * i + d] = average_[d];
  }
}

nlohmann::json FixAveForce::restart_section() const {
  return {{"values", detail::optional_triple_json(value_)}};
}

void FixAveForce::restore(const nlohmann::json& section, const detail::RestartHeader& r,
                          const std::string& where) {
  value_ = r.optional_triple(r.at(section, "values", where + ".values"), where + ".values",
                             "fix aveforce");
}

}  // namespace tessera::md
