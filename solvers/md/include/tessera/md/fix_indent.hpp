// fix ID GROUP indent K sphere X Y Z R | cylinder x|y|z C1 C2 R | plane x|y|z POS lo|hi
//   [side in|out] [units lattice|box]: LAMMPS's FixIndent. An indenter pushes the group's atoms
// with F(r) = -K (r - R)^2 (K in force/distance^2 units) for r < R (side out; beyond R for side
// in), r the distance from the sphere's centre, the cylinder's axis or (R = 0) the plane,
// measured through the nearest periodic image; the energy is K/3 |r - R|^3. X, Y, Z, R, C1, C2
// and POS may be equal-style variables (v_NAME), evaluated before each force computation and,
// as in LAMMPS, not scaled by the lattice (numbers are, under units lattice, the default).
//
// Outputs, as LAMMPS's: the scalar f_ID is the indenter's energy, the vector f_ID[1..3] the
// force on the indenter (both extensive); fix_modify energy yes adds the energy to the potential
// energy (thermo, minimizers). It acts in minimizations.
#pragma once

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "tessera/md/domain.hpp"
#include "tessera/md/fix.hpp"
#include "tessera/md/tile_tally.hpp"

namespace tessera::md {

class FixIndent final : public Fix {
 public:
  explicit FixIndent(const FixArguments& a);
  std::string style() const override { return "indent"; }
  bool acts_in_minimize() const override { return true; }
  void pre_force(Simulation& sim) override;
  void post_force(FixTile& t) override;

  bool has_scalar() const override { return true; }
  bool extensive_scalar() const override { return true; }
  std::size_t vector_size() const override { return 3; }
  bool extensive_vector(std::size_t /*k*/) const override { return true; }
  double scalar(Simulation& sim) override;
  std::vector<double> vector(Simulation& sim) override;
  bool has_energy() const override { return true; }
  double tile_energy(const Tile& tile) const override;

  // As LAMMPS's, restart files do not keep it: a script defines it again.
  bool restartable() const override { return false; }

 private:
  enum class Shape { sphere, cylinder, plane };
  // A geometry value: a number (scaled at the fix command) or an equal-style variable.
  struct Value {
    double number = 0;
    std::string variable;  // empty for a number
  };
  double value(const Value& v) const;
  std::vector<double> totals(Simulation& sim);

  Shape shape_ = Shape::sphere;
  double k_ = 0;
  int axis_ = 0;                     // the cylinder's axis or the plane's normal (0, 1, 2)
  double plane_side_ = 1;            // LAMMPS's planeside: -1 lo, +1 hi
  bool outside_ = true;              // side out (the default)
  std::array<Value, 4> geometry_{};  // sphere: x y z R; cylinder: c1 c2 R; plane: pos
  std::function<double(const std::string&)> variable_;
  // This force computation's geometry (centre, radius) and the box it is measured in.
  std::array<double, 3> centre_{};
  double radius_ = 0;
  Box box_;
  std::array<bool, 3> periodic_{};
  // Per tile: energy and the force on the indenter (x, y, z), from its last post_force.
  TileTally tally_;
};

}  // namespace tessera::md
