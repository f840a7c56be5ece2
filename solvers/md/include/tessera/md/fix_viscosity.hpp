// fix ID GROUP viscosity N VDIM PDIM NBIN [swap NSWAP] [vtarget V|INF]: LAMMPS's FixViscosity,
// Muller-Plathe's reverse non-equilibrium shear (Phys. Rev. E 59, 4894 (1999)). The box is cut
// into NBIN (even, more than 2) slabs along PDIM; every N steps (end_of_step) the NSWAP atoms of
// the group in the first slab whose VDIM velocity is closest to +V (of those not moving the
// other way; V is 1e10, LAMMPS's "INF", by default: the fastest) trade VDIM momentum with the
// NSWAP in the middle slab closest to -V: each pair's VDIM velocities are reflected about their
// centre of mass, so momentum is kept and atoms of different masses may trade. Its scalar (f_ID)
// is the momentum moved so far (mass times velocity units), LAMMPS's p_exchange, from which the
// shear stress follows. The swaps are the same for any tile and rank count (slab_exchange.hpp).
#pragma once

#include "tessera/md/fix.hpp"

namespace tessera::md {

class FixViscosity final : public Fix {
 public:
  explicit FixViscosity(const FixArguments& a);
  std::string style() const override { return "viscosity"; }
  bool restartable() const override { return false; }  // as LAMMPS's: no restart state
  int end_of_step_every() const override { return every_; }
  bool needs_step_velocities() const override { return true; }
  int global_frequency() const override { return every_; }
  void end_of_step(Simulation& sim) override;
  bool has_scalar() const override { return true; }
  double scalar(Simulation&) override { return exchanged_; }

 private:
  int every_ = 1, velocity_dim_ = 0, slab_dim_ = 2, bins_ = 20, swaps_ = 1;
  double target_ = 1.0e10;
  double exchanged_ = 0;
};

}  // namespace tessera::md
