// compute ID GROUP msd [com yes|no]: LAMMPS's ComputeMSD, the group's mean squared displacement
// from where its atoms were when the compute was defined (positions unwrapped, so crossing a
// periodic face adds nothing): the vector dx^2, dy^2, dz^2 and their sum, averaged over the
// group (distance^2 units). com yes: displacements relative to the group's centre of mass
// (its drift removed). The reference positions are per-atom vectors that move with the atoms
// (Simulation::add_per_atom); they are not kept in restart files.
#pragma once

#include <array>

#include "tessera/md/compute.hpp"

namespace tessera::md {

class ComputeMSD : public Compute {
 public:
  explicit ComputeMSD(const ComputeArguments& args);
  std::string style() const override { return "msd"; }
  std::size_t vector_size() const override { return 4; }
  std::vector<double> vector(Simulation& sim) override;
  void release(Simulation& sim) override;

 private:
  std::array<double, 3> center(Simulation& sim) const;
  bool com_ = false;
  int handle_ = 0;
};

}  // namespace tessera::md
