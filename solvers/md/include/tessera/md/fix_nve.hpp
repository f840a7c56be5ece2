// fix ID GROUP nve: velocity Verlet of the group's atoms, as LAMMPS's FixNVE: v += dt/2 f/m and x
// += dt v in initial_integrate, v += dt/2 f/m in final_integrate.
#pragma once

#include "tessera/md/fix.hpp"

namespace tessera::md {

class FixNVE final : public Fix {
 public:
  explicit FixNVE(const FixArguments& a);
  std::string style() const override { return "nve"; }
  bool integrates() const override { return true; }
  void initial_integrate(FixTile& t) override;
  void final_integrate(FixTile& t) override;
};

// For the tile's atoms in the fix's group (FixNVE's and FixNH's): the first half of velocity
// Verlet, v *= scale (the thermostat's, 1 for none), v += dt/2 ftm2v f/m, x += dt v; and the
// second half-kick v += dt/2 ftm2v f/m.
void kick_and_drift(const Fix& fix, FixTile& t, double scale);
void half_kick(const Fix& fix, FixTile& t);

}  // namespace tessera::md
