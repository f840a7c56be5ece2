// fix ID all enforce2d: keeps a 2-d simulation in its plane, as LAMMPS's FixEnforce2D: vz and fz
// are zeroed in post_force (and in a run's setup). Needs dimension 2.
#pragma once

#include "tessera/md/fix.hpp"

namespace tessera::md {

class FixEnforce2D final : public Fix {
 public:
  explicit FixEnforce2D(const FixArguments& a);
  std::string style() const override { return "enforce2d"; }
  void setup(Simulation& sim) override;
  bool acts_in_minimize() const override { return true; }
  void post_force(FixTile& t) override;
};

}  // namespace tessera::md
