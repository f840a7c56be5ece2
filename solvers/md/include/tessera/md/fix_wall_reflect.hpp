// fix ID GROUP wall/reflect FACE COORD ... [units lattice|box]: LAMMPS's FixWallReflect. FACE is
// xlo xhi ylo yhi zlo zhi, COORD a position (lattice units unless units box) or EDGE (the box's
// face when the fix is defined), on a non-periodic dimension. After each drift (post_integrate)
// an atom of the group past a wall is put back by its distance past it, and its velocity
// component normal to the wall is reversed.
#pragma once

#include <vector>

#include "tessera/md/fix.hpp"

namespace tessera::md {

class FixWallReflect final : public Fix {
 public:
  explicit FixWallReflect(const FixArguments& a);
  std::string style() const override { return "wall/reflect"; }
  void post_integrate(FixTile& t) override;
  nlohmann::json restart_section() const override;
  void restore(const nlohmann::json& section, const detail::RestartHeader& header,
               const std::string& where) override;

 private:
  struct Wall {
    int dim = 0;
    bool upper = false;
    double coord = 0;
  };
  std::vector<Wall> walls_;
};

}  // namespace tessera::md
