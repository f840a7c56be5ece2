#include "tessera/md/fix_enforce2d.hpp"

#include "arguments.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

FixEnforce2D::FixEnforce2D(const FixArguments& a) : Fix(a.id, a.group) {
  if (!a.args.empty())
    arguments::bad("fix enforce2d takes no arguments; usage: fix ID all enforce2d");
}

void FixEnforce2D::setup(Simulation& sim) {
  if (sim.dimension() != 2)
    throw ConfigError("fix " + id() +
                      " enforce2d: the simulation is 3-d; enforce2d needs "
                      "dimension 2");
}

void FixEnforce2D::post_force(FixTile& t) {
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
    if (!in_group(t, i)) continue;
    t.v[3 * i + 2] = 0.0;
    t.f[3 * i + 2] = 0.0;
  }
}

}  // namespace tessera::md
