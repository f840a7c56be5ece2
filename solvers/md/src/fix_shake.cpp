// fix shake (fix_shake.hpp): LAMMPS's FixShake (src/RIGID/fix_shake.cpp), its cluster search,
// its solvers and its statistics followed term by term, so that the constraint forces are
// LAMMPS's to rounding.
#include "tessera/md/fix_shake.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>

#include "arguments.hpp"
#include "shake_geometry.hpp"
#include "tessera/core/error.hpp"
#include "tessera/md/bonded.hpp"
#include "tessera/md/kernel_work.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

using namespace shake;  // shake_geometry.hpp

namespace {
constexpr double mass_delta = 0.1;  // LAMMPS's MASSDELTA: the tolerance of `m`
constexpr double big = 1.0e20;      // LAMMPS's BIG: the stats' starting minimum

// Each atom's id, type and group mask, on every rank (the cluster search needs its partners').
struct AtomInfo {
  int type = 0;
  std::uint32_t mask = 0;
};
std::map<std::int64_t, AtomInfo> gather_atom_info(Simulation& sim) {
  std::vector<double> rows;
  for (const AtomRecord& a : sim.gather_atoms())
    rows.insert(rows.end(), {static_cast<double>(a.id), static_cast<double>(a.type),
                             static_cast<double>(a.mask)});
  unsigned long long count = rows.size();
  MPI_Bcast(&count, 1, MPI_UNSIGNED_LONG_LONG, 0, sim.runtime().comm());
  if (count > static_cast<unsigned long long>(std::numeric_limits<int>::max()))
    throw Error("fix shake: too many atoms to send in one message");
  rows.resize(count);
  MPI_Bcast(rows.data(), static_cast<int>(count), MPI_DOUBLE, 0, sim.runtime().comm());
  std::map<std::int64_t, AtomInfo> out;
  for (std::size_t k = 0; k + 2 < rows.size(); k += 3)
    out[static_cast<std::int64_t>(rows[k])] = {static_cast<int>(rows[k + 1]),
                                               static_cast<std::uint32_t>(rows[k + 2])};
  return out;
}

// The type of the bond between atoms a and b, kept by either (0: none), as LAMMPS's
// bondtype_findset.
int bond_type(const std::map<std::int64_t, AtomTopology>& topology, std::int64_t a,
              std::int64_t b) {
  for (const auto& [first, second] : {std::pair{a, b}, std::pair{b, a}}) {
    const auto it = topology.find(first);
    if (it == topology.end()) continue;
    for (const auto& term : it->second.of(TermKind::bond))
      if (term.atoms[1] == second) return term.type;
  }
  return 0;
}

// The type of the angle kept by atom `middle` whose ends are a and b (0: none), as LAMMPS's
// angletype_findset.
int angle_type(const std::map<std::int64_t, AtomTopology>& topology, std::int64_t middle,
               std::int64_t a, std::int64_t b) {
  const auto it = topology.find(middle);
  if (it == topology.end()) return 0;
  for (const auto& term : it->second.of(TermKind::angle))
    if ((term.atoms[0] == a && term.atoms[2] == b) || (term.atoms[0] == b && term.atoms[2] == a))
      return term.type;
  return 0;
}

}  // namespace

