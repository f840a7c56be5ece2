// fix ID GROUP rattle TOL ITER N [b BONDTYPES...] [a ANGLETYPES...] [t ATOMTYPES...] [m MASSES...]:
// LAMMPS's FixRattle (RIGID package), fix shake's clusters and position constraints with
// RATTLE's velocity constraints (Andersen, J. Comput. Phys. 52, 24 (1983)), so that every
// constrained bond's (and frozen angle's) length stays put to first order in the velocities
// too, and the kinetic energy holds no motion along them.
//
// Each step, as LAMMPS's: in post_force, every cluster atom's velocity half a kick on
// (v + dt/2 f / m, the forces as the fixes before it left them) goes to its ghost copies and
// each tile corrects its own atoms' velocities so that those velocities have no relative motion
// along the constraints (LAMMPS's vrattle2, vrattle3, vrattle4, vrattle3angle: 1, 2 or 3
// multipliers, the linear system solved exactly); once the fixes before it have finished the
// step's velocities (their final_integrate, and a Nose-Hoover thermostat's last scaling), the
// positions of the next step are predicted from them (x + dt v + dt^2/2 f / m) and held by fix
// shake's constraint forces, which the next step's first half-kick applies. At a run's setup,
// at the fix's place among the fixes' setups (so a thermostat before it starts from the
// velocities as they were), the positions are corrected, then the velocities (their components
// along the constraints removed), then the first forces found. The arguments, clusters, statistics,
// degrees of freedom, virial and refusals are fix shake's (fix_shake.hpp); LAMMPS's warning
// when an integrating fix comes after it carries over ("Fix rattle should come after all other
// integration fixes").
//
// Thread-safety: as fix shake's.
#pragma once

#include <span>
#include <string>

#include "tessera/md/fix_shake.hpp"

namespace tessera::md {

class FixRattle final : public FixShake {
 public:
  explicit FixRattle(const FixArguments& a) : FixShake(a, "rattle") {}
  std::string style() const override { return "rattle"; }
  void init(Simulation& sim) override;
  bool constrains_velocities() const override { return true; }
  void predict_velocities(const FixTile& t, bool correcting, std::span<double> out) const override;
  void correct_velocities(FixTile& t) override;
  void post_force(FixTile& t) override;
  void constrain_positions(FixTile& t) override;
  void setup(Simulation& sim) override;
  void end_of_step(Simulation& sim) override;

 private:
  bool half_step_prediction(const FixTile& /*t*/) const override { return true; }
  // Cluster c's velocity multipliers from the tile's positions and predicted velocities
  // (FixTile::predicted, ghost_predicted), applied to the tile's own atoms' velocities.
  void correct(const FixTile& t, const Cluster& c, std::span<double> v) const;
};

}  // namespace tessera::md
