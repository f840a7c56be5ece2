// Molecular topology as LAMMPS keeps it (atom_style bond, angle, molecular, full): each bond is
// stored with its first atom and each angle with its centre atom (LAMMPS's newton_bond on, the
// atom a Bonds or Angles line names first or second), and each atom lists, by id, the atoms one,
// two and three bonds away (LAMMPS's special list: 1-2, 1-3 and 1-4 neighbors), which
// special_bonds weighs in the pair forces.
//
// On the tiles an atom's topology is a row of fixed width (TopologyLayout) among its per-atom
// values, so that it travels with the atom between tiles and ranks; ids are kept as doubles,
// exact below 2^53. Not thread-safe to change; encode and decode may run concurrently.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

namespace tessera::md {

// One atom's topology, ids of other atoms.
struct AtomTopology {
  std::int64_t molecule = 0;
  struct Bond {
    int type;
    std::int64_t atom;  // this atom - atom
  };
  struct Angle {
    int type;
    std::int64_t atom1, atom3;  // atom1 - this atom - atom3
  };
  std::vector<Bond> bonds;
  std::vector<Angle> angles;
  std::array<std::vector<std::int64_t>, 3> special;  // 1-2, 1-3, 1-4 neighbors
  bool operator==(const AtomTopology&) const = default;
};
inline bool operator==(const AtomTopology::Bond& a, const AtomTopology::Bond& b) {
  return a.type == b.type && a.atom == b.atom;
}
inline bool operator==(const AtomTopology::Angle& a, const AtomTopology::Angle& b) {
  return a.type == b.type && a.atom1 == b.atom1 && a.atom3 == b.atom3;
}

// The row of per-atom values: the molecule, the bond count and (type, atom) per bond, the angle
// count and (type, atom1, atom3) per angle, the 1-2, 1-3 and 1-4 counts and the special ids.
struct TopologyLayout {
  std::size_t bonds = 0, angles = 0, specials = 0;  // the most any atom has (LAMMPS's *_per_atom)
  std::size_t width() const { return 6 + 2 * bonds + 3 * angles + specials; }
  void encode(const AtomTopology& atom, std::span<double> row) const;
  AtomTopology decode(std::span<const double> row) const;
  // The special list of a row: level (1, 2 or 3) of atom `id`, or 0 when it is none of them.
  int special_level(std::span<const double> row, std::int64_t id) const;
  std::size_t bond_count(std::span<const double> row) const {
    return static_cast<std::size_t>(row[bonds_at()]);
  }
  std::size_t angle_count(std::span<const double> row) const {
    return static_cast<std::size_t>(row[angles_at()]);
  }
  // Bond k of a row: (type, atom); angle k: (type, atom1, atom3).
  const double* bond(std::span<const double> row, std::size_t k) const {
    return &row[bonds_at() + 1 + 2 * k];
  }
  const double* angle(std::span<const double> row, std::size_t k) const {
    return &row[angles_at() + 1 + 3 * k];
  }
  // Whether a row read from elsewhere (a restart file) has whole counts this layout holds.
  bool holds(std::span<const double> row) const;
  // Where the bond count, the angle count and the three special counts (then the ids) start.
  std::size_t bonds_at() const { return 1; }
  std::size_t angles_at() const { return bonds_at() + 1 + 2 * bonds; }
  std::size_t specials_at() const { return angles_at() + 1 + 3 * angles; }
  // The layout that holds every atom of `atoms`.
  static TopologyLayout fitting(const std::map<std::int64_t, AtomTopology>& atoms);
};

// LAMMPS's Special::build: each atom's 1-2 neighbors are its bonded partners (in both
// directions), its 1-3 neighbors the 1-2 neighbors of those (not itself), its 1-4 neighbors the
// 1-2 neighbors of its 1-3 neighbors; an atom is listed once, at its nearest level (LAMMPS's
// combine), never itself. Replaces every atom's special lists.
void build_special(std::map<std::int64_t, AtomTopology>& atoms);

// special_bonds: the weights of the pair forces between 1-2, 1-3 and 1-4 neighbors, van der
// Waals and Coulomb (LAMMPS's special_lj and special_coul [1..3]); index 0 is 1 (not special).
struct SpecialBonds {
  std::array<double, 4> lj{1, 0, 0, 0}, coul{1, 0, 0, 0};
};

}  // namespace tessera::md