FixShake::FixShake(const FixArguments& a, const std::string& style)
    : Fix(a.id, a.group), print_(a.print), style_(style) {
  const std::string what = "fix " + a.id + " " + style;
  const std::string usage = "fix ID GROUP " + style +
                            " TOL ITER N [b BONDTYPES...] [a ANGLETYPES...] [t ATOMTYPES...] "
                            "[m MASSES...]";
  if (a.from_restart || a.sim == nullptr)
    arguments::bad(what + ": restart files do not keep fix " + style +
                   " (nor do LAMMPS's); define it again after read_restart");
  Simulation& sim = *a.sim;
  if (!sim.has_box()) arguments::bad(what + ": the simulation box is not defined yet");
  if (!sim.molecular())
    arguments::bad(what + ": atom_style " + atom_style_name(sim.atom_style()) +
                   " has no bonds (LAMMPS: \"Cannot use fix shake with non-molecular system\")");
  if (a.args.size() < 5) arguments::bad(what + ": too few arguments; usage: " + usage);
  tolerance_ = arguments::number(what + " TOL", a.args[0]);
  max_iter_ =
      static_cast<int>(arguments::integer(what + " ITER", a.args[1], 0, arguments::int_max));
  output_every_ =
      static_cast<int>(arguments::integer(what + " N", a.args[2], 0, arguments::int_max));
  bond_types_ = sim.topology_types(TermKind::bond);
  angle_types_ = sim.topology_types(TermKind::angle);
  std::vector<int> bond_flag(static_cast<std::size_t>(bond_types_) + 1, 0),
      angle_flag(static_cast<std::size_t>(angle_types_) + 1, 0),
      type_flag(static_cast<std::size_t>(sim.types()) + 1, 0);
  std::vector<double> masses;
  char mode = 0;
  std::size_t at = 3;
  for (; at < a.args.size(); ++at) {
    const std::string& word = a.args[at];
    if (word == "b" || word == "a" || word == "t" || word == "m") {
      mode = word[0];
      if (mode == 'm')
        for (int type = 1; type <= sim.types(); ++type)
          if (!(sim.mass(type) > 0))
            arguments::bad(what + " m: the mass of atom type " + std::to_string(type) +
                           " is not set (LAMMPS: \"Not all per-type masses are set\")");
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(word[0]))) break;
    switch (mode) {
      case 'b':
        bond_flag[static_cast<std::size_t>(
            arguments::integer(what + " b", word, 1, std::max(bond_types_, 1)))] = 1;
        break;
      case 'a':
        if (angle_types_ == 0)
          arguments::bad(what +
                         " a: the system has no angle types (LAMMPS: \"Invalid angle "
                         "type index for fix shake\")");
        angle_flag[static_cast<std::size_t>(
            arguments::integer(what + " a", word, 1, angle_types_))] = 1;
        break;
      case 't':
        type_flag[static_cast<std::size_t>(arguments::integer(what + " t", word, 1, sim.types()))] =
            1;
        break;
      case 'm': {
        const double m = arguments::number(what + " m", word);
        if (m == 0.0)
          arguments::bad(what +
                         " m: a mass must not be 0 (LAMMPS: \"Invalid atom "
                         "mass for fix shake\")");
        if (masses.size() == static_cast<std::size_t>(sim.types()))
          arguments::bad(what +
                         " m: more masses than atom types (LAMMPS: \"Too many masses for "
                         "fix shake\")");
        masses.push_back(m);
        break;
      }
      default:
        arguments::bad(what + ": " + word + " comes before any of b, a, t, m; usage: " + usage);
    }
  }
  if (at < a.args.size()) {
    if (a.args[at] == "mol") arguments::bad(what + ": molecule templates (mol) are not in md_ipu");
    arguments::bad(what + ": unknown keyword " + a.args[at] + "; usage: " + usage);
  }
  if (bond_types_ == 0 && std::count(bond_flag.begin(), bond_flag.end(), 1) > 0)
    arguments::bad(what + ": the system has no bond types");
  find_clusters(sim, bond_flag, angle_flag, type_flag, masses);
}

