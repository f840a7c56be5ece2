// displace_atoms GROUP move DX DY DZ | ramp DDIM DLO DHI DIM CLO CHI | random DX DY DZ SEED |
// rotate PX PY PZ RX RY RZ THETA [units lattice|box]: LAMMPS's DisplaceAtoms on the group's atoms
// (lattice units by default; the axis R and THETA, in degrees, are not scaled). move's
// displacements may be v_NAME of an equal- or atom-style variable, each evaluated just before
// its dimension moves (so a later one sees the earlier moves, as LAMMPS's). random draws each
// atom's displacements from a Park-Miller stream seeded from SEED and its position (LAMMPS's
// RanPark::reset), so they do not depend on which tile or rank holds it. Afterwards every atom
// is mapped back into the periodic dimensions with its image flags counted (LAMMPS's remap);
// an atom beyond a fixed (f) face is refused (LAMMPS drops it with a warning). Collective.
#pragma once

#include <array>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "tessera/md/simulation.hpp"

namespace tessera::md {

struct DisplaceInputs {
  std::array<double, 3> lattice{1.0, 1.0, 1.0};  // LAMMPS's xlattice ylattice zlattice
  // v_NAME's value: one number (equal style) or one per atom (atom style); throws ConfigError
  // for an unknown variable or another style.
  std::function<std::variant<double, AtomValues>(const std::string& name)> variable;
};

// Throws ConfigError for bad arguments or an atom moved beyond a fixed face.
void displace_atoms(Simulation& sim, const std::vector<std::string>& a, const DisplaceInputs& in);

}  // namespace tessera::md
