// What the barostats (fix npt and nph, fix press/berendsen) share, as LAMMPS's: the coupling of
// pressure components, the pressure they steer by, and the kinetic tensor it takes. Collective
// where it reduces over atoms; units are the simulation's (units.hpp).
#pragma once

#include <array>
#include <string>

#include "tessera/core/error.hpp"
#include "tessera/md/domain.hpp"

namespace tessera::md {

class Simulation;

// LAMMPS's couple keyword: which diagonal components are averaged and steered together.
enum class PressureCoupling { none, xyz, xy, yz, xz };

// The kinetic tensor of the velocities now, mvv2e sum m v_a v_b (xx yy zz xy xz yz), as
// LAMMPS's compute temp's vector.
std::array<double, 6> kinetic_tensor(Simulation& sim);

// LAMMPS's compute pressure (its scalar when `iso`, from the temperature of `ke` over `tdof`
// degrees of freedom; else the diagonal of its tensor) coupled as FixNH::couple does, from the
// kinetic tensor `ke` and the virial `virial` (xx yy zz xy xz yz), over the box's volume (area in
// 2-d). A pressure that is not finite throws a collective Error naming `who` and the step.
std::array<double, 3> coupled_pressure(const Simulation& sim, bool iso, PressureCoupling coupling,
                                       double tdof, const std::array<double, 6>& ke,
                                       const std::array<double, 6>& virial, const std::string& who);

// Moves x from the box `from` to the same fractional place in `to` (LAMMPS's x2lamda, then
// lamda2x in the new box; every dimension, orthogonal boxes, as LAMMPS's dilate all).
void dilate(double* x, const Box& from, const Box& to);

}  // namespace tessera::md