// LAMMPS's find_clusters, on every rank from the whole topology.
void FixShake::find_clusters(Simulation& sim, const std::vector<int>& bond_flag,
                             const std::vector<int>& angle_flag, const std::vector<int>& type_flag,
                             const std::vector<double>& masses) {
  const std::string what = "fix " + id() + " " + style_;
  const auto start = std::chrono::steady_clock::now();
  // fix rattle's too: LAMMPS's FixShake constructor finds them before FixRattle's sets `rattle`.
  if (print_) print_("Finding SHAKE clusters ...\n");
  const int bit = sim.group_bit(group());
  if (bit < 0) arguments::bad(what + ": there is no group " + group() + "; define it with group");
  const std::uint32_t groupbit = 1u << bit;
  const std::map<std::int64_t, AtomTopology> topology = sim.gather_topology(/*every_rank=*/true);
  const std::map<std::int64_t, AtomInfo> atoms = gather_atom_info(sim);
  const auto masscheck = [&](double m) {
    for (const double listed : masses)
      if (std::fabs(listed - m) <= mass_delta) return true;
    return false;
  };
  const auto info_of = [&](std::int64_t id) -> const AtomInfo& {
    const auto it = atoms.find(id);
    if (it == atoms.end())
      throw ConfigError(what + ": atom " + std::to_string(id) +
                        " is bonded but does not exist (LAMMPS: \"Did not find fix shake "
                        "partner info\")");
    return it->second;
  };
  // Each atom's partners (its 1-2 list), their bond types, and which are SHAKE bonds.
  struct Partners {
    std::vector<std::int64_t> id;
    std::vector<int> bond, shake;
    int nshake = 0;
  };
  std::map<std::int64_t, Partners> partners;
  for (const auto& [id, atom] : topology) {
    Partners& p = partners[id];
    const AtomInfo& me = info_of(id);
    for (const std::int64_t j : atom.special[0]) {
      const AtomInfo& other = info_of(j);
      const int type = bond_type(topology, id, j);
      int shake = 0;
      if ((me.mask & groupbit) && (other.mask & groupbit) && type > 0)
        shake =
            bond_flag[static_cast<std::size_t>(type)] ||
            type_flag[static_cast<std::size_t>(me.type)] ||
            type_flag[static_cast<std::size_t>(other.type)] ||
            (!masses.empty() && (masscheck(sim.mass(other.type)) || masscheck(sim.mass(me.type))));
      p.id.push_back(j);
      p.bond.push_back(type);
      p.shake.push_back(shake);
      p.nshake += shake;
    }
  }
  const auto nshake = [&](std::int64_t id) {
    const auto it = partners.find(id);
    return it == partners.end() ? 0 : it->second.nshake;
  };
  for (const auto& [id, p] : partners) {
    if (p.nshake > 3)
      throw ConfigError(what + ": atom " + std::to_string(id) + " has " + std::to_string(p.nshake) +
                        " constrained bonds (LAMMPS: \"Shake cluster of more than 4 atoms\")");
    if (p.nshake > 1)
      for (std::size_t k = 0; k < p.id.size(); ++k)
        if (p.shake[k] && nshake(p.id[k]) > 1)
          throw ConfigError(what + ": atoms " + std::to_string(id) + " and " +
                            std::to_string(p.id[k]) +
                            " are each the centre of a cluster and bonded (LAMMPS: \"Shake "
                            "clusters are connected\")");
  }
  // The central atoms' rows (flag, atoms, types), then copied to the other atoms.
  std::map<std::int64_t, std::array<double, width>> rows;
  const bool angles_allowed = has_terms(sim.atom_style(), TermKind::angle);
  for (const auto& [id, p] : partners) {
    std::array<double, width> row{};
    int flag = 0;
    if (p.nshake == 1) {
      std::size_t j = 0;
      while (!p.shake[j]) ++j;
      if (nshake(p.id[j]) == 1 && id < p.id[j]) {
        flag = 2;
        row[1] = static_cast<double>(id), row[2] = static_cast<double>(p.id[j]);
        row[5] = p.bond[j];
      }
    }
    if (p.nshake > 1) {
      flag = 1;
      row[1] = static_cast<double>(id);
      for (std::size_t j = 0; j < p.id.size(); ++j)
        if (p.shake[j]) {
          row[static_cast<std::size_t>(1 + flag)] = static_cast<double>(p.id[j]);
          row[static_cast<std::size_t>(4 + flag)] = p.bond[j];
          ++flag;
        }
    }
    if (p.nshake == 2 && angles_allowed) {
      const int n = angle_type(topology, id, static_cast<std::int64_t>(row[2]),
                               static_cast<std::int64_t>(row[3]));
      if (n > 0 && angle_flag[static_cast<std::size_t>(n)]) flag = 1, row[7] = n;
    }
    if (flag == 0) continue;
    row[0] = flag;
    for (int k = 0; k < cluster_atoms(flag); ++k)
      rows[static_cast<std::int64_t>(row[static_cast<std::size_t>(1 + k)])] = row;
  }
  // Per frozen angle type, the bond types of its clusters (LAMMPS's check in init).
  angle_bonds_.assign(static_cast<std::size_t>(angle_types_) + 1, {0, 0});
  std::array<int, 5> counts{};
  for (const auto& [id, row] : rows) {
    const int flag = static_cast<int>(row[0]);
    ++counts[static_cast<std::size_t>(flag)];
    if (flag != 1) continue;
    const std::array<int, 2> bonds{std::min(static_cast<int>(row[5]), static_cast<int>(row[6])),
                                   std::max(static_cast<int>(row[5]), static_cast<int>(row[6]))};
    auto& seen = angle_bonds_[static_cast<std::size_t>(row[7])];
    if (seen[0] == 0)
      seen = bonds;
    else if (seen[0] > 0 && seen != bonds)
      seen = {-1, -1};
  }
  any_pairs_ = counts[2] > 0;
  if (print_) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%8d = # of size 2 clusters\n%8d = # of size 3 clusters\n%8d = # of size 4 "
                  "clusters\n%8d = # of frozen angles\n  find clusters CPU = %.3f seconds\n",
                  counts[2] / 2, counts[3] / 3, counts[4] / 4, counts[1] / 3,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    print_(buf);
  }
  handle_ = sim.add_per_atom(width);
  offset_ = sim.per_atom_offset(handle_);
  sim.for_each_tile("md.fix_shake_clusters", [&](FixTile& t) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
      const auto it = rows.find(t.id[i]);
      if (it == rows.end()) continue;
      std::copy(it->second.begin(), it->second.end(),
                t.per_atom.begin() + static_cast<std::ptrdiff_t>(i * t.per_atom_width + offset_));
    }
  });
}

void FixShake::release(Simulation& sim) {
  if (handle_ != 0) sim.remove_per_atom(handle_);
  handle_ = 0;
}

