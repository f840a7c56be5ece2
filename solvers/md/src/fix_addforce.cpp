#include "tessera/md/fix_addforce.hpp"

#include "arguments.hpp"
#include "restart_header.hpp"

namespace tessera::md {

FixAddForce::FixAddForce(const FixArguments& a) : Fix(a.id, a.group) {
  if (a.from_restart) return;
  const char* usage = "fix ID GROUP addforce FX FY FZ";
  arguments::need(a.args, 3, usage);
  if (a.args.size() > 3)
    arguments::bad("fix addforce: keywords (every, region, energy) are not supported; usage: " +
                   std::string(usage));
  for (std::size_t d = 0; d < 3; ++d) {
    if (a.args[d].rfind("v_", 0) == 0)
      arguments::bad("fix addforce: a variable force (" + a.args[d] + ") is not supported");
    value_[d] = arguments::number("fix addforce", a.args[d]);
  }
}

void FixAddForce::post_force(FixTile& t) {
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i)
    if (in_group(t, i))
      for (std::size_t d = 0; d < 3; ++d) t.f[3 * i + d] += value_[d];
}

nlohmann::json FixAddForce::restart_section() const { return {{"values", value_}}; }

void FixAddForce::restore(const nlohmann::json& section, const detail::RestartHeader& r,
                          const std::string& where) {
  value_ = r.triple(r.at(section, "values", where + ".values"), where + ".values");
}

}  // namespace tessera::md
