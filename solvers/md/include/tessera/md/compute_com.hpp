// compute ID GROUP com: LAMMPS's ComputeCOM, the group's centre of mass (x y z, distance
// units) from positions with their periodic images counted on (unwrapped), so it moves
// continuously across the box's faces. Not extensive.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "tessera/md/compute.hpp"

namespace tessera::md {

// The centre of mass of the atoms in the groups of `mask`, positions unwrapped (LAMMPS's
// Group::xcm), or nothing when they have no mass. Collective.
std::optional<std::array<double, 3>> center_of_mass(Simulation& sim, std::uint32_t mask);

class ComputeCOM : public Compute {
 public:
  explicit ComputeCOM(const ComputeArguments& args);
  std::string style() const override { return "com"; }
  std::size_t vector_size() const override { return 3; }
  std::vector<double> vector(Simulation& sim) override;
};

}  // namespace tessera::md