// LAMMPS's FixShake::init: the equilibrium distances of the bonds and frozen angles.
void FixShake::init(Simulation& sim) {
  const std::string what = "fix " + id() + " " + style_;
  int shakes = 0;
  bool box_changing = false;
  for (const auto& fix : sim.fixes()) {
    if (fix->constrains()) ++shakes;
    // LAMMPS asks it of fix shake only: fix rattle comes after the integrators.
    if (fix.get() == this && box_changing && style_ == "shake")
      throw ConfigError(what +
                        " must come before any fix that changes the box (LAMMPS: \"Fix "
                        "shake must come before any box changing fix\")");
    if (fix->changes_box()) box_changing = true;
  }
  if (shakes > 1)
    throw ConfigError(what + ": there is more than one fix shake or rattle (as LAMMPS, one)");
  const Bond* bond = sim.bond();
  if (!bond)
    throw ConfigError(what +
                      ": no bond style is defined (LAMMPS: \"Bond potential must be "
                      "defined for SHAKE\")");
  bond_distance_.assign(static_cast<std::size_t>(bond_types_) + 1, 0.0);
  for (int type = 1; type <= bond_types_; ++type) {
    const auto r0 = bond->equilibrium(type);
    if (!r0)
      throw ConfigError(what + ": bond style " + bond->style() +
                        " has no equilibrium distance to hold the bonds at");
    bond_distance_[static_cast<std::size_t>(type)] = *r0;
  }
  angle_distance_.assign(static_cast<std::size_t>(angle_types_) + 1, 0.0);
  for (int type = 1; type <= angle_types_; ++type) {
    const auto bonds = angle_bonds_[static_cast<std::size_t>(type)];
    if (bonds[0] == 0) continue;
    if (bonds[0] < 0)
      throw ConfigError(what + ": the clusters of angle type " + std::to_string(type) +
                        " have different bond types (LAMMPS: \"Shake angles have different "
                        "bond types\")");
    const Angle* angle = sim.angle();
    if (!angle)
      throw ConfigError(what +
                        ": no angle style is defined (LAMMPS: \"Angle potential must be "
                        "defined for SHAKE\")");
    const auto theta = angle->equilibrium(type);
    if (!theta)
      throw ConfigError(what + ": angle style " + angle->style() +
                        " has no equilibrium angle to hold the angles at");
    // LAMMPS's law of cosines for bonds of the same or different lengths.
    const double b1 = bond_distance_[static_cast<std::size_t>(bonds[0])];
    const double b2 = bond_distance_[static_cast<std::size_t>(bonds[1])];
    const double rsq = b1 * b1 + b2 * b2 - 2.0 * b1 * b2 * std::cos(*theta);
    angle_distance_[static_cast<std::size_t>(type)] = std::sqrt(rsq);
  }
  tiles_.assign(static_cast<std::size_t>(sim.runtime().target().total_tiles()), {});
  offset_ = sim.per_atom_offset(handle_);
  // LAMMPS's setup prints the statistics first, at the setup's step.
  stats_due_ = output_every_ > 0;
}

void FixShake::pre_force(Simulation& sim) {
  offset_ = sim.per_atom_offset(handle_);
  virial_.resize(sim.runtime(), 6);
  negative_.resize(sim.runtime(), 1);
  const std::size_t stats = 2 * static_cast<std::size_t>(bond_types_ + angle_types_ + 2);
  stats_sum_.resize(sim.runtime(), stats);
  stats_max_.resize(sim.runtime(), stats);
  if (!stats_due_ && output_every_ > 0 && sim.step() == next_output_) stats_due_ = true;
}

void FixShake::setup(Simulation& sim) {
  warn_negative_determinants(sim);
  if (output_every_ > 0) {
    print_stats(sim);
    const std::int64_t step = sim.step();
    next_output_ = step + output_every_;
    if (step % output_every_ != 0)
      next_output_ = (step / output_every_) * output_every_ + output_every_;
  }
}

// LAMMPS's warning for a 2-atom cluster whose predicted distance no multiplier can correct
// (taken as the nearest it can).
void FixShake::warn_negative_determinants(Simulation& sim) {
  if (any_pairs_ && negative_.totals(sim.runtime(), "md.fix_shake_determinant", 1)[0] > 0 && print_)
    print_("WARNING: Shake determinant < 0.0\n");
}

void FixShake::end_of_step(Simulation& sim) {
  warn_negative_determinants(sim);
  if (stats_due_) {
    print_stats(sim);
    next_output_ += output_every_;
  }
}

// LAMMPS's unconstrained_update: x + dt v + dt^2 ftm2v f / m for atoms of clusters, else 0;
// with v and f taken as 0 when correcting (correct_coordinates).
void FixShake::predict_positions(const FixTile& t, bool correcting, std::span<double> out) const {
  const double dtv = t.dt;
  const double dtfsq = (half_step_prediction(t) ? 0.5 : 1.0) * t.dt * t.dt * t.units->ftm2v;
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
    if (t.per_atom[i * t.per_atom_width + offset_] == 0.0) continue;
    if (correcting) {
      for (std::size_t d = 0; d < 3; ++d) out[3 * i + d] = t.x[3 * i + d];
      continue;
    }
    const double dtfmsq = dtfsq / t.mass[static_cast<std::size_t>(t.type[i])];
    for (std::size_t d = 0; d < 3; ++d)
      out[3 * i + d] = t.x[3 * i + d] + dtv * t.v[3 * i + d] + dtfmsq * t.f[3 * i + d];
  }
}

