// compute ID GROUP com: LAMMPS's ComputeCOM, the group's centre of mass (x y z, distance
// units) from positions with their periodic images counted on (unwrapped), so it moves
// continuously across the box's faces. Not extensive.
#pragma once

#include "tessera/md/compute.hpp"

namespace tessera::md {

class ComputeCOM : public Compute {
 public:
  explicit ComputeCOM(const ComputeArguments& args);
  std::string style() const override { return "com"; }
  std::size_t vector_size() const override { return 3; }
  std::vector<double> vector(Simulation& sim) override;
};

}  // namespace tessera::md
