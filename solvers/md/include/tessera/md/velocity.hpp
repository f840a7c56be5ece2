// LAMMPS's velocity command (its Velocity class) on a group of a Simulation's atoms:
//   create T SEED   new velocities from LAMMPS's generator (loop all: one stream over atom ids
//                   1..N, so any decomposition gets the same numbers; loop geom: a stream per
//                   atom seeded by its position), the group's momentum (mom) and rotation (rot)
//                   removed, then scaled to the temperature T of the group (or of `temp ID`);
//   set VX VY VZ    each component, or none for NULL (sum: added);
//   scale T         scaled to the temperature T;
//   ramp VDIM VLO VHI DIM CLO CHI   component VDIM from VLO to VHI as coordinate DIM goes from
//                   CLO to CHI (clamped outside; sum: added);
//   zero linear|angular   the group's momentum or its rotation about its centre of mass removed.
// Velocities and coordinates given to set and ramp are in lattice units (the lattice's spacing
// per axis) unless `units box`, as LAMMPS's. Every function is collective and throws
// ConfigError for bad arguments.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "tessera/md/lattice.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

struct VelocityOptions {
  bool sum = false;           // sum yes: add to the velocities instead of replacing them
  bool gaussian = false;      // dist gaussian (create)
  bool momentum = true;       // mom (create)
  bool rotation = false;      // rot (create)
  std::string loop = "all";   // loop all|geom (create)
  std::string temperature;    // temp ID (create, scale): empty, the group's temperature
  bool lattice_units = true;  // units lattice (the default) or box (set, ramp)
};

void velocity_create(Simulation& sim, const std::string& group, double t, int seed,
                     const VelocityOptions& options);
void velocity_set(Simulation& sim, const std::string& group,
                  const std::array<std::optional<double>, 3>& v, const VelocityOptions& options,
                  const Lattice& lattice);
void velocity_scale(Simulation& sim, const std::string& group, double t,
                    const VelocityOptions& options);
void velocity_ramp(Simulation& sim, const std::string& group, int velocity_dim, double v_lo,
                   double v_hi, int coordinate_dim, double c_lo, double c_hi,
                   const VelocityOptions& options, const Lattice& lattice);
void velocity_zero(Simulation& sim, const std::string& group, bool angular);

// The centre-of-mass velocity of the atoms in the groups of `mask` (LAMMPS's Group::vcm), and
// their centre of mass and angular velocity about it (Group::xcm, Group::omega; positions
// unwrapped); nullopt for atoms without mass. Collective.
std::optional<std::array<double, 3>> group_velocity(Simulation& sim, std::uint32_t mask);
struct GroupRotation {
  std::array<double, 3> xcm, omega;
};
std::optional<GroupRotation> group_rotation(Simulation& sim, std::uint32_t mask);

}  // namespace tessera::md
