// LAMMPS data files (atom_style atomic, charge, bond, angle, molecular, full) and Tessera restart
// files.
//
// read_data: header (atoms, atom types, bonds, bond types, angles, angle types, dihedrals,
// dihedral types, impropers, improper types, xlo xhi / ylo yhi / zlo zhi), sections Masses, Pair
// Coeffs (the pair style's: lj/cut's type epsilon sigma), Bond, Angle, Dihedral and Improper Coeffs
// (the bonded styles'), Atoms (id type x y z [ix iy iz]; id type q x y z under atom_style charge;
// id molecule type x y z under bond, angle and molecular; id molecule type q x y z under full),
// Velocities (id vx vy vz), Bonds (id type atom1 atom2), Angles (id type atom1 atom2 atom3),
// Dihedrals and Impropers (id type atom1 atom2 atom3 atom4), and fix property/atom's sections
// (DataFixSection). The special lists follow from the bonds (topology.hpp). `coefficients` false
// (LAMMPS's nocoeff) skips the coefficient sections. write_data writes the same layout, values at
// full precision, through a temporary file; `coefficients` false leaves them out.
//
// Restart files are binary and self-describing: a magic line, a version, a JSON
// header with everything but the atoms (units, box, masses, pair and neighbor
// settings, timestep, step, fixes and thermostat state, the bonded styles and special
// weights), then the atoms sorted by id, then their topology rows (molecular styles). A run
// continued from one reproduces the uninterrupted run bit for bit.
#pragma once

#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

// What a pair style made for `sim` gets (pair.hpp): its units, and a reader of the files it
// loads that reads them on rank 0 and sends them to every rank (collective), so that every rank
// loads the same model or meets the same error.
PairContext pair_context(Simulation& sim);

// read_data's `fix ID NULL SECTION`: the section of that name holds, per line, an atom's id and
// the values of the custom per-atom properties `properties` (fix ID property/atom's, in its
// order; Simulation::custom_property), read into them.
struct DataFixSection {
  std::string fix_id, section;
  std::vector<std::string> properties;
};
// Throws FormatError naming the file and line for malformed input.
void read_data(Simulation& sim, const std::string& path,
               const std::vector<DataFixSection>& fix_sections = {}, bool coefficients = true);
void write_data(Simulation& sim, const std::string& path, bool coefficients = true);

void write_restart(Simulation& sim, const std::string& path);
// Restores into a simulation that has no box yet.
void read_restart(Simulation& sim, const std::string& path);

}  // namespace tessera::md
