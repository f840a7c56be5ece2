#include "tessera/md/fix_setforce.hpp"

#include "arguments.hpp"
#include "restart_header.hpp"

namespace tessera::md {

FixSetForce::FixSetForce(const FixArguments& a) : Fix(a.id, a.group) {
  if (a.from_restart) return;
  const char* usage = "fix ID GROUP setforce FX FY FZ (each a number or NULL)";
  arguments::need(a.args, 3, usage);
  if (a.args.size() > 3)
    arguments::bad(std::string("fix setforce: keywords after FZ are not "
                               "supported; usage: ") +
                   usage);
  for (std::size_t d = 0; d < 3; ++d)
    if (a.args[d] != "NULL") value_[d] = arguments::number("fix setforce", a.args[d]);
}

void FixSetForce::post_force(FixTile& t) {
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
    if (!in_group(t, i)) continue;
    for (std::size_t d = 0; d < 3; ++d)
      if (value_[d]) t.f[3 * i + d] = *value_[d];
  }
}

nlohmann::json FixSetForce::restart_section() const {
  return {{"values", detail::optional_triple_json(value_)}};
}

void FixSetForce::restore(const nlohmann::json& section, const detail::RestartHeader& r,
                          const std::string& where) {
  value_ = r.optional_triple(r.at(section, "values", where + ".values"), where + ".values",
                             "fix setforce");
}

}  // namespace tessera::md
