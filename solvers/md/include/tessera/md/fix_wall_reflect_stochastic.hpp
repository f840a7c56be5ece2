// fix ID GROUP wall/reflect/stochastic diffusive|maxwell|ccl SEED FACE COORD T VX VY VZ [A...]
// ... [units lattice|box]: LAMMPS's FixWallReflectStochastic, walls that send an atom back with
// a velocity drawn from the wall's temperature T (temperature units) and tangential velocity
// (VX VY VZ, 0 along the wall's normal): diffusive (every component drawn), maxwell A (diffusive
// with probability A, specular otherwise) or ccl AX AY AZ (Cercignani-Lampis, an accommodation
// coefficient per component). FACE and COORD as fix wall/reflect's (EDGE or a position, lattice
// units unless units box, on a non-periodic dimension). After each drift (post_integrate) an
// atom past a wall is taken back to where it crossed it, given its new velocity and moved on
// with it for the rest of the step, as LAMMPS does. With theta = kB T / (m mvv2e): tangential
// components Gaussian about the wall's velocity with variance theta, the normal one Rayleigh
// with scale sqrt(theta), CCL's as LAMMPS's RanMars gaussian and besselexp.
//
// The draws: each collision of an atom with a wall at a step has its own stream (rng.hpp) from
// (SEED, step) and (atom ID, wall), so they do not depend on tiles or ranks; LAMMPS draws from
// one stream per processor, so the two agree in distribution, not in digits.
#pragma once

#include <array>
#include <vector>

#include "tessera/md/fix.hpp"
#include "tessera/md/fix_wall_reflect.hpp"

namespace tessera::md {

class FixWallReflectStochastic final : public Fix {
 public:
  explicit FixWallReflectStochastic(const FixArguments& a);
  std::string style() const override { return "wall/reflect/stochastic"; }
  bool restartable() const override { return false; }
  void post_integrate(FixTile& t) override;

 private:
  enum class Model { diffusive, maxwell, ccl };
  struct Wall {
    ReflectingWall face;
    double temperature = 0;
    std::array<double, 3> velocity{}, accommodation{};
  };
  Model model_ = Model::diffusive;
  long long seed_ = 1;
  std::vector<Wall> walls_;
};

}  // namespace tessera::md