// The tile's clusters, found among its atoms at each rebuild: each cluster with an atom of the
// tile's own once (LAMMPS's pre_neighbor), its atoms at their images nearest that atom.
FixShake::TileClusters& FixShake::clusters_of(const FixTile& t) {
  TileClusters& c = tiles_[static_cast<std::size_t>(t.tile.id())];
  if (c.builds == t.builds) return c;
  c.builds = t.builds;
  c.clusters.clear();
  const auto nlocal = static_cast<std::size_t>(t.nlocal);
  const std::size_t nall = nlocal + static_cast<std::size_t>(t.nghost);
  std::vector<std::pair<std::int64_t, int>> by_id(nall);
  for (std::size_t i = 0; i < nall; ++i)
    by_id[i] = {i < nlocal ? t.id[i] : t.ghost_id[i - nlocal], static_cast<int>(i)};
  std::sort(by_id.begin(), by_id.end());
  const auto position = [&](std::size_t i) { return place(t.x, t.ghost_x, i); };
  for (std::size_t i = 0; i < nlocal; ++i) {
    const double* row = &t.per_atom[i * t.per_atom_width + offset_];
    const int flag = static_cast<int>(row[0]);
    if (flag == 0) continue;
    Cluster cluster;
    cluster.flag = flag;
    for (std::size_t k = 0; k < 3; ++k) cluster.type[k] = static_cast<int>(row[5 + k]);
    bool first = true;
    for (int k = 0; k < cluster_atoms(flag); ++k) {
      const auto atom = static_cast<std::int64_t>(row[1 + k]);
      auto it =
          std::lower_bound(by_id.begin(), by_id.end(), std::pair<std::int64_t, int>{atom, -1});
      int nearest = -1, owned = -1;
      double best = 0;
      for (; it != by_id.end() && it->first == atom; ++it) {
        const auto j = static_cast<std::size_t>(it->second);
        if (j < nlocal) owned = it->second;
        const double* a = position(i);
        const double* b = position(j);
        const double rsq = (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                           (a[2] - b[2]) * (a[2] - b[2]);
        if (nearest < 0 || rsq < best) nearest = it->second, best = rsq;
      }
      if (nearest < 0) {
        std::string ids;
        for (int n = 0; n < cluster_atoms(flag); ++n)
          ids.append(n ? " " : "").append(std::to_string(static_cast<std::int64_t>(row[1 + n])));
        throw Error("fix " + id() + " " + style_ + ": atoms " + ids +
                    " of a cluster are missing at step " + std::to_string(t.step) +
                    " (LAMMPS: \"Shake atoms missing\"): an atom is farther from its cluster "
                    "than the ghost cutoff, or was deleted");
      }
      // Listed by the tile's own atom of the cluster that comes first.
      if (owned >= 0 && owned < static_cast<int>(i)) first = false;
      cluster.atom[static_cast<std::size_t>(k)] = nearest;
      cluster.own[static_cast<std::size_t>(k)] = owned;
    }
    if (first) c.clusters.push_back(cluster);
  }
  t.tile.charge(shake_resolve_work, nall + nlocal);
  return c;
}

// LAMMPS's shake (2 atoms: the quadratic solved exactly), shake3, shake4 and shake3angle (the
// linearised system inverted, then iterated with its quadratic terms), as one: constraint k
// joins atoms a_k and b_k, with r_k = x_a - x_b now and s_k the same of the predictions; the
// multiplier lamda_k moves a_k by +lamda r_k / m and b_k by -lamda r_k / m, so the predicted
// s_k' = s_k + sum_l lamda_l C_kl r_l with C_kl from the masses, and |s_k'| = d_k.
std::array<double, 6> FixShake::solve(const FixTile& t, const Cluster& c, double dtfsq,
                                      std::span<double> f) {
  const int n = cluster_atoms(c.flag);
  std::array<Constraint, 3> k{};
  const int nk = constraints_of(c.flag, k);
  std::array<double, 3> d{};
  for (int m = 0; m < nk; ++m)
    d[static_cast<std::size_t>(m)] =
        c.flag == 1 && m == 2
            ? angle_distance_[static_cast<std::size_t>(c.type[2])]
            : bond_distance_[static_cast<std::size_t>(c.type[static_cast<std::size_t>(m)])];
  const std::array<double, 4> inv = shake::inverse_masses(t, c.atom, n);
  double r[3][3], s[3][3];
  for (int m = 0; m < nk; ++m) {
    const auto ia = static_cast<std::size_t>(c.atom[static_cast<std::size_t>(k[m].a)]);
    const auto ib = static_cast<std::size_t>(c.atom[static_cast<std::size_t>(k[m].b)]);
    const double *xa = place(t.x, t.ghost_x, ia), *xb = place(t.x, t.ghost_x, ib);
    const double *sa = place(t.predicted, t.ghost_predicted, ia),
                 *sb = place(t.predicted, t.ghost_predicted, ib);
    for (std::size_t dim = 0; dim < 3; ++dim) {
      r[m][dim] = xa[dim] - xb[dim];
      s[m][dim] = sa[dim] - sb[dim];
    }
  }
  // C_kl: how multiplier l moves constraint k's vector (LAMMPS's invmass sums and signs).
  const auto delta = [](int p, int q) { return p == q ? 1.0 : 0.0; };
  double C[3][3];
  for (int a = 0; a < nk; ++a)
    for (int b = 0; b < nk; ++b)
      C[a][b] =
          inv[static_cast<std::size_t>(k[a].a)] * (delta(k[a].a, k[b].a) - delta(k[a].a, k[b].b)) -
          inv[static_cast<std::size_t>(k[a].b)] * (delta(k[a].b, k[b].a) - delta(k[a].b, k[b].b));
  double lamda[3] = {0, 0, 0};
  if (nk == 1) {
    const double rsq = dot(r[0], r[0]), ssq = dot(s[0], s[0]);
    const double qa = C[0][0] * C[0][0] * rsq;
    const double qb = 2.0 * C[0][0] * dot(s[0], r[0]);
    const double qc = ssq - d[0] * d[0];
    double determ = qb * qb - 4.0 * qa * qc;
    if (determ < 0.0) {
      negative_.row(t.tile)[0] += 1;
      determ = 0.0;
    }
    const double lamda1 = (-qb + std::sqrt(determ)) / (2.0 * qa);
    const double lamda2 = (-qb - std::sqrt(determ)) / (2.0 * qa);
    lamda[0] = std::fabs(lamda1) <= std::fabs(lamda2) ? lamda1 : lamda2;
  } else {
    double A[3][3], Ainv[3][3];
    for (int a = 0; a < nk; ++a)
      for (int b = 0; b < nk; ++b) A[a][b] = 2.0 * C[a][b] * dot(s[a], r[b]);
    const double determ = shake::determinant(A, nk);
    if (determ == 0.0)
      throw Error("fix " + id() + " " + style_ + ": a cluster's determinant is 0 at step " +
                  std::to_string(t.step) + " (LAMMPS: \"Shake determinant = 0.0\")");
    const double determinv = 1.0 / determ;
    if (nk == 2) {
      Ainv[0][0] = A[1][1] * determinv;
      Ainv[0][1] = -A[0][1] * determinv;
      Ainv[1][0] = -A[1][0] * determinv;
      Ainv[1][1] = A[0][0] * determinv;
    } else {
      shake::inverse3(A, determinv, Ainv);
    }
    // The quadratic terms' coefficients, squares first, then the products in order.
    std::array<std::pair<int, int>, 6> terms{};
    int nterms = 0;
    for (int a = 0; a < nk; ++a) terms[static_cast<std::size_t>(nterms++)] = {a, a};
    for (int a = 0; a < nk; ++a)
      for (int b = a + 1; b < nk; ++b) terms[static_cast<std::size_t>(nterms++)] = {a, b};
    double quad[3][6];
    for (int a = 0; a < nk; ++a)
      for (int q = 0; q < nterms; ++q) {
        const auto [l, m] = terms[static_cast<std::size_t>(q)];
        quad[a][q] = l == m ? C[a][l] * C[a][l] * dot(r[l], r[l])
                            : 2.0 * C[a][l] * C[a][m] * dot(r[l], r[m]);
      }
    double ssq[3];
    for (int a = 0; a < nk; ++a) ssq[a] = dot(s[a], s[a]);
    bool done = false;
    for (int iter = 0; !done && iter < max_iter_; ++iter) {
      double b[3];
      for (int a = 0; a < nk; ++a) {
        double q = 0.0;
        for (int term = 0; term < nterms; ++term) {
          const auto [l, m] = terms[static_cast<std::size_t>(term)];
          const double value = quad[a][term] * lamda[l] * lamda[m];
          q = term == 0 ? value : q + value;
        }
        b[a] = d[static_cast<std::size_t>(a)] * d[static_cast<std::size_t>(a)] - ssq[a] - q;
      }
      double next[3];
      for (int a = 0; a < nk; ++a) {
        next[a] = Ainv[a][0] * b[0];
        for (int l = 1; l < nk; ++l) next[a] += Ainv[a][l] * b[l];
      }
      done = true;
      for (int a = 0; a < nk; ++a)
        if (std::fabs(next[a] - lamda[a]) > tolerance_) done = false;
      for (int a = 0; a < nk; ++a) lamda[a] = next[a];
      // Stop before the multipliers overflow (LAMMPS's 1e150).
      for (int a = 0; a < nk; ++a)
        if (std::fabs(lamda[a]) > 1e150) done = true;
    }
  }
  for (int a = 0; a < nk; ++a) lamda[a] = lamda[a] / dtfsq;
  // The forces on the tile's own atoms of the cluster, each atom's terms in constraint order.
  int owned = 0;
  for (int p = 0; p < n; ++p) {
    if (c.own[static_cast<std::size_t>(p)] < 0) continue;
    const auto i = static_cast<std::size_t>(c.own[static_cast<std::size_t>(p)]);
    ++owned;
    for (std::size_t dim = 0; dim < 3; ++dim) {
      double sum = 0.0;
      bool any = false;
      for (int a = 0; a < nk; ++a) {
        const double sign = k[a].a == p ? 1.0 : k[a].b == p ? -1.0 : 0.0;
        if (sign == 0.0) continue;
        const double term = sign * lamda[a] * r[a][dim];
        sum = any ? sum + term : term;
        any = true;
      }
      f[3 * i + dim] += sum;
    }
  }
  std::array<double, 6> v{};
  constexpr int pairs[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
  for (std::size_t j = 0; j < 6; ++j)
    for (int a = 0; a < nk; ++a) {
      const double term = lamda[a] * r[a][pairs[j][0]] * r[a][pairs[j][1]];
      v[j] = a == 0 ? term : v[j] + term;
    }
  // LAMMPS's v_tally: the tile's share, its own atoms' fraction of the cluster's.
  const double fraction = owned / static_cast<double>(n);
  for (auto& w : v) w *= fraction;
  return v;
}

// LAMMPS's correct_coordinates: the atoms moved onto the constraints by the forces that would
// hold them there with no velocity and no other force over half a step squared.
void FixShake::correct_positions(FixTile& t) {
  const TileClusters& c = clusters_of(t);
  if (stats_due_) stats_sample(t, c.clusters);
  const auto nlocal = static_cast<std::size_t>(t.nlocal);
  const double dtfsq = 0.5 * t.dt * t.dt * t.units->ftm2v;
  // Every cluster solved from the positions as they are, then the tile's atoms moved.
  std::vector<double> fc(3 * nlocal, 0.0);
  for (const Cluster& cluster : c.clusters) solve(t, cluster, dtfsq, fc);
  for (std::size_t i = 0; i < nlocal; ++i) {
    const double dtfmsq = dtfsq / t.mass[static_cast<std::size_t>(t.type[i])];
    for (std::size_t d = 0; d < 3; ++d) t.x[3 * i + d] = t.x[3 * i + d] + dtfmsq * fc[3 * i + d];
  }
  t.tile.charge(shake_cluster_work, c.clusters.size());
}

void FixShake::post_force(FixTile& t) {
  const TileClusters& c = clusters_of(t);
  if (stats_due_ && !t.setup) stats_sample(t, c.clusters);
  const double dtfsq = (half_step_prediction(t) ? 0.5 : 1.0) * t.dt * t.dt * t.units->ftm2v;
  auto virial = virial_.start_row(t.tile);
  negative_.start_row(t.tile);
  for (const Cluster& cluster : c.clusters) {
    const auto v = solve(t, cluster, dtfsq, t.f);
    for (std::size_t k = 0; k < 6; ++k) virial[k] += v[k];
  }
  t.tile.charge(shake_cluster_work, c.clusters.size());
}

std::array<double, 6> FixShake::tile_virial(const Tile& tile) const {
  return virial_.first_values<6>(tile);
}

// LAMMPS's FixShake::dof: each cluster whose central atom is in the group removes its
// constraints.
double FixShake::dof_removed(Simulation& sim, std::uint32_t group_mask) {
  offset_ = sim.per_atom_offset(handle_);
  return sim.reduce_atoms("md.fix_shake_dof", ReduceOp::sum, 1,
                          [&](const AtomsView& a, std::span<double> out) {
                            for (std::size_t i = 0; i < a.id.size(); ++i) {
                              const double* row = &a.per_atom[i * a.per_atom_width + offset_];
                              if (!(a.mask[i] & group_mask) || row[0] == 0.0 ||
                                  static_cast<std::int64_t>(row[1]) != a.id[i])
                                continue;
                              const int flag = static_cast<int>(row[0]);
                              out[0] += flag == 1 ? 3 : flag - 1;
                            }
                          })[0];
}

bool FixShake::replaces_term(TermKind kind, std::span<const std::int64_t> ids,
                             std::span<const double> per_atom) const {
  const double* row = &per_atom[offset_];
  const int flag = static_cast<int>(row[0]);
  if (flag == 0) return false;
  const auto member = [&](std::int64_t id) {
    for (int k = 0; k < cluster_atoms(flag); ++k)
      if (static_cast<std::int64_t>(row[1 + k]) == id) return true;
    return false;
  };
  const auto central = static_cast<std::int64_t>(row[1]);
  if (kind == TermKind::bond)
    return member(ids[0]) && member(ids[1]) && (ids[0] == central || ids[1] == central);
  if (kind == TermKind::angle)
    return flag == 1 && ids[1] == central && member(ids[0]) && member(ids[2]) && ids[0] != ids[2];
  return false;
}

// LAMMPS's stats, each atom of a cluster counting the cluster's bonds and angle as its own.
void FixShake::stats_sample(const FixTile& t, const std::vector<Cluster>& clusters) {
  auto sum = stats_sum_.start_row(t.tile);
  auto most = stats_max_.start_row(t.tile);
  const std::size_t bonds = static_cast<std::size_t>(bond_types_) + 1;
  for (std::size_t type = 0; type < bonds + static_cast<std::size_t>(angle_types_) + 1; ++type)
    most[2 * type + 1] = -big;  // -min
  const auto position = [&](int i) { return place(t.x, t.ghost_x, static_cast<std::size_t>(i)); };
  const auto distance = [&](int i, int j) {
    const double *a = position(i), *b = position(j);
    const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return std::sqrt(dx * dx + dy * dy + dz * dz);
  };
  const auto add = [&](std::size_t type, double value, int weight) {
    sum[2 * type] += weight;
    sum[2 * type + 1] += weight * value;
    most[2 * type] = std::max(most[2 * type], value);
    most[2 * type + 1] = std::max(most[2 * type + 1], -value);
  };
  for (const Cluster& c : clusters) {
    const int n = cluster_atoms(c.flag);
    int owned = 0;
    for (int p = 0; p < n; ++p)
      if (c.own[static_cast<std::size_t>(p)] >= 0) ++owned;
    for (int p = 1; p < n; ++p)
      add(static_cast<std::size_t>(c.type[static_cast<std::size_t>(p - 1)]),
          distance(c.atom[0], c.atom[static_cast<std::size_t>(p)]), owned);
    if (c.flag == 1) {
      const double r1 = distance(c.atom[0], c.atom[1]), r2 = distance(c.atom[0], c.atom[2]),
                   r3 = distance(c.atom[1], c.atom[2]);
      const double angle =
          std::acos((r1 * r1 + r2 * r2 - r3 * r3) / (2.0 * r1 * r2)) * 180.0 / M_PI;
      add(bonds + static_cast<std::size_t>(c.type[2]), angle, owned);
    }
  }
}

void FixShake::print_stats(Simulation& sim) {
  stats_due_ = false;
  const std::size_t bonds = static_cast<std::size_t>(bond_types_) + 1;
  const std::size_t types = bonds + static_cast<std::size_t>(angle_types_) + 1;
  const auto sums = stats_sum_.totals(sim.runtime(), "md.fix_shake_stats_sum", 2 * types);
  const auto most = sim.runtime().all_reduce<double>(
      "md.fix_shake_stats_max", ReduceOp::max, 2 * types, [&](Tile& t, std::span<double> out) {
        const auto row = stats_max_.values(t);
        for (std::size_t k = 0; k < out.size(); ++k)
          out[k] = k < row.size() ? row[k] : (k % 2 == 1 ? -big : 0.0);
      });
  if (!print_) return;
  // The layout of Debian's LAMMPS (29 Sep 2021): the type, the mean, the spread (max - min) and
  // its count, which for bonds is the atoms' count halved.
  std::string text =
      "SHAKE stats (type/ave/delta/count) on step " + std::to_string(sim.step()) + "\n";
  char buf[160];
  const auto line = [&](std::size_t type, std::size_t at, int count) {
    // A spread of exactly 0 (one bond of its type) comes out a column wider from that LAMMPS's
    // formatting library; so here.
    const double spread = most[2 * at] + most[2 * at + 1];
    std::snprintf(buf, sizeof buf,
                  spread == 0.0 ? "%6d   %-#9.6g %-#12.6g %8d\n" : "%6d   %-#9.6g %-#11.6g %8d\n",
                  static_cast<int>(type), sums[2 * at + 1] / sums[2 * at], spread, count);
    text += buf;
  };
  for (std::size_t type = 1; type < bonds; ++type)
    if (sums[2 * type] > 0) line(type, type, static_cast<int>(sums[2 * type]) / 2);
  for (std::size_t type = 1; type + bonds < types; ++type)
    if (sums[2 * (bonds + type)] > 0)
      line(type, bonds + type, static_cast<int>(sums[2 * (bonds + type)]) / 3);
  print_(text);
}

}  // namespace tessera::md
