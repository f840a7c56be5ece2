// replicate NX NY NZ [bbox|bondlist]: LAMMPS's Replicate for atomic systems: the box becomes NX x
// NY x NZ times the old one (from its lower corner), and each atom is copied into every replica
// (IX, IY, IZ): at its unwrapped position (images counted on; with bondlist, images are zeroed
// first) shifted by IX, IY, IZ box lengths, mapped into the new box with fresh image flags,
// id + (IZ NY NX + IY NX + IX) * MAXID (MAXID the largest id before), its type, velocity and groups
// kept. bbox is LAMMPS's faster search for the same result. The fixes' per-atom state is started
// anew for every atom (fix langevin's noise streams from each atom's new id). Refused in 2-d with
// NZ > 1 and while per-atom vectors exist (fix property/atom, compute msd's reference positions),
// as LAMMPS refuses fixes that store per-atom values; replicating a non-periodic dimension
// warns. Collective; returns the lines LAMMPS prints.
#pragma once

#include <string>
#include <vector>

#include "tessera/md/simulation.hpp"

namespace tessera::md {

// Throws ConfigError for bad arguments.
std::string replicate(Simulation& sim, const std::vector<std::string>& args);

}  // namespace tessera::md
