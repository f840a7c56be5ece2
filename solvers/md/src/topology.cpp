#include "tessera/md/topology.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace tessera::md {

namespace {
double as_value(std::int64_t v) { return static_cast<double>(v); }
std::int64_t as_id(double v) { return static_cast<std::int64_t>(v); }
}  // namespace

void TopologyLayout::encode(const AtomTopology& a, std::span<double> row) const {
  std::fill(row.begin(), row.end(), 0.0);
  row[0] = as_value(a.molecule);
  row[bonds_at()] = static_cast<double>(a.bonds.size());
  for (std::size_t k = 0; k < a.bonds.size(); ++k) {
    double* e = &row[bonds_at() + 1 + 2 * k];
    e[0] = a.bonds[k].type, e[1] = as_value(a.bonds[k].atom);
  }
  row[angles_at()] = static_cast<double>(a.angles.size());
  for (std::size_t k = 0; k < a.angles.size(); ++k) {
    double* e = &row[angles_at() + 1 + 3 * k];
    e[0] = a.angles[k].type, e[1] = as_value(a.angles[k].atom1), e[2] = as_value(a.angles[k].atom3);
  }
  std::size_t n = 0;
  for (std::size_t level = 0; level < 3; ++level) {
    row[specials_at() + level] = static_cast<double>(a.special[level].size());
    for (const std::int64_t id : a.special[level]) row[specials_at() + 3 + n++] = as_value(id);
  }
}

AtomTopology TopologyLayout::decode(std::span<const double> row) const {
  AtomTopology a;
  a.molecule = as_id(row[0]);
  for (std::size_t k = 0; k < bond_count(row); ++k) {
    const double* e = bond(row, k);
    a.bonds.push_back({static_cast<int>(e[0]), as_id(e[1])});
  }
  for (std::size_t k = 0; k < angle_count(row); ++k) {
    const double* e = angle(row, k);
    a.angles.push_back({static_cast<int>(e[0]), as_id(e[1]), as_id(e[2])});
  }
  std::size_t n = 0;
  for (std::size_t level = 0; level < 3; ++level)
    for (std::size_t k = 0; k < static_cast<std::size_t>(row[specials_at() + level]); ++k)
      a.special[level].push_back(as_id(row[specials_at() + 3 + n++]));
  return a;
}

bool TopologyLayout::holds(std::span<const double> row) const {
  const auto count = [](double v, std::size_t most) {
    return v >= 0 && v <= static_cast<double>(most) && v == std::floor(v);
  };
  if (!count(row[bonds_at()], bonds) || !count(row[angles_at()], angles)) return false;
  double listed = 0;
  for (std::size_t level = 0; level < 3; ++level) {
    if (!count(row[specials_at() + level], specials)) return false;
    listed += row[specials_at() + level];
  }
  return listed <= static_cast<double>(specials);
}

int TopologyLayout::special_level(std::span<const double> row, std::int64_t id) const {
  const double* counts = &row[specials_at()];
  const double* ids = counts + 3;
  const double wanted = as_value(id);
  std::size_t k = 0;
  for (int level = 1; level <= 3; ++level)
    for (std::size_t end = k + static_cast<std::size_t>(counts[level - 1]); k < end; ++k)
      if (ids[k] == wanted) return level;
  return 0;
}

TopologyLayout TopologyLayout::fitting(const std::map<std::int64_t, AtomTopology>& atoms) {
  TopologyLayout layout;
  for (const auto& [id, a] : atoms) {
    layout.bonds = std::max(layout.bonds, a.bonds.size());
    layout.angles = std::max(layout.angles, a.angles.size());
    layout.specials =
        std::max(layout.specials, a.special[0].size() + a.special[1].size() + a.special[2].size());
  }
  return layout;
}

void build_special(std::map<std::int64_t, AtomTopology>& atoms) {
  std::map<std::int64_t, std::vector<std::int64_t>> onetwo;
  for (const auto& [id, a] : atoms)
    for (const auto& b : a.bonds) {
      onetwo[id].push_back(b.atom);
      onetwo[b.atom].push_back(id);
    }
  const auto partners = [&](std::int64_t id) -> const std::vector<std::int64_t>& {
    static const std::vector<std::int64_t> none;
    const auto it = onetwo.find(id);
    return it == onetwo.end() ? none : it->second;
  };
  for (auto& [id, a] : atoms) {
    std::set<std::int64_t> seen{id};
    std::array<std::vector<std::int64_t>, 3> levels;
    const auto add = [&](std::size_t level, std::int64_t other) {
      if (seen.insert(other).second) levels[level].push_back(other);
    };
    for (const std::int64_t j : partners(id)) add(0, j);
    // LAMMPS builds 1-3 from every 1-2 neighbor and 1-4 from every 1-3 one before combining;
    // the walks below visit the same atoms, and `seen` keeps each at its nearest level.
    std::vector<std::int64_t> onethree;
    for (const std::int64_t j : partners(id))
      for (const std::int64_t k : partners(j))
        if (k != id) onethree.push_back(k);
    for (const std::int64_t k : onethree) add(1, k);
    for (const std::int64_t k : onethree)
      for (const std::int64_t l : partners(k)) add(2, l);
    a.special = std::move(levels);
  }
}

}  // namespace tessera::md
