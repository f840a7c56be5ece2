// fix ID GROUP wall/reflect FACE COORD ... [units lattice|box]: LAMMPS's FixWallReflect. FACE is
// xlo xhi ylo yhi zlo zhi, COORD a position (lattice units unless units box) or EDGE (the box's
// face when the fix is defined), on a non-periodic dimension. After each drift (post_integrate)
// an atom of the group past a wall is put back by its distance past it, and its velocity
// component normal to the wall is reversed.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "tessera/md/fix.hpp"

namespace tessera::md {

// A flat wall of fix wall/reflect and wall/reflect/stochastic: normal to `dim`, at the lower or
// upper end, at `coord` (distance units).
struct ReflectingWall {
  int dim = 0;
  bool upper = false;
  double coord = 0;
};

// The faces both fixes read: FACE (xlo xhi ylo yhi zlo zhi) and COORD (a number, or EDGE: the
// box's face when the fix is defined), and `units lattice|box`. Throws ConfigError, `what` first.
class ReflectingFaces {
 public:
  explicit ReflectingFaces(std::string what) : what_(std::move(what)) {}
  static bool is_face(const std::string& word);
  void add(const std::string& face, const std::string& coord);
  void set_units(const std::string& units);
  bool empty() const { return faces_.empty(); }
  // The walls in the order given, on `sim`'s box: each on a non-periodic dimension, no z walls
  // in 2-d, coordinates in lattice units scaled by `lattice` unless units box.
  std::vector<ReflectingWall> place(const Simulation* sim,
                                    const std::array<double, 3>& lattice) const;

 private:
  struct Face {
    ReflectingWall wall;
    bool edge = false;
  };
  std::string what_;
  std::vector<Face> faces_;
  bool lattice_units_ = true;
};

class FixWallReflect final : public Fix {
 public:
  explicit FixWallReflect(const FixArguments& a);
  std::string style() const override { return "wall/reflect"; }
  void post_integrate(FixTile& t) override;
  nlohmann::json restart_section() const override;
  void restore(const nlohmann::json& section, const detail::RestartHeader& header,
               const std::string& where) override;

 private:
  std::vector<ReflectingWall> walls_;
};

}  // namespace tessera::md
