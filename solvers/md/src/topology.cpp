#include "tessera/md/topology.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace tessera::md {

namespace {
double as_value(std::int64_t v) { return static_cast<double>(v); }
std::int64_t as_id(double v) { return static_cast<std::int64_t>(v); }
}  // namespace

std::size_t TopologyLayout::at_end(std::size_t kinds) const {
  std::size_t at = 1;  // after the molecule
  for (std::size_t k = 0; k < kinds; ++k) at += 1 + term_kind_info[k].atoms * most[k];
  return at;
}

std::size_t TopologyLayout::at(TermKind kind) const {
  return at_end(static_cast<std::size_t>(kind));
}

void TopologyLayout::encode(const AtomTopology& a, std::span<double> row) const {
  std::fill(row.begin(), row.end(), 0.0);
  row[0] = as_value(a.molecule);
  for (const TermKind kind : all_term_kinds) {
    const TermKindInfo& k = info(kind);
    const auto& terms = a.of(kind);
    row[at(kind)] = static_cast<double>(terms.size());
    double* e = &row[at(kind) + 1];
    for (const auto& term : terms) {
      *e++ = term.type;
      for (std::size_t n = 0; n < k.atoms; ++n)
        if (n != k.owner) *e++ = as_value(term.atoms[n]);
    }
  }
  std::size_t n = 0;
  for (std::size_t level = 0; level < 3; ++level) {
    row[specials_at() + level] = static_cast<double>(a.special[level].size());
    for (const std::int64_t id : a.special[level]) row[specials_at() + 3 + n++] = as_value(id);
  }
}

AtomTopology TopologyLayout::decode(std::span<const double> row, std::int64_t id) const {
  AtomTopology a;
  a.molecule = as_id(row[0]);
  for (const TermKind kind : all_term_kinds) {
    const TermKindInfo& k = info(kind);
    for (std::size_t t = 0; t < count(row, kind); ++t) {
      const double* e = term(row, kind, t);
      AtomTopology::Term out;
      out.type = static_cast<int>(*e++);
      for (std::size_t n = 0; n < k.atoms; ++n) out.atoms[n] = n == k.owner ? id : as_id(*e++);
      a.of(kind).push_back(out);
    }
  }
  std::size_t n = 0;
  for (std::size_t level = 0; level < 3; ++level)
    for (std::size_t k = 0; k < static_cast<std::size_t>(row[specials_at() + level]); ++k)
      a.special[level].push_back(as_id(row[specials_at() + 3 + n++]));
  return a;
}

bool TopologyLayout::holds(std::span<const double> row) const {
  const auto count = [](double v, std::size_t limit) {
    return v >= 0 && v <= static_cast<double>(limit) && v == std::floor(v);
  };
  for (const TermKind kind : all_term_kinds)
    if (!count(row[at(kind)], most[static_cast<std::size_t>(kind)])) return false;
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
    for (std::size_t k = 0; k < term_kinds; ++k)
      layout.most[k] = std::max(layout.most[k], a.terms[k].size());
    layout.specials =
        std::max(layout.specials, a.special[0].size() + a.special[1].size() + a.special[2].size());
  }
  return layout;
}

void build_special(std::map<std::int64_t, AtomTopology>& atoms, const SpecialBonds& special) {
  std::map<std::int64_t, std::vector<std::int64_t>> onetwo;
  for (const auto& [id, a] : atoms)
    for (const auto& b : a.of(TermKind::bond)) {
      onetwo[id].push_back(b.atoms[1]);
      onetwo[b.atoms[1]].push_back(id);
    }
  const auto partners = [&](std::int64_t id) -> const std::vector<std::int64_t>& {
    static const std::vector<std::int64_t> none;
    const auto it = onetwo.find(id);
    return it == onetwo.end() ? none : it->second;
  };
  // The pairs the trims keep, each as (smaller id, larger id).
  using Pair = std::pair<std::int64_t, std::int64_t>;
  const auto pair = [](std::int64_t a, std::int64_t b) {
    return Pair{std::min(a, b), std::max(a, b)};
  };
  std::set<Pair> angle_ends, dihedral_ends;
  for (const auto& [id, a] : atoms) {
    for (const auto& g : a.of(TermKind::angle)) angle_ends.insert(pair(g.atoms[0], g.atoms[2]));
    for (const auto& d : a.of(TermKind::dihedral)) {
      angle_ends.insert(pair(d.atoms[0], d.atoms[2]));
      angle_ends.insert(pair(d.atoms[1], d.atoms[3]));
      dihedral_ends.insert(pair(d.atoms[0], d.atoms[3]));
    }
  }
  for (auto& [id, a] : atoms) {
    // Each level on its own, without duplicates or the atom itself (LAMMPS's dedup).
    std::array<std::vector<std::int64_t>, 3> levels;
    const auto add = [&, self = id](std::size_t level, std::int64_t other) {
      auto& list = levels[level];
      if (other != self && std::find(list.begin(), list.end(), other) == list.end())
        list.push_back(other);
    };
    std::vector<std::int64_t> onethree;  // with repeats, as LAMMPS builds 1-4 from it
    for (const std::int64_t j : partners(id)) {
      add(0, j);
      for (const std::int64_t k : partners(j))
        if (k != id) onethree.push_back(k);
    }
    for (const std::int64_t k : onethree) add(1, k);
    for (const std::int64_t k : onethree)
      for (const std::int64_t l : partners(k)) add(2, l);
    const auto trim = [&, self = id](std::vector<std::int64_t>& list, const std::set<Pair>& keep) {
      std::erase_if(list, [&](std::int64_t other) { return !keep.count(pair(self, other)); });
    };
    if (special.angle) trim(levels[1], angle_ends);
    if (special.dihedral) trim(levels[2], dihedral_ends);
    // LAMMPS's combine: each atom at its nearest level left.
    std::set<std::int64_t> seen{id};
    for (auto& list : levels)
      std::erase_if(list, [&](std::int64_t other) { return !seen.insert(other).second; });
    a.special = std::move(levels);
  }
}

}  // namespace tessera::md
