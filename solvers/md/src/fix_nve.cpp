#include "tessera/md/fix_nve.hpp"

#include "arguments.hpp"

namespace tessera::md {

FixNVE::FixNVE(const FixArguments& a) : Fix(a.id, a.group) {
  if (!a.args.empty()) arguments::bad("fix nve takes no arguments; usage: fix ID all nve");
}

void half_kick(const Fix& fix, FixTile& t) {
  const double dtf = 0.5 * t.dt * t.units->ftm2v;
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
    if (!fix.in_group(t, i)) continue;
    const double dtfm = dtf / t.mass[static_cast<std::size_t>(t.type[i])];
    double* v = &t.v[3 * i];
    const double* f = &t.f[3 * i];
    v[0] += dtfm * f[0], v[1] += dtfm * f[1], v[2] += dtfm * f[2];
  }
}

void kick_and_drift(const Fix& fix, FixTile& t, double scale) {
  const double dtf = 0.5 * t.dt * t.units->ftm2v;
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
    if (!fix.in_group(t, i)) continue;
    const double dtfm = dtf / t.mass[static_cast<std::size_t>(t.type[i])];
    for (std::size_t d = 0; d < 3; ++d) {
      double& v = t.v[3 * i + d];
      if (scale != 1.0) v *= scale;
      v += dtfm * t.f[3 * i + d];
      t.x[3 * i + d] += t.dt * v;
    }
  }
}

void FixNVE::initial_integrate(FixTile& t) { kick_and_drift(*this, t, 1.0); }

void FixNVE::final_integrate(FixTile& t) { half_kick(*this, t); }

}  // namespace tessera::md
