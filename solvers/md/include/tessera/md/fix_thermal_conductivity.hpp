// fix ID GROUP thermal/conductivity N EDIM NBIN [swap NSWAP]: LAMMPS's FixThermalConductivity,
// Muller-Plathe's reverse non-equilibrium method (J. Chem. Phys. 106, 6082 (1997)). The box is cut
// into NBIN (even, more than 2) slabs along EDIM; every N steps (end_of_step) the NSWAP hottest
// atoms of the group in the first slab trade kinetic energy with the NSWAP coldest in the middle
// slab (slab NBIN/2 + 1): each pair's velocities are reflected about their centre-of-mass
// velocity, so momentum is kept and atoms of different masses may trade. Its scalar (f_ID) is
// the kinetic energy moved so far (energy units), LAMMPS's e_exchange, from which the heat flux
// follows. Candidates are gathered from every tile and ranked on the host by kinetic energy
// (ties by atom ID), so the swaps are the same for any tile and rank count.
#pragma once

#include "tessera/md/fix.hpp"

namespace tessera::md {

class FixThermalConductivity final : public Fix {
 public:
  explicit FixThermalConductivity(const FixArguments& a);
  std::string style() const override { return "thermal/conductivity"; }
  bool needs_step_velocities() const override { return true; }
  bool restartable() const override { return false; }  // as LAMMPS's: no restart state
  int end_of_step_every() const override { return every_; }
  int global_frequency() const override { return every_; }
  void end_of_step(Simulation& sim) override;
  bool has_scalar() const override { return true; }
  double scalar(Simulation&) override { return exchanged_; }

 private:
  int every_ = 1, dim_ = 2, bins_ = 2, swaps_ = 1;
  double exchanged_ = 0;
};

}  // namespace tessera::md
