// compute ID GROUP vacf: LAMMPS's ComputeVACF, the group's velocity autocorrelation against the
// velocities its atoms had when the compute was defined: the vector <vx vx0>, <vy vy0>,
// <vz vz0> and their sum, averaged over the group (velocity^2 units, intensive). Integrated over
// time (fix ave/time, a variable) it gives the diffusion coefficient (Green-Kubo). The initial
// velocities are per-atom vectors that move with the atoms (Simulation::add_per_atom); they are
// not kept in restart files.
#pragma once

#include "tessera/md/compute.hpp"

namespace tessera::md {

class ComputeVACF final : public Compute {
 public:
  explicit ComputeVACF(const ComputeArguments& args);
  std::string style() const override { return "vacf"; }
  std::size_t vector_size() const override { return 4; }
  std::vector<double> vector(Simulation& sim) override;
  void release(Simulation& sim) override;

 private:
  int handle_ = 0;
};

}  // namespace tessera::md
