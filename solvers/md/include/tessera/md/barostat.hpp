// What the barostats (fix npt and nph, fix press/berendsen) share, as LAMMPS's: the coupling of
// pressure components, the pressure they steer by, and the kinetic tensor it takes. Collective
// where it reduces over atoms; units are the simulation's (units.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/md/domain.hpp"

namespace tessera::md {

class Region;

class Simulation;

// LAMMPS's couple keyword: which diagonal components are averaged and steered together.
enum class PressureCoupling { none, xyz, xy, yz, xz };

// A barostat's targets (pressure units) and damping periods (time units) per dimension, the
// dimensions it steers and their coupling, as LAMMPS's fix npt and press/berendsen read them.
struct PressureSettings {
  std::array<double, 3> start{}, stop{}, period{};
  std::array<int, 3> flag{};
  PressureCoupling coupling = PressureCoupling::none;
  bool per_dimension = false;  // x, y or z given (fix npt's deviatoric stress)
  int dimensions() const { return flag[0] + flag[1] + flag[2]; }
  // LAMMPS's pstyle ISO: the pressure is one number (couple xyz, or xy in 2-d).
  bool iso(int dimension) const {
    return coupling == PressureCoupling::xyz ||
           (dimension == 2 && coupling == PressureCoupling::xy);
  }
  // Every dimension (x and y in 2-d) from p0 to p1 with period damp, coupled as `how` (iso,
  // aniso and fix npt's tri).
  void set_all(double p0, double p1, double damp, int dimension, PressureCoupling how);
  // The keyword at words[at] if it is one of the barostats' (iso|aniso|x|y|z P0 P1 PDAMP,
  // couple C, dilate all): the words it took; 0 for another keyword. Throws ConfigError naming
  // `what` for a bad value.
  std::size_t parse(const std::vector<std::string>& words, std::size_t at, int dimension,
                    const std::string& what);
  // LAMMPS's checks of the settings: coupled dimensions alike, no yz or xz coupling in 2-d,
  // periodic steered dimensions (when `sim` is given), positive periods. Throws ConfigError.
  void check(const Simulation* sim, int dimension, const std::string& what) const;
};

// The kinetic tensor of the velocities now of the atoms in the groups of `mask` (and in `region`
// where one is given), mvv2e sum m v_a v_b (xx yy zz xy xz yz), as LAMMPS's compute temp's vector.
std::array<double, 6> kinetic_tensor(Simulation& sim, std::uint32_t mask = 1,
                                     const Region* region = nullptr);

// LAMMPS's compute pressure (its scalar when `iso`, from the temperature `t` over `tdof`
// degrees of freedom, by default group all's temperature of `ke`; else the diagonal of its
// tensor) coupled as FixNH::couple does, from the kinetic tensor `ke` and the virial `virial`
// (xx yy zz xy xz yz), over the box's volume (area in 2-d). A pressure that is not finite throws
// a collective Error naming `who` and the step.
std::array<double, 3> coupled_pressure(const Simulation& sim, bool iso, PressureCoupling coupling,
                                       double tdof, std::optional<double> t,
                                       const std::array<double, 6>& ke,
                                       const std::array<double, 6>& virial, const std::string& who);

// LAMMPS's compute pressure's off-diagonal components (xy xz yz; xz and yz zero in 2-d) from the
// kinetic tensor and the virial, over the box's volume (area in 2-d).
std::array<double, 3> shear_pressure(const Simulation& sim, const std::array<double, 6>& ke,
                                     const std::array<double, 6>& virial);

// Moves x from the box `from` to the same fractional place in `to` (LAMMPS's x2lamda, then
// lamda2x in the new box; every dimension, as LAMMPS's dilate all).
void dilate(double* x, const BoxMatrix& from, const BoxMatrix& to);

}  // namespace tessera::md
