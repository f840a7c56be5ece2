// LAMMPS's group functions in variable formulas (Variable::group_function), each a reduction
// over a group's atoms, optionally only those inside a region now:
//   count(G[,R])  atoms                       mass(G[,R])      total mass
//   xcm(G,D[,R])  centre of mass (unwrapped)  vcm(G,D[,R])     centre-of-mass velocity
//   fcm(G,D[,R])  total force                 bound(G,E[,R])   xmin xmax ymin ymax zmin zmax
//   gyration(G[,R])  radius of gyration about the centre of mass (unwrapped positions)
//   ke(G[,R])     kinetic energy, 1/2 mvv2e sum m v^2
// D is x, y or z. Positions are as stored (bound) or unwrapped with the image flags (xcm,
// gyration), as LAMMPS's Group. An empty group gives 0 for xcm, vcm and gyration (as LAMMPS) and
// is refused for bound (LAMMPS would give +-1e20). Host side, collective: every rank evaluates
// the same formula at the same time.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "tessera/md/region.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

// And LAMMPS's atom-style mask functions, one value per atom: gmask(G) 1 for the group's atoms,
// rmask(R) 1 for the atoms inside region R now, grmask(G,R) both; 0 for the others.
//
// Whether NAME is one of these functions (the formula parser keeps its call as one name).
bool is_group_function(const std::string& name);

// The value of a call such as "xcm(all,x)" or "count(mobile,slab)", or nothing when the text is
// not a group function's call. Throws ConfigError (naming `where`) for an unknown group or
// region, a wrong argument, or a function LAMMPS has that md_ipu does not (charge, angmom,
// torque, inertia, omega).
bool is_mask_function(const std::string& name);

// The per-atom values of a mask function's call such as "grmask(mobile,slab)", or nothing when the
// text is not one. Throws ConfigError as group_function does.
std::optional<AtomValues> mask_function(
    Simulation& sim, const std::string& call, const std::string& where,
    const std::function<const Region&(const std::string& id)>& find_region);

std::optional<double> group_function(
    Simulation& sim, const std::string& call, const std::string& where,
    const std::function<const Region&(const std::string& id)>& find_region);

}  // namespace tessera::md
