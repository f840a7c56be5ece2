// Molecular topology as LAMMPS keeps it (atom_style bond, angle, molecular, full): bonds,
// angles, dihedrals and impropers, each stored with one of its atoms (LAMMPS's newton_bond on: a
// bond with its first atom, an angle, a dihedral and an improper with their second, as the lines
// of a data file name them), and each atom's list, by id, of the atoms one, two and three bonds
// away (LAMMPS's special list: 1-2, 1-3 and 1-4 neighbors), which special_bonds weighs in the
// pair forces.
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
#include <string>
#include <vector>

namespace tessera::md {

// The four kinds of bonded terms and what LAMMPS's files and commands call them.
enum class TermKind : std::size_t { bond, angle, dihedral, improper };
inline constexpr std::size_t term_kinds = 4;
struct TermKindInfo {
  const char* name;           // "bond": bond_style, bond_coeff, "bond type"
  const char* section;        // "Bonds": the data file section of the terms
  const char* coeff_section;  // "Bond Coeffs"
  std::size_t atoms;          // 2, 3, 4, 4
  std::size_t owner;          // which of them keeps the term (0: the first)
};
inline constexpr std::array<TermKindInfo, term_kinds> term_kind_info{{
    {"bond", "Bonds", "Bond Coeffs", 2, 0},
    {"angle", "Angles", "Angle Coeffs", 3, 1},
    {"dihedral", "Dihedrals", "Dihedral Coeffs", 4, 1},
    {"improper", "Impropers", "Improper Coeffs", 4, 1},
}};
inline const TermKindInfo& info(TermKind kind) {
  return term_kind_info[static_cast<std::size_t>(kind)];
}
inline constexpr std::array<TermKind, term_kinds> all_term_kinds{
    TermKind::bond, TermKind::angle, TermKind::dihedral, TermKind::improper};

// One atom's topology, ids of atoms.
struct AtomTopology {
  std::int64_t molecule = 0;
  // A term this atom keeps: its type and all its atoms in the data file's order (this atom at
  // its kind's owner place; unused places 0).
  struct Term {
    int type = 0;
    std::array<std::int64_t, 4> atoms{};
    bool operator==(const Term&) const = default;
  };
  std::array<std::vector<Term>, term_kinds> terms;   // by TermKind
  std::array<std::vector<std::int64_t>, 3> special;  // 1-2, 1-3, 1-4 neighbors
  std::vector<Term>& of(TermKind kind) { return terms[static_cast<std::size_t>(kind)]; }
  const std::vector<Term>& of(TermKind kind) const { return terms[static_cast<std::size_t>(kind)]; }
  bool operator==(const AtomTopology&) const = default;
};

// The row of per-atom values: the molecule; per kind the count and, per term, its type and its
// atoms other than the owner; the 1-2, 1-3 and 1-4 counts and the special ids.
struct TopologyLayout {
  std::array<std::size_t, term_kinds> most{};  // terms any atom keeps (LAMMPS's *_per_atom)
  std::size_t specials = 0;                    // special neighbors any atom has
  std::size_t width() const { return specials_at() + 3 + specials; }
  void encode(const AtomTopology& atom, std::span<double> row) const;
  // The row of atom `id` (the owner of its terms).
  AtomTopology decode(std::span<const double> row, std::int64_t id) const;
  // The special list of a row: level (1, 2 or 3) of atom `id`, or 0 when it is none of them.
  int special_level(std::span<const double> row, std::int64_t id) const;
  std::size_t count(std::span<const double> row, TermKind kind) const {
    return static_cast<std::size_t>(row[at(kind)]);
  }
  // Term k of a kind in a row: its type, then its atoms other than the owner, in order.
  const double* term(std::span<const double> row, TermKind kind, std::size_t k) const {
    return &row[at(kind) + 1 + info(kind).atoms * k];
  }
  // Whether a row read from elsewhere (a restart file) has whole counts this layout holds.
  bool holds(std::span<const double> row) const;
  // Where a kind's count (then its terms) and the three special counts (then the ids) start.
  std::size_t at(TermKind kind) const;
  std::size_t specials_at() const { return at_end(term_kinds); }
  // The layout that holds every atom of `atoms`.
  static TopologyLayout fitting(const std::map<std::int64_t, AtomTopology>& atoms);

 private:
  std::size_t at_end(std::size_t kinds) const;
};

// special_bonds: the weights of the pair forces between 1-2, 1-3 and 1-4 neighbors, van der
// Waals and Coulomb (LAMMPS's special_lj and special_coul [1..3]; index 0 is 1, not special), and
// its `angle yes` and `dihedral yes`: 1-3 neighbors kept only at the ends of an angle (or as atoms
// 1 and 3 or 2 and 4 of a dihedral), 1-4 neighbors only at the ends of a dihedral.
struct SpecialBonds {
  std::array<double, 4> lj{1, 0, 0, 0}, coul{1, 0, 0, 0};
  bool angle = false, dihedral = false;
};

// LAMMPS's Special::build: each atom's 1-2 neighbors are its bonded partners (in both
// directions), its 1-3 neighbors the 1-2 neighbors of those (not itself), its 1-4 neighbors the
// 1-2 neighbors of its 1-3 neighbors; then, as special.angle and special.dihedral ask, the 1-3
// and 1-4 lists are trimmed (Special::angle_trim, dihedral_trim); last an atom is listed once, at
// its nearest level of those left (LAMMPS's combine), never itself. Replaces every atom's
// special lists.
void build_special(std::map<std::int64_t, AtomTopology>& atoms, const SpecialBonds& special = {});

}  // namespace tessera::md
