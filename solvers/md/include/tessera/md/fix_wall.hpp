// fix ID GROUP wall/lj93|wall/lj126|wall/lj1043|wall/harmonic FACE ARGS ... [units lattice|box]
//   [pbc yes|no]: LAMMPS's FixWall family. Each FACE (xlo xhi ylo yhi zlo zhi) is a flat wall
// at a COORD (EDGE: the box's face when the fix is defined; a number, or an equal-style variable
// v_NAME evaluated before each force computation, both in lattice spacings under units lattice,
// the default, as LAMMPS's) with EPSILON SIGMA CUTOFF. An atom of the
// group at a distance r < CUTOFF from it (on the box's side) feels, as in LAMMPS:
//   lj93      E = eps (2/15 (sigma/r)^9 - (sigma/r)^3)                (LAMMPS's FixWallLJ93)
//   lj126     E = 4 eps ((sigma/r)^12 - (sigma/r)^6)                 (FixWallLJ126)
//   lj1043    E = 2 pi eps (2/5 (sigma/r)^10 - (sigma/r)^4
//                  - sqrt(2) sigma^3 / (3 (r + 0.61/sqrt(2) sigma)^3)) (FixWallLJ1043)
//   harmonic  E = eps (r - CUTOFF)^2                                 (FixWallHarmonic)
// each shifted to zero at the cutoff (not harmonic). An atom on or behind a wall stops the run
// naming it, as LAMMPS's "Particle on or inside fix wall surface".
//
// Outputs, as LAMMPS's: the scalar f_ID is the walls' energy, the vector f_ID[N] the force on
// wall N (both extensive); fix_modify energy yes adds the energy to the potential energy. The
// walls' virial (fix_modify virial yes, off by default in LAMMPS too) is not added. Acts in
// minimizations.
#pragma once

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "tessera/md/fix.hpp"
#include "tessera/md/tile_tally.hpp"

namespace tessera::md {

class FixWall final : public Fix {
 public:
  enum class Kind { lj93, lj126, lj1043, harmonic };
  FixWall(const FixArguments& a, Kind kind);
  std::string style() const override;
  bool acts_in_minimize() const override { return true; }
  void pre_force(Simulation& sim) override;
  void post_force(FixTile& t) override;

  bool has_scalar() const override { return true; }
  bool extensive_scalar() const override { return true; }
  std::size_t vector_size() const override { return walls_.size(); }
  bool extensive_vector(std::size_t /*k*/) const override { return true; }
  double scalar(Simulation& sim) override;
  std::vector<double> vector(Simulation& sim) override;
  bool has_energy() const override { return true; }
  double tile_energy(const Tile& tile) const override;
  // As LAMMPS's, restart files do not keep it: a script defines it again.
  bool restartable() const override { return false; }

 private:
  struct Wall {
    int dim = 0;
    int side = -1;  // -1: a lower face (atoms above it), +1: an upper face
    double coord = 0;
    std::string variable;       // empty: coord is fixed
    double variable_scale = 1;  // the lattice spacing a variable's value is in (units lattice)
    double epsilon = 0, sigma = 0, cutoff = 0;
    std::array<double, 7> coeff{};  // the style's coefficients
    double offset = 0;              // the energy at the cutoff
  };
  // The energy and the force magnitude (along the wall's normal, away from it) at distance r.
  void interaction(const Wall& w, double r, double& energy, double& force) const;
  std::vector<double> totals(Simulation& sim);

  Kind kind_;
  std::vector<Wall> walls_;
  std::function<double(const std::string&)> variable_;
  // Per tile: the energy, then the force on each wall, from its last post_force.
  TileTally tally_;
};

}  // namespace tessera::md
