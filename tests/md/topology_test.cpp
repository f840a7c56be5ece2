// Molecular topology's bookkeeping (topology.hpp): LAMMPS's special lists on molecules whose
// levels a chain does not exercise (rings, a branch), and the per-atom rows' round trip.
#include "tessera/md/topology.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace tessera::md {
namespace {

// Atoms 1..n with bonds (a, b), each stored with a as read_data stores it.
std::map<std::int64_t, AtomTopology> bonded(int n, std::vector<std::pair<int, int>> bonds) {
  std::map<std::int64_t, AtomTopology> atoms;
  for (int i = 1; i <= n; ++i) atoms[i];
  for (const auto& [a, b] : bonds) atoms[a].of(TermKind::bond).push_back({1, {a, b}});
  build_special(atoms);
  return atoms;
}

std::vector<std::int64_t> sorted(std::vector<std::int64_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(Special, ChainHasEachLevelOnce) {
  const auto atoms = bonded(5, {{1, 2}, {2, 3}, {3, 4}, {4, 5}});
  EXPECT_EQ(sorted(atoms.at(1).special[0]), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(sorted(atoms.at(1).special[1]), (std::vector<std::int64_t>{3}));
  EXPECT_EQ(sorted(atoms.at(1).special[2]), (std::vector<std::int64_t>{4}));
  EXPECT_EQ(sorted(atoms.at(3).special[0]), (std::vector<std::int64_t>{2, 4}));
  EXPECT_EQ(sorted(atoms.at(3).special[1]), (std::vector<std::int64_t>{1, 5}));
  EXPECT_TRUE(atoms.at(3).special[2].empty());
}

// In a triangle every atom is 1-2 of the others: LAMMPS's combine keeps each at its nearest
// level, so there are no 1-3 or 1-4 neighbors (and never the atom itself).
TEST(Special, TriangleIsAllOneTwo) {
  const auto atoms = bonded(3, {{1, 2}, {2, 3}, {3, 1}});
  for (int i = 1; i <= 3; ++i) {
    EXPECT_EQ(atoms.at(i).special[0].size(), 2u) << i;
    EXPECT_TRUE(atoms.at(i).special[1].empty()) << i;
    EXPECT_TRUE(atoms.at(i).special[2].empty()) << i;
  }
}

// A four-ring: the opposite atom is 1-3 by both ways round, listed once; nothing is 1-4.
TEST(Special, FourRingListsTheOppositeAtomOnce) {
  const auto atoms = bonded(4, {{1, 2}, {2, 3}, {3, 4}, {4, 1}});
  EXPECT_EQ(sorted(atoms.at(1).special[0]), (std::vector<std::int64_t>{2, 4}));
  EXPECT_EQ(atoms.at(1).special[1], (std::vector<std::int64_t>{3}));
  EXPECT_TRUE(atoms.at(1).special[2].empty());
}

// A branch (isobutane's carbons: 2 bonded to 1, 3, 4, and 5 to 4): 1's 1-3 are 3 and 4, its 1-4
// is 5; 5's 1-4 are 1 and 3.
TEST(Special, BranchReachesOneFourThroughEachArm) {
  const auto atoms = bonded(5, {{2, 1}, {2, 3}, {2, 4}, {4, 5}});
  EXPECT_EQ(sorted(atoms.at(1).special[1]), (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(atoms.at(1).special[2], (std::vector<std::int64_t>{5}));
  EXPECT_EQ(sorted(atoms.at(5).special[2]), (std::vector<std::int64_t>{1, 3}));
}

// special_bonds angle yes and dihedral yes (LAMMPS's Special::angle_trim and dihedral_trim): on
// a chain 1-2-3-4-5 with one angle (1 2 3) and one dihedral (1 2 3 4), 1-3 neighbors stay only at
// an angle's ends or as a dihedral's atoms 1 and 3 or 2 and 4, 1-4 neighbors only at a
// dihedral's ends.
TEST(Special, TrimsKeepTheEndsOfAnglesAndDihedrals) {
  std::map<std::int64_t, AtomTopology> atoms = bonded(5, {{1, 2}, {2, 3}, {3, 4}, {4, 5}});
  atoms[2].of(TermKind::angle).push_back({1, {1, 2, 3}});
  atoms[2].of(TermKind::dihedral).push_back({1, {1, 2, 3, 4}});
  build_special(atoms, {.angle = true, .dihedral = true});
  EXPECT_EQ(atoms.at(1).special[1], (std::vector<std::int64_t>{3}));
  EXPECT_EQ(atoms.at(2).special[1], (std::vector<std::int64_t>{4}));  // a dihedral's 2 and 4
  EXPECT_EQ(atoms.at(3).special[1], (std::vector<std::int64_t>{1}));  // not 5
  EXPECT_TRUE(atoms.at(5).special[1].empty());
  EXPECT_EQ(atoms.at(1).special[2], (std::vector<std::int64_t>{4}));
  EXPECT_TRUE(atoms.at(2).special[2].empty());  // 2-5 is no dihedral's ends
  EXPECT_EQ(sorted(atoms.at(3).special[0]), (std::vector<std::int64_t>{2, 4}));  // 1-2 stay
  build_special(atoms, {.angle = true});  // the 1-4 lists whole again
  EXPECT_EQ(atoms.at(2).special[2], (std::vector<std::int64_t>{5}));
}

// The trims come before the levels are combined, as LAMMPS's: in a five-ring without angles, an
// atom's two 1-3 neighbors are trimmed and then listed as the 1-4 neighbors they also are.
TEST(Special, TrimmedNeighborsStayAtAFartherLevel) {
  std::map<std::int64_t, AtomTopology> atoms = bonded(5, {{1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 1}});
  EXPECT_EQ(sorted(atoms.at(1).special[1]), (std::vector<std::int64_t>{3, 4}));
  EXPECT_TRUE(atoms.at(1).special[2].empty());
  build_special(atoms, {.angle = true});
  EXPECT_TRUE(atoms.at(1).special[1].empty());
  EXPECT_EQ(sorted(atoms.at(1).special[2]), (std::vector<std::int64_t>{3, 4}));
}

// Every kind of term keeps its atoms in the data file's order through a row, the owner's place
// filled from the atom's own id.
TEST(TopologyLayout, RowsRoundTripAndFindLevels) {
  std::map<std::int64_t, AtomTopology> atoms = bonded(4, {{1, 2}, {2, 3}, {3, 4}});
  atoms[2].of(TermKind::angle).push_back({2, {1, 2, 3}});
  atoms[2].of(TermKind::dihedral).push_back({3, {1, 2, 3, 4}});
  atoms[2].of(TermKind::improper).push_back({1, {4, 2, 1, 3}});
  atoms[3].of(TermKind::angle).push_back({1, {2, 3, 4}});
  atoms[2].molecule = 7;
  const TopologyLayout layout = TopologyLayout::fitting(atoms);
  EXPECT_EQ(layout.most, (std::array<std::size_t, term_kinds>{1, 1, 1, 1}));
  EXPECT_EQ(layout.specials, 3u);
  EXPECT_EQ(layout.width(), 1u + (1 + 2) + (1 + 3) + (1 + 4) + (1 + 4) + 3 + 3);
  std::vector<double> row(layout.width());
  for (const auto& [id, a] : atoms) {
    layout.encode(a, row);
    EXPECT_TRUE(layout.holds(row)) << id;
    EXPECT_EQ(layout.decode(row, id), a) << id;
    for (int level = 0; level < 3; ++level)
      for (const std::int64_t other : a.special[static_cast<std::size_t>(level)])
        EXPECT_EQ(layout.special_level(row, other), level + 1) << id << " " << other;
    EXPECT_EQ(layout.special_level(row, id), 0);
  }
  layout.encode(atoms[1], row);
  EXPECT_EQ(layout.special_level(row, 4), 3);
  EXPECT_EQ(layout.count(row, TermKind::bond), 1u);
  EXPECT_EQ(layout.count(row, TermKind::angle), 0u);
  layout.encode(atoms[2], row);
  const double* improper = layout.term(row, TermKind::improper, 0);
  EXPECT_EQ(improper[0], 1.0);  // type, then atoms 4, 1, 3 (2, the owner, left out)
  EXPECT_EQ(improper[1], 4.0);
  EXPECT_EQ(improper[2], 1.0);
  EXPECT_EQ(improper[3], 3.0);
  row[layout.at(TermKind::dihedral)] = 2;  // more dihedrals than the layout holds
  EXPECT_FALSE(layout.holds(row));
}

}  // namespace
}  // namespace tessera::md
